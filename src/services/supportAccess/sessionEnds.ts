import type { Db } from '../../db/knex.ts';
import type { EndReason } from '../sessions/index.ts';
import { recordSupportAccessEvent } from '../events/record.ts';
import { SECURITY_EVENT_TYPES } from '../events/types.ts';
import { recordAuditEvent, SYSTEM_ACTOR } from '../audit/audit.ts';
import { endAccessesOfSessions, type EndedAccessRow, type EndedRunningAccess, type SupportEndedBy } from './endsRepository.ts';

export type { SupportEndedBy } from './endsRepository.ts';

/**
 * Who ended a support access whose session ended some other way than through the access's own
 * end (requests.ts): the person revoked it in their session list, deleted their account or
 * signed out at the provider; the operator signed out on the platform (only the operator uses
 * a support session); or time (expiry, idling, never reached).
 */
const ENDED_BY: Record<EndReason, 'operator' | 'person' | 'expired'> = {
  revoked: 'person',
  account_deleted: 'person',
  provider_logout: 'person',
  sign_out: 'operator',
  expired: 'expired',
  idle: 'expired',
  unreached: 'expired',
};

/**
 * Called by endSessions (sessions/ending.ts) in the transaction that ends sessions, for every
 * reason a session ends: the accesses of support sessions among them end too, and their
 * platform receives `support-access-ended`. Once: the conditional UPDATE (`ended_at IS NULL`)
 * matches nothing when the access was ended first (by the operator, the person's "End it now",
 * or the purge), whose paths send their own event. Ordinary sessions never get here.
 *
 * (endAccessesOfSessions skips an access another transaction holds: that one announces it.)
 */
export async function endSupportAccessOfSessions(trx: Db, sessionIds: readonly string[], reason: EndReason, endedBy: SupportEndedBy = ENDED_BY[reason]): Promise<void> {
  const rows = await endAccessesOfSessions(trx, sessionIds, endedBy);
  await auditSupportAccessEnds(trx, rows, endedBy);
  await announceSupportAccessEnded(trx, rows, endedBy);
}

/**
 * Audits `support_access.end` for ends no end operation recorded (issue 35's attack review):
 * by time (the purge), with its session, by its platform's settings, by its operator's account
 * deletion. Recorded by the gateway itself (SYSTEM_ACTOR), with who ended it; the caller who
 * caused it, if any, is on that operation's own event, in the same transaction. Once per
 * access: every caller passes the rows its conditional UPDATE (`ended_at IS NULL`) ended.
 */
export async function auditSupportAccessEnds(trx: Db, rows: readonly Pick<EndedAccessRow, 'id' | 'platformKey'>[], endedBy: SupportEndedBy): Promise<void> {
  for (const row of rows) {
    await recordAuditEvent(trx, { action: 'support_access.end', platformKey: row.platformKey, supportAccessId: row.id, endedBy, changedFields: [] }, SYSTEM_ACTOR);
  }
}

/** The platform of each ended access hears `support-access-ended` (in the ending's transaction). */
export async function announceSupportAccessEnded(trx: Db, rows: readonly Pick<EndedRunningAccess, 'sessionId' | 'platformId' | 'userId'>[], endedBy: SupportEndedBy): Promise<void> {
  for (const row of rows) {
    await recordSupportAccessEvent(trx, {
      userId: row.userId,
      platformId: row.platformId,
      type: SECURITY_EVENT_TYPES.supportAccessEnded,
      payload: { session: row.sessionId, ended_by: endedBy },
    });
  }
}
