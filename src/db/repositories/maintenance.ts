import type { Db } from '../knex.ts';

export interface PurgeCounts {
  handoffCodes: number;
  transactions: number;
  sessions: number;
}

/**
 * Removes what can no longer be used, in one statement (a row goes only when
 * nothing that stays still refers to it; foreign keys are checked at its end):
 * handoff codes, transactions and sessions expired longer ago than `graceSeconds`.
 * A session's platform credentials go with it (ON DELETE CASCADE).
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
          AND s.ended_at IS NOT NULL -- ended, so its platforms were told (sessions/ending.ts)
          AND NOT EXISTS (SELECT 1 FROM handoff_codes h WHERE h.session_id = s.id AND h.id NOT IN (SELECT id FROM codes))
          AND NOT EXISTS (SELECT 1 FROM auth_transactions t WHERE t.session_id = s.id AND t.id NOT IN (SELECT id FROM transactions))
       RETURNING s.id
     )
     SELECT (SELECT count(*) FROM codes) AS "handoffCodes", (SELECT count(*) FROM transactions) AS transactions,
            (SELECT count(*) FROM sessions) AS sessions`,
    { graceSeconds },
  );
  return rows[0]!;
}
