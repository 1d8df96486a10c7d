import type { Db } from '../../db/knex.ts';
import { endSessions } from '../sessions/ending.ts';
import { announceSupportAccessEnded, auditSupportAccessEnds } from './sessionEnds.ts';
import { endAccessesOfOperator, endRunningAccessesOfPlatform, type EndedRunningAccess, type SupportEndedBy } from './endsRepository.ts';

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
  const rows = await endRunningAccessesOfPlatform(trx, platformId);
  await auditSupportAccessEnds(trx, rows, 'platform');
  return endRunningAccesses(trx, rows, 'platform');
}

/**
 * The account domain's part (account/deletion.ts, in the deletion's transaction): an operator
 * who deletes their account leaves every access they asked for: a running one ends at once
 * (ended_by `operator`), a pending or unused one can no longer be approved or used.
 */
export async function endSupportAccessOfOperator(trx: Db, operatorUserId: string): Promise<number> {
  const rows = await endAccessesOfOperator(trx, operatorUserId);
  await auditSupportAccessEnds(trx, rows, 'operator');
  return endRunningAccesses(trx, rows.filter((row): row is EndedRunningAccess => row.sessionId !== null), 'operator');
}

/** The sessions of accesses just ended end too (back-channel logout) and their platforms hear `support-access-ended`. */
export async function endRunningAccesses(trx: Db, rows: readonly EndedRunningAccess[], endedBy: SupportEndedBy): Promise<number> {
  if (rows.length === 0) return 0;
  await endSessions(trx, { sessionIds: rows.map((row) => row.sessionId) }, 'revoked');
  await announceSupportAccessEnded(trx, rows, endedBy);
  return rows.length;
}
