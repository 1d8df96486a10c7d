import type { Db } from '../knex.ts';

export interface PurgeCounts {
  handoffCodes: number;
  transactions: number;
  sessions: number;
  sealedTokensErased: number;
}

/**
 * Removes what can no longer be used, in one statement (a row goes only when
 * nothing that stays still refers to it; foreign keys are checked at its end):
 * - handoff codes, transactions and sessions expired longer ago than `graceSeconds`;
 * - sealed gatewayTokens of sessions whose pending handoff can no longer be
 *   exchanged (its code expired, or no code was issued within the grace period),
 *   so no ciphertext of a live token lingers at rest.
 */
export async function purgeExpired(db: Db, graceSeconds: number): Promise<PurgeCounts> {
  const { rows } = await db.raw<{ rows: PurgeCounts[] }>(
    `WITH grace AS (SELECT now() - make_interval(secs => :graceSeconds) AS before),
     codes AS (
       DELETE FROM handoff_codes h USING grace WHERE h.expires_at < grace.before RETURNING h.id
     ), transactions AS (
       DELETE FROM auth_transactions t USING grace
        WHERE t.expires_at < grace.before
          AND NOT EXISTS (SELECT 1 FROM handoff_codes h WHERE h.transaction_id = t.id AND h.id NOT IN (SELECT id FROM codes))
       RETURNING t.id
     ), sessions AS (
       DELETE FROM gateway_sessions s USING grace
        WHERE s.expires_at < grace.before
          AND NOT EXISTS (SELECT 1 FROM handoff_codes h WHERE h.session_id = s.id AND h.id NOT IN (SELECT id FROM codes))
          AND NOT EXISTS (SELECT 1 FROM auth_transactions t WHERE t.session_id = s.id AND t.id NOT IN (SELECT id FROM transactions))
       RETURNING s.id
     ), erased AS (
       UPDATE gateway_sessions s SET token_sealed = NULL FROM grace
        WHERE s.token_sealed IS NOT NULL
          AND s.created_at < grace.before
          AND s.id NOT IN (SELECT id FROM sessions) -- one change per row and statement
          AND NOT EXISTS (SELECT 1 FROM handoff_codes h WHERE h.session_id = s.id AND h.consumed_at IS NULL AND h.expires_at > now())
       RETURNING s.id
     )
     SELECT (SELECT count(*) FROM codes) AS "handoffCodes", (SELECT count(*) FROM transactions) AS transactions,
            (SELECT count(*) FROM sessions) AS sessions, (SELECT count(*) FROM erased) AS "sealedTokensErased"`,
    { graceSeconds },
  );
  return rows[0]!;
}
