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

const EXACT_TIMESTAMP = /^(\d{4})-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

/**
 * A UTC timestamp with microseconds, as PostgreSQL's to_char writes the keyset
 * position, that names a real instant: month 01-12, a day the month has, 00:00:00 to
 * 23:59:59, year 0001 or later. The shape alone let `2026-13-45T99:99:99` reach the
 * query, where PostgreSQL refused it (a 500), and let `24:00:00` or `:60` through as
 * another instant than the one written.
 */
export function isExactTimestamp(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  const match = EXACT_TIMESTAMP.exec(value);
  if (!match || Number(match[1]) < 1) return false;
  // Date rolls impossible fields over (Feb 30 → Mar 2) or refuses them: either way the round trip differs.
  const milliseconds = Date.parse(`${value.slice(0, 19)}Z`);
  return !Number.isNaN(milliseconds) && new Date(milliseconds).toISOString().slice(0, 19) === value.slice(0, 19);
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
