import type { Db } from '../../db/knex.ts';

// The statements that end support accesses other than through the access's own end operations
// (repository.ts): with their sessions, by their platform's settings, by their operator. Each is
// one conditional UPDATE (`ended_at IS NULL`), so an access ends once, and returns the rows it
// ended for the caller to audit and announce (sessionEnds.ts, platformEnds.ts, operatorEnds.ts).

/** An access one of these statements ended: `sessionId` is null for one never used. */
export interface EndedAccessRow {
  id: string;
  sessionId: string | null;
  platformId: string;
  userId: string;
  /** Null only when the platform row is gone (never while a support access refers to it). */
  platformKey: string | null;
}

/** An ended access that had been used: its support session to end, its platform to tell. */
export type EndedRunningAccess = EndedAccessRow & { sessionId: string };

/** Who ended a support access (the contract's `endedBy`, the event's `ended_by`, `support_access.end_reason`). */
export type SupportEndedBy = 'operator' | 'person' | 'expired' | 'platform' | 'administrator';

const ENDED_ROWS = `id, session_id AS "sessionId", platform_id AS "platformId", user_id AS "userId",
                (SELECT platform_key FROM platforms WHERE platforms.id = support_access.platform_id) AS "platformKey"`;

/** Running: used, not ended, its support session live. */
const RUNNING = `session_id IS NOT NULL AND ended_at IS NULL AND refused_at IS NULL
        AND EXISTS (SELECT 1 FROM gateway_sessions s WHERE s.id = support_access.session_id AND s.ended_at IS NULL)`;

/**
 * The accesses of these (support) sessions. SKIP LOCKED: the access's own ends lock its row
 * first and the session's second, while a session's end holds the session's row: waiting would
 * deadlock the two. A locked access is being ended by another transaction, which announces it.
 */
export async function endAccessesOfSessions(trx: Db, sessionIds: readonly string[], endedBy: SupportEndedBy): Promise<EndedRunningAccess[]> {
  const { rows } = await trx.raw<{ rows: EndedRunningAccess[] }>(
    `UPDATE support_access SET ended_at = now(), end_reason = :endedBy
      WHERE id IN (SELECT id FROM support_access
                    WHERE session_id = ANY(CAST(:ids AS uuid[])) AND ended_at IS NULL AND refused_at IS NULL
                    FOR UPDATE SKIP LOCKED)
      RETURNING ${ENDED_ROWS}`,
    { ids: [...sessionIds], endedBy },
  );
  return rows;
}

/** The running accesses on a platform (ended_by `platform`). */
export async function endRunningAccessesOfPlatform(trx: Db, platformId: string): Promise<EndedRunningAccess[]> {
  const { rows } = await trx.raw<{ rows: EndedRunningAccess[] }>(
    `UPDATE support_access SET ended_at = now(), end_reason = 'platform'
      WHERE platform_id = :platformId AND ${RUNNING}
      RETURNING ${ENDED_ROWS}`,
    { platformId },
  );
  return rows;
}

/** Every access an operator asked for that has not ended: pending, unused or running (ended_by `operator`). */
export async function endAccessesOfOperator(trx: Db, operatorUserId: string): Promise<EndedAccessRow[]> {
  const { rows } = await trx.raw<{ rows: EndedAccessRow[] }>(
    `UPDATE support_access SET ended_at = now(), end_reason = 'operator'
      WHERE operator_user_id = :operatorUserId AND ended_at IS NULL AND refused_at IS NULL
      RETURNING ${ENDED_ROWS}`,
    { operatorUserId },
  );
  return rows;
}

/** The running accesses of the operator whose ordinary session this is (ended_by `administrator`); none for a support session. */
export async function endRunningAccessesOfSessionOwner(trx: Db, sessionId: string): Promise<EndedRunningAccess[]> {
  const { rows } = await trx.raw<{ rows: EndedRunningAccess[] }>(
    `UPDATE support_access SET ended_at = now(), end_reason = 'administrator'
      WHERE operator_user_id = (SELECT r.user_id FROM gateway_sessions r WHERE r.id = :sessionId AND r.support_access_id IS NULL)
        AND ${RUNNING}
      RETURNING ${ENDED_ROWS}`,
    { sessionId },
  );
  return rows;
}

/**
 * Up to `batch` running accesses whose operator has signed in again since the access was used
 * (a new ordinary session, its permissions read then) without `support:access` (ended_by
 * `administrator`). Rows another ending holds are skipped: it ends them.
 */
export async function endRunningAccessesOfFormerOperators(trx: Db, batch: number): Promise<EndedRunningAccess[]> {
  const { rows } = await trx.raw<{ rows: EndedRunningAccess[] }>(
    `UPDATE support_access SET ended_at = now(), end_reason = 'administrator'
      WHERE id IN (SELECT a.id FROM support_access a
                    WHERE a.session_id IS NOT NULL AND a.ended_at IS NULL AND a.refused_at IS NULL AND a.ends_at > now()
                      AND EXISTS (SELECT 1 FROM gateway_sessions o
                                   WHERE o.user_id = a.operator_user_id AND o.support_access_id IS NULL
                                     AND o.created_at > a.used_at AND NOT ('support:access' = ANY (o.permissions)))
                    LIMIT :batch FOR UPDATE SKIP LOCKED)
        AND ${RUNNING}
      RETURNING ${ENDED_ROWS}`,
    { batch },
  );
  return rows;
}
