import type { Db } from '../../db/knex.ts';
import { endSessions } from '../sessions/ending.ts';
import { announceSupportAccessEnded, auditSupportAccessEnds, type AuditedEnd, type EndedAccess, type SupportEndedBy } from './sessionEnds.ts';

/**
 * The registry's part (registry/platforms.ts, in the transaction of the update or the
 * deactivation): a platform made sensitive, no longer opting in, or deactivated, is left at
 * once by every support access running on it (issue 35: such a platform is never entered this way). The accesses end with
 * `ended_by: platform`, their sessions end (back-channel logout) and the platform hears
 * `support-access-ended`, once: the conditional UPDATE ends each access once, and the session's
 * own end then finds it ended (sessionEnds.ts). Accesses not used yet need nothing: the sign-in
 * checks the platform again. Imported directly (not through index.ts): sessions/ending.ts
 * imports that index, and this module imports sessions/ending.ts.
 */
export async function endSupportAccessOfPlatform(trx: Db, platformId: string): Promise<number> {
  const { rows } = await trx.raw<{ rows: (EndedAccess & AuditedEnd)[] }>(
    `UPDATE support_access SET ended_at = now(), end_reason = 'platform'
      WHERE platform_id = :platformId AND session_id IS NOT NULL AND ended_at IS NULL AND refused_at IS NULL
        AND EXISTS (SELECT 1 FROM gateway_sessions s WHERE s.id = support_access.session_id AND s.ended_at IS NULL)
      RETURNING id, session_id AS "sessionId", platform_id AS "platformId", user_id AS "userId",
                (SELECT platform_key FROM platforms WHERE platforms.id = support_access.platform_id) AS "platformKey"`,
    { platformId },
  );
  await auditSupportAccessEnds(trx, rows, 'platform');
  return endRunningAccesses(trx, rows, 'platform');
}

/**
 * The account domain's part (account/deletion.ts, in the deletion's transaction): an operator
 * who deletes their account leaves every access they asked for: a running one ends at once
 * (ended_by `operator`), a pending or unused one can no longer be approved or used.
 */
export async function endSupportAccessOfOperator(trx: Db, operatorUserId: string): Promise<number> {
  const { rows } = await trx.raw<{ rows: ((EndedAccess | { sessionId: null; platformId: string; userId: string }) & AuditedEnd)[] }>(
    `UPDATE support_access SET ended_at = now(), end_reason = 'operator'
      WHERE operator_user_id = :operatorUserId AND ended_at IS NULL AND refused_at IS NULL
      RETURNING id, session_id AS "sessionId", platform_id AS "platformId", user_id AS "userId",
                (SELECT platform_key FROM platforms WHERE platforms.id = support_access.platform_id) AS "platformKey"`,
    { operatorUserId },
  );
  await auditSupportAccessEnds(trx, rows, 'operator');
  return endRunningAccesses(trx, rows.filter((row): row is EndedAccess & AuditedEnd => row.sessionId !== null), 'operator');
}

/** The sessions of accesses just ended end too (back-channel logout) and their platforms hear `support-access-ended`. */
export async function endRunningAccesses(trx: Db, rows: EndedAccess[], endedBy: SupportEndedBy): Promise<number> {
  if (rows.length === 0) return 0;
  await endSessions(trx, { sessionIds: rows.map((row) => row.sessionId) }, 'revoked');
  await announceSupportAccessEnded(trx, rows, endedBy);
  return rows.length;
}
