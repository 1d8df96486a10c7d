// Back-channel logout in (OpenID Connect Back-Channel Logout 1.0 §2.6 step 7 and §2.7): a logout
// token the identity provider posted, already verified (src/oidc/logoutTokens.ts), is spent once
// and ends the gateway sessions it names. Back-channel logout *out*, to platforms, is queued by
// endSessions (sessions/ending.ts) in the same transaction.

import type { Db } from '../../db/knex.ts';
import type { VerifiedLogoutToken } from '../../oidc/logoutTokens.ts';
import { endSessions } from '../sessions/ending.ts';

export type LogoutTokenOutcome =
  /** The token's `jti` was accepted before: nothing was done (§2.6 step 7, a replay). */
  | { replayed: true }
  /** The sessions that ended (none is fine: the person may have had no session here). */
  | { replayed: false; endedSessionIds: string[]; by: 'sid' | 'sub' | 'sid+sub' };

/**
 * Remembers the token's `jti` and ends the sessions it names, in one transaction: a replay is
 * refused by one atomic INSERT … ON CONFLICT DO NOTHING (two deliveries at once: the second waits
 * for the first and finds its row), and if ending the sessions fails the `jti` is not kept, so the
 * provider's retry is not taken for a replay.
 *
 * Which sessions (§2.7): with a `sid`, every live session of that provider session (with a `sub`
 * too, only those of that subject); with only a `sub`, every live session of that subject. They
 * end as `provider_logout`: revoked with every platform credential derived from them, and their
 * platforms told by back-channel logout.
 */
export async function receiveLogoutToken(db: Db, token: VerifiedLogoutToken): Promise<LogoutTokenOutcome> {
  return db.transaction(async (trx) => {
    const { rows } = await trx.raw<{ rows: unknown[] }>(
      `INSERT INTO backchannel_logout_jtis (jti_digest, expires_at) VALUES (?, ?)
       ON CONFLICT (jti_digest) DO NOTHING
       RETURNING 1`,
      [token.jtiDigest, token.replayableUntil],
    );
    if (rows.length === 0) return { replayed: true };

    if (token.sid !== null && token.sub !== null) {
      const ids = await liveSessionsOfProviderSession(trx, token.sid, token.sub);
      const ended = ids.length > 0 ? await endSessions(trx, { sessionIds: ids }, 'provider_logout') : [];
      return { replayed: false, endedSessionIds: ended, by: 'sid+sub' };
    }
    if (token.sid !== null) {
      return { replayed: false, endedSessionIds: await endSessions(trx, { idpSid: token.sid }, 'provider_logout'), by: 'sid' };
    }
    return { replayed: false, endedSessionIds: await endSessions(trx, { sub: token.sub! }, 'provider_logout'), by: 'sub' };
  });
}

/** The live sessions of one provider session that belong to one subject. */
async function liveSessionsOfProviderSession(db: Db, sid: string, sub: string): Promise<string[]> {
  const { rows } = await db.raw<{ rows: { id: string }[] }>(
    `SELECT s.id FROM gateway_sessions s JOIN users u ON u.id = s.user_id
      WHERE s.idp_sid = ? AND u.sub = ? AND s.ended_at IS NULL`,
    [sid, sub],
  );
  return rows.map((row) => row.id);
}

/**
 * Forgets the `jti`s of logout tokens that could no longer be accepted anyway (past their
 * `expires_at`, set from the token's `exp` and `iat`), in bounded batches. For the periodic purge
 * (services/maintenance/maintenance.ts); safe on many instances at once. Returns how many went.
 */
export async function purgeExpiredLogoutTokenJtis(db: Db, batch = 5000): Promise<number> {
  let total = 0;
  for (;;) {
    const { rowCount } = await db.raw<{ rowCount: number | null }>(
      `DELETE FROM backchannel_logout_jtis
        WHERE jti_digest IN (SELECT jti_digest FROM backchannel_logout_jtis WHERE expires_at < now() LIMIT ? FOR UPDATE SKIP LOCKED)`,
      [batch],
    );
    const removed = rowCount ?? 0;
    total += removed;
    if (removed < batch) return total;
  }
}
