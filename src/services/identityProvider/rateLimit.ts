// Password changes are limited per user: 5 attempts a minute, each attempt counted whatever its
// outcome, so the current password cannot be guessed through the gateway. The counters live in
// the gateway's PostgreSQL (table `rate_limits`, migration 20261122000800), so every instance of
// the gateway shares them (rate-limiter-flexible's PostgreSQL store, on the knex pool).

import { createHash } from 'node:crypto';
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';

import type { Db } from '../../db/knex.ts';
import { ApiError } from '../../errors/catalogue.ts';

export const PASSWORD_CHANGE_LIMIT = { points: 5, durationSeconds: 60 } as const;

const limiters = new WeakMap<Db, RateLimiterPostgres>();

function passwordChangeLimiter(db: Db): RateLimiterPostgres {
  let limiter = limiters.get(db);
  if (!limiter) {
    limiter = new RateLimiterPostgres({
      storeClient: db,
      storeType: 'knex',
      tableName: 'rate_limits',
      tableCreated: true, // the migration creates it; the service never runs DDL at request time
      keyPrefix: 'password_change',
      points: PASSWORD_CHANGE_LIMIT.points,
      duration: PASSWORD_CHANGE_LIMIT.durationSeconds,
    });
    limiters.set(db, limiter);
  }
  return limiter;
}

/**
 * Counts one password-change attempt of the user, or refuses it with 429 RATE_LIMITED and
 * Retry-After (whole seconds, at least 1). The key is a digest of the subject: fixed length,
 * and no user id in the table.
 */
export async function consumePasswordChangeAttempt(db: Db, sub: string): Promise<void> {
  const key = createHash('sha256').update(sub, 'utf8').digest('base64url');
  try {
    await passwordChangeLimiter(db).consume(key, 1);
  } catch (rejection) {
    if (!(rejection instanceof RateLimiterRes)) throw rejection; // the store failed: the database error handling applies
    const retryAfter = Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
    throw new ApiError('RATE_LIMITED', `Too many password change attempts. Try again in ${retryAfter} seconds.`, {
      headers: { 'Retry-After': String(retryAfter) },
    });
  }
}
