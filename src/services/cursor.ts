import { validationError } from '../errors/catalogue.ts';

// Pagination cursors are opaque to clients: base64url of a small JSON object that
// holds the keyset position (the sort key of the last item of the page). They
// carry no filter, so a client that changes filters between pages just continues
// from the same position under the new filter. They are not signed: a forged
// cursor can only move the position within what the caller may list anyway.

export function encodeCursor(position: Record<string, string>): string {
  return Buffer.from(JSON.stringify(position), 'utf8').toString('base64url');
}

/**
 * Decodes a cursor and checks its shape with `accept`; anything else is a 400
 * on `/query/cursor`, never a 500.
 */
export function decodeCursor<T>(raw: string, accept: (value: Record<string, unknown>) => T | null): T {
  let value: unknown;
  try {
    if (!/^[A-Za-z0-9_-]+$/.test(raw)) throw new Error('not base64url');
    value = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
  } catch {
    value = null;
  }
  const position = value !== null && typeof value === 'object' && !Array.isArray(value) ? accept(value as Record<string, unknown>) : null;
  if (position === null) {
    throw validationError([{ pointer: '/query/cursor', message: 'is not a cursor returned by this list' }]);
  }
  return position;
}

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 100;

/** The contract bounds `limit` to 1..100 (default 50); the CLI passes whatever it was given. */
export function pageSize(limit: unknown): number {
  if (limit === undefined || limit === null) return DEFAULT_PAGE_SIZE;
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE) {
    throw validationError([{ pointer: '/query/limit', message: `must be an integer from 1 to ${MAX_PAGE_SIZE}` }]);
  }
  return limit;
}
