import type { Db } from '../../db/knex.ts';

/**
 * Marks a handoff challenge as a step-up's (the migration 20261128001000 says why): from now on a
 * start of this platform with this challenge must carry a step-up token bound to it. Committed
 * (synchronously, as every statement but the start's insert) before the step-up's URL is
 * answered, so no start can see the challenge first. Asked twice (a retried step-up), the row
 * keeps the later expiry.
 */
export async function reserveStepUpChallenge(db: Db, input: { handoffChallenge: string; platformId: string; expiresAt: Date }): Promise<void> {
  await db.raw(
    `INSERT INTO step_up_challenges (handoff_challenge, platform_id, expires_at) VALUES (:handoffChallenge, :platformId, :expiresAt)
     ON CONFLICT (handoff_challenge, platform_id) DO UPDATE SET expires_at = GREATEST(step_up_challenges.expires_at, EXCLUDED.expires_at)`,
    input,
  );
}

/**
 * The condition the start's insert (insertTransaction) adds, on its own bindings: a start that
 * carries no step-up token (`stepUpSub` null) must not present a challenge a step-up was issued
 * for. A start with a token passes: its token was checked to be bound to this very challenge
 * (freshSignIn.ts, openStepUp). One index lookup on the primary key, in the same statement.
 */
export const NO_STRIPPED_STEP_UP = `(CAST(:stepUpSub AS text) IS NOT NULL OR NOT EXISTS (
           SELECT 1 FROM step_up_challenges c WHERE c.handoff_challenge = CAST(:handoffChallenge AS text) AND c.platform_id = :platformId))`;

/**
 * Whether a step-up was issued for this challenge on this platform: for a start that writes its
 * transaction elsewhere (a support sign-in, supportAccess/signIn.ts), which applies the same
 * rule as NO_STRIPPED_STEP_UP, read in its own transaction.
 */
export async function isStepUpChallenge(db: Db, input: { handoffChallenge: string; platformId: string }): Promise<boolean> {
  const { rows } = await db.raw<{ rows: unknown[] }>('SELECT 1 FROM step_up_challenges WHERE handoff_challenge = :handoffChallenge AND platform_id = :platformId', input);
  return rows.length > 0;
}

/**
 * For the periodic purge (services/maintenance/maintenance.ts): the marks whose step-up token expired more
 * than `graceSeconds` ago, in bounded batches (each statement holds its locks briefly). No
 * platform keeps a login's verifier that long (the platform kit: 10 minutes by default).
 */
export async function purgeExpiredStepUpChallenges(db: Db, graceSeconds: number, batch = 5000): Promise<number> {
  let total = 0;
  for (;;) {
    const { rowCount } = await db.raw<{ rowCount: number | null }>(
      `DELETE FROM step_up_challenges
        WHERE ctid IN (SELECT ctid FROM step_up_challenges WHERE expires_at < now() - make_interval(secs => ?) LIMIT ? FOR UPDATE SKIP LOCKED)`,
      [graceSeconds, batch],
    );
    const removed = rowCount ?? 0;
    total += removed;
    if (removed < batch) return total;
  }
}
