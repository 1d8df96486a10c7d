/**
 * The one statement that counts points on a rate-limit row of the `rate_limits` table
 * (rate-limiter-flexible's PostgreSQL store: key, points, expire in ms since the epoch). Used
 * by that store (src/services/rateLimits.ts replaces its upsert) and inside the start's
 * platform read (findActivePlatformByKeyCounting), so the arithmetic is written once: points
 * add up on a live window, a window past its expiry starts again, and `forceExpire` sets both.
 *
 * Committed with synchronous_commit off for its own transaction only (set_config(…, true) is
 * transaction-local, and the statement is its own transaction): a crash of PostgreSQL can lose
 * the counts of the last fraction of a second (wal_writer_delay), which a limit per minute
 * tolerates, and the starts from one address no longer queue behind each other's disk flushes
 * while holding the row's lock.
 *
 * The placeholders are given by the caller (pg's $n or knex's ?), in the order key, points,
 * the new window's expire, and now (not used with forceExpire).
 */
export function countRateLimitSql(table: string, placeholders: { key: string; points: string; newExpire: string; now: string }, forceExpire = false): string {
  const { key, points, newExpire, now } = placeholders;
  const counted = forceExpire ? points : `CASE WHEN ${table}.expire <= ${now} THEN ${points} ELSE ${table}.points + ${points} END`;
  const expire = forceExpire ? newExpire : `CASE WHEN ${table}.expire <= ${now} THEN ${newExpire} ELSE ${table}.expire END`;
  return `INSERT INTO ${table} (key, points, expire)
         SELECT CAST(${key} AS varchar), CAST(${points} AS integer), CAST(${newExpire} AS bigint)
           FROM (SELECT set_config('synchronous_commit', 'off', true)) AS asynchronous_commit
         ON CONFLICT (key) DO UPDATE SET points = ${counted}, expire = ${expire}
         RETURNING points, expire`;
}
