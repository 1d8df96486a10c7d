import type { Db } from '../../db/knex.ts';

// Back-channel logout out to platforms (OpenID Connect Back-Channel Logout 1.0, the gateway
// as the OP): a transactional outbox in PostgreSQL, worked by graphile-worker.
//
// - Enqueue: in the transaction that ends sessions (sessions/ending.ts), one graphile-worker
//   job per (ended session, platform that exchanged a code for it and registered a
//   backchannelLogoutUrl), added with graphile-worker's own SQL function `add_job`, so the
//   jobs commit, or roll back, with the end of the sessions.
// - The job key `logout:<sessionId>:<platformId>` with job_key_mode `unsafe_dedupe` makes a
//   second job for the same pair impossible while the first exists, even once it runs (a
//   session ends once, so a second add could only repeat the first).
// - Work (worker.ts, delivery.ts): every instance runs a worker; graphile-worker locks each
//   job (FOR UPDATE SKIP LOCKED), so a job is worked by one worker at a time. A delivery that
//   fails throws and graphile-worker retries it with its exponential backoff; the last
//   failure is recorded as a give-up (backchannel_logout_give_ups) and logged as an error.

/** The graphile-worker task identifier of a back-channel logout delivery. */
export const BACKCHANNEL_LOGOUT_TASK = 'backchannel_logout';

/**
 * Attempts before a delivery gives up. graphile-worker waits exp(min(attempts, 10)) seconds
 * after a failed attempt (`run_at = greatest(now(), run_at) + exp(least(attempts, 10)) *
 * interval '1 second'`): e^1 … e^10 s after the first ten failures (about 9.7 hours in
 * total), then e^10 s (about 6.1 hours) after each further one. 15 attempts span 14 waits:
 * about 34 hours, a day and a half, before the give-up. (12 attempts would be about 15.8 hours.)
 */
export const BACKCHANNEL_LOGOUT_MAX_ATTEMPTS = 15;

/** What a job carries: ids only. The platform's URL and client id are read when it runs. */
export interface BackchannelLogoutPayload {
  sessionId: string;
  platformId: string;
  /** The local user id: the logout token's `sub` (the session row may be purged before a late retry). */
  userId: string;
}

/** graphile-worker's wait after the n-th failed attempt, in seconds (its SQL: exp(least(n, 10))). */
export const retryDelaySeconds = (failedAttempts: number) => Math.exp(Math.min(failedAttempts, 10));

/**
 * Queues a back-channel logout to every platform that exchanged a code for each ended
 * session (it holds a platform credential of the session) and registered a
 * backchannelLogoutUrl, in the transaction that ended them (a transactional outbox).
 * Returns how many jobs were added.
 */
export async function enqueueBackchannelLogouts(db: Db, sessionIds: readonly string[]): Promise<number> {
  if (sessionIds.length === 0) return 0;
  return enqueueLogoutJobs(db, 'c.session_id = ANY(CAST(:ids AS uuid[]))', { ids: [...sessionIds] });
}

/**
 * Leaving a platform (issue 26, services/dataRights/apps.ts): queues a back-channel logout to
 * the platform for each live session of the person it holds a credential for, before those
 * credentials are revoked in the same transaction. The same job (task, payload, key) as when a
 * session ends, so a later end of the session does not tell the platform twice. Returns how
 * many jobs were added.
 */
export async function enqueueBackchannelLogoutsOfPlatform(db: Db, userId: string, platformId: string): Promise<number> {
  return enqueueLogoutJobs(db, 's.user_id = :userId AND c.platform_id = :platformId AND s.ended_at IS NULL', { userId, platformId });
}

/** One job per (session, platform) among the credentials `which` selects; the job key makes a second queueing a no-op. */
async function enqueueLogoutJobs(db: Db, which: string, bindings: Record<string, unknown>): Promise<number> {
  const { rows } = await db.raw<{ rows: { id: string }[] }>(
    `SELECT (graphile_worker.add_job(
               :task,
               json_build_object('sessionId', t.session_id, 'platformId', t.platform_id, 'userId', t.user_id),
               max_attempts => :maxAttempts,
               job_key => 'logout:' || t.session_id || ':' || t.platform_id,
               job_key_mode => 'unsafe_dedupe'
             )).id
       FROM (SELECT DISTINCT c.session_id, c.platform_id, s.user_id
               FROM platform_credentials c
               JOIN gateway_sessions s ON s.id = c.session_id
               JOIN platforms p ON p.id = c.platform_id
              WHERE ${which} AND p.backchannel_logout_url IS NOT NULL
              ORDER BY c.session_id, c.platform_id) t`,
    { task: BACKCHANNEL_LOGOUT_TASK, maxAttempts: BACKCHANNEL_LOGOUT_MAX_ATTEMPTS, ...bindings },
  );
  return rows.length;
}
