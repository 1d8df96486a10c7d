import type { Db } from '../../db/knex.ts';
import { endSessionRows, type EndReason, type SessionSelector } from './repository.ts';
import { enqueueBackchannelLogouts } from '../backchannel/outbox.ts';
import { endSupportAccessOfSessions, type SupportEndedBy } from '../supportAccess/index.ts';

/**
 * Ends sessions, for every reason a session ends (sign-out, provider logout, revocation,
 * account deletion, expiry or idling noticed by the purge), in one place: the sessions stop
 * working at once (and with them every platform credential derived from them), and each
 * platform that exchanged a code for one of them is told by back-channel logout, once:
 * both in one transaction, so an ended session is never left untold, nor told twice. A support
 * session's access ends with it, and its platform hears `support-access-ended` (issue 35); an
 * ordinary session costs no statement for this (the ending UPDATE returns the column).
 */
export async function endSessions(
  db: Db,
  selector: SessionSelector,
  reason: EndReason,
  /** More work in the same transaction once sessions have ended (e.g. the audit row of a revocation). */
  alsoInTransaction?: (trx: Db, endedIds: readonly string[]) => Promise<void>,
  /** Who ends a support session's access when the reason alone does not say (an administrator's revocation). */
  supportEndedBy?: SupportEndedBy,
): Promise<string[]> {
  return db.transaction(async (trx) => {
    const ended = await endSessionRows(trx, selector, reason);
    const ids = ended.map((session) => session.id);
    if (ids.length > 0) {
      await enqueueBackchannelLogouts(trx, ids);
      const support = ended.filter((session) => session.supportAccessId !== null).map((session) => session.id);
      if (support.length > 0) await endSupportAccessOfSessions(trx, support, reason, supportEndedBy);
      await alsoInTransaction?.(trx, ids);
    }
    return ids;
  });
}

/**
 * The purge's part: sessions that expired or idled out without anyone ending them, in
 * bounded batches, so their platforms are told too.
 */
export async function endTimedOutSessions(db: Db, idleSeconds: number, batch = 500): Promise<number> {
  let total = 0;
  for (;;) {
    const ended = await endSessions(db, { expiredOrIdleSeconds: idleSeconds, limit: batch }, 'expired');
    total += ended.length;
    if (ended.length < batch) return total;
  }
}

/**
 * How long after its login a session that reached no platform, and whose cookie was never
 * used, is left before it ends on its own. Longer than any handoff code lives
 * (AUTH_HANDOFF_TTL_SECONDS is at most 300) and than the purge's period, short enough that the
 * account center's list no longer shows it within a quarter of an hour.
 */
export const UNREACHED_SESSION_SECONDS = 10 * 60;

/**
 * The purge's part for logins that never reached a platform: a newer login in the same browser
 * replaced their cookie before any use, and no platform holds a credential for them, so nobody
 * can use them; they would only crowd the person's list of sessions. Ended with the reason
 * `unreached` (nobody is told: no platform holds them).
 */
export async function endUnreachedSessions(db: Db, afterSeconds = UNREACHED_SESSION_SECONDS, batch = 500): Promise<number> {
  let total = 0;
  for (;;) {
    const ended = await endSessions(db, { unreachedAfterSeconds: afterSeconds, limit: batch }, 'unreached');
    total += ended.length;
    if (ended.length < batch) return total;
  }
}
