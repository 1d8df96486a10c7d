import type { Db } from '../../db/knex.ts';
import { endSessionRows, type EndReason, type SessionSelector } from '../../db/repositories/sessions.ts';
import { enqueueBackchannelLogouts } from '../backchannel/outbox.ts';

/**
 * Ends sessions, for every reason a session ends (sign-out, provider logout, revocation,
 * account deletion, expiry or idling noticed by the purge), in one place: the sessions stop
 * working at once (and with them every platform credential derived from them), and each
 * platform that exchanged a code for one of them is told by back-channel logout, once:
 * both in one transaction, so an ended session is never left untold, nor told twice.
 */
export async function endSessions(
  db: Db,
  selector: SessionSelector,
  reason: EndReason,
  /** More work in the same transaction once sessions have ended (e.g. the audit row of a revocation). */
  alsoInTransaction?: (trx: Db, endedIds: readonly string[]) => Promise<void>,
): Promise<string[]> {
  return db.transaction(async (trx) => {
    const ended = await endSessionRows(trx, selector, reason);
    const ids = ended.map((session) => session.id);
    if (ids.length > 0) {
      await enqueueBackchannelLogouts(trx, ids);
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
