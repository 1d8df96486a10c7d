/**
 * The one statement that counts points on a rate-limit row of the `rate_limits` table
 * (rate-limiter-flexible's PostgreSQL store: key, points, expire in ms since the epoch). Used
 * by that store (src/services/rateLimits/rateLimits.ts replaces its upsert) and inside the start's
 * platform read (findActivePlatformByKeyCounting), so the arithmetic is written once: points
 * add up on a live window, a window past its expiry starts again, and `forceExpire` sets both.
 *
 * Committed with synchronous_commit off for its own transaction only (set_config(…, true) is
 * transaction-local, and the statement is its own transaction): a crash of PostgreSQL can lose
 * the counts of the last fraction of a second (wal_writer_delay), which a limit per minute
 * tolerates, and the starts from one address no longer queue behind each other's disk flushes
 * while holding the row's lock.
 *
 * Inside a statement that must be durable (the callback's consume), `asynchronousCommit: false`
 * leaves the commit to that statement.
 *
 * The placeholders are given by the caller (pg's $n or knex's ?), in the order key, points,
 * the new window's expire, and now (not used with forceExpire).
 */
export function countRateLimitSql(
  table: string,
  placeholders: { key: string; points: string; newExpire: string; now: string },
  forceExpire = false,
  { asynchronousCommit = true } = {},
): string {
  const { key, points, newExpire, now } = placeholders;
  const counted = forceExpire ? points : `CASE WHEN ${table}.expire <= ${now} THEN ${points} ELSE ${table}.points + ${points} END`;
  const expire = forceExpire ? newExpire : `CASE WHEN ${table}.expire <= ${now} THEN ${newExpire} ELSE ${table}.expire END`;
  return `INSERT INTO ${table} (key, points, expire)
         SELECT CAST(${key} AS varchar), CAST(${points} AS integer), CAST(${newExpire} AS bigint)${asynchronousCommit ? `
           FROM (SELECT set_config('synchronous_commit', 'off', true)) AS asynchronous_commit` : ''}
         ON CONFLICT (key) DO UPDATE SET points = ${counted}, expire = ${expire}
         RETURNING points, expire`;
}

/**
 * A rate limit counted inside the statement of the step it guards (the counters in PostgreSQL):
 * one round trip fewer than asking the store first. The statement itself decides, so a step over
 * the budget writes nothing (no transaction started, none consumed), and answers the window's
 * end as `rateLimitedUntil` (ms since the epoch), null within the budget. The same row, key and
 * arithmetic as rate-limiter-flexible's store.
 */
export interface StatementRateLimit {
  /** `<prefix>:<digest>`, the row's key. */
  key: string;
  /** The budget of one window. */
  points: number;
  /** The window's length, in milliseconds. */
  durationMs: number;
}

/** The bindings of limitCountedCte: :limitKey, :limitPoints, :limitNewExpire, :limitNow (now fixed once per statement). */
export function statementLimitBindings(limit: StatementRateLimit | null) {
  const now = Date.now();
  return { limitKey: limit?.key ?? null, limitPoints: limit?.points ?? 0, limitNewExpire: now + (limit?.durationMs ?? 0), limitNow: now };
}

/** A CTE counting one point on :limitKey (its RETURNING: points, expire). */
export function limitCountedCte(options: { asynchronousCommit: boolean }): string {
  return countRateLimitSql('rate_limits', { key: ':limitKey', points: '1', newExpire: ':limitNewExpire', now: 'CAST(:limitNow AS bigint)' }, false, options);
}

