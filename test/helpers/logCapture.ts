// Shared by the Zitadel adapter's tests: a logger destination that keeps every line, and the
// ApiError a promise rejects with.
import type { DestinationStream } from 'pino';

import { ApiError } from '../../src/errors/catalogue.ts';

export function memory(): { stream: DestinationStream; lines: () => Array<Record<string, unknown>>; text: () => string } {
  const raw: string[] = [];
  return {
    stream: { write: (line: string) => void raw.push(line) },
    lines: () => raw.map((line) => JSON.parse(line) as Record<string, unknown>),
    text: () => raw.join(''),
  };
}

/** The ApiError a promise rejects with. */
export async function apiError(promise: Promise<unknown>): Promise<ApiError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected an ApiError');
}
