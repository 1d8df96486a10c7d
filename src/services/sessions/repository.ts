import { refuseIfLate, runPrepared, STATEMENT_DEADLINE, STATEMENT_IN_TIME_CTE, type Db } from '../../db/knex.ts';
import type { Permission } from '../../domain/types.ts';

export interface SessionPrincipalRow {
  id: string;
  userId: string;
  sub: string;
  permissions: Permission[];
  createdAt: Date;
  expiresAt: Date;
  lastUsedAt: Date;
  /** A support session's access (issue 35): read on the row already read, no statement more. */
  supportAccessId: string | null;
}

/** The session behind a browser session cookie, with its user; revoked sessions and deleted users never match. */
export async function findSessionByTokenDigest(db: Db, tokenDigest: Buffer): Promise<SessionPrincipalRow | undefined> {
  const { rows } = await db.raw<{ rows: SessionPrincipalRow[] }>(
    `SELECT s.id, s.user_id AS "userId", u.sub, s.permissions, s.created_at AS "createdAt", s.expires_at AS "expiresAt",
            s.last_used_at AS "lastUsedAt", s.support_access_id AS "supportAccessId"
       FROM gateway_sessions s JOIN users u ON u.id = s.user_id
      WHERE s.token_digest = ? AND s.revoked_at IS NULL AND u.deleted_at IS NULL`,
    [tokenDigest],
  );
  return rows[0];
}

export interface PlatformCredentialRow extends SessionPrincipalRow {
  platformId: string;
  platformKey: string;
}

/**
 * The session behind a platform's own credential: it lives and dies with that session
 * (same expiry, revoked with it), and works only while its platform is active.
 */
export async function findPlatformCredentialByDigest(db: Db, tokenDigest: Buffer): Promise<PlatformCredentialRow | undefined> {
  const { rows } = await db.raw<{ rows: PlatformCredentialRow[] }>(
    `SELECT s.id, s.user_id AS "userId", u.sub, s.permissions, s.created_at AS "createdAt", s.expires_at AS "expiresAt",
            s.last_used_at AS "lastUsedAt", s.support_access_id AS "supportAccessId", p.id AS "platformId", p.platform_key AS "platformKey"
       FROM platform_credentials c
       JOIN gateway_sessions s ON s.id = c.session_id
       JOIN users u ON u.id = s.user_id
       JOIN platforms p ON p.id = c.platform_id
      WHERE c.token_digest = ? AND s.revoked_at IS NULL AND u.deleted_at IS NULL AND p.active`,
    [tokenDigest],
  );
  return rows[0];
}

export interface NewSession {
  id: string;
  userId: string;
  tokenDigest: Buffer;
  permissions: Permission[];
  ttlSeconds: number;
  userAgent: string | null;
  ipPrefix: string | null;
  idpSid: string | null;
  idTokenSealed: string | null;
}

export async function insertSession(db: Db, session: NewSession): Promise<{ expiresAt: Date }> {
  const { rows } = await db.raw<{ rows: { expiresAt: Date }[] }>(
    `INSERT INTO gateway_sessions (id, user_id, token_digest, permissions, expires_at, user_agent, ip_prefix, idp_sid, id_token_sealed)
     VALUES (:id, :userId, :tokenDigest, :permissions, now() + make_interval(secs => :ttlSeconds), :userAgent, :ipPrefix, :idpSid, :idTokenSealed)
     RETURNING expires_at AS "expiresAt"`,
    { ...session },
  );
  return rows[0]!;
}

export interface NewLoginSession extends NewSession {
  transactionId: string;
  /** The login's handoff code (its digest and what the exchange returns), or null when the login goes to central onboarding. */
  handoffCodeDigest: Buffer | null;
  platformId: string | null;
  /** The onboarding status as JSON (what the exchange returns). */
  onboarding: string | null;
  handoffTtlSeconds: number | null;
  /** When and how the person authenticated (the ID token's `auth_time`, `amr`, `acr`), for the exchange. */
  authTime: number | null;
  amr: readonly string[] | null;
  acr: string | null;
}

/** The text of gw_insert_login_session, built once: runPrepared compares it with the prepared one on every call. */
const INSERT_LOGIN_SESSION_SQL = `WITH ${STATEMENT_IN_TIME_CTE}, live_user AS (
         SELECT id FROM users WHERE id = :userId AND deleted_at IS NULL AND (SELECT ok FROM in_time) FOR SHARE
       ), session AS (
         INSERT INTO gateway_sessions (id, user_id, token_digest, permissions, expires_at, user_agent, ip_prefix, idp_sid, id_token_sealed, auth_time, amr, acr)
         SELECT :id, live_user.id, :tokenDigest, :permissions, now() + make_interval(secs => :ttlSeconds), :userAgent, :ipPrefix, :idpSid, :idTokenSealed,
                to_timestamp(CAST(:authTime AS double precision)), CAST(:amr AS text[]), CAST(:acr AS text)
           FROM live_user
         RETURNING id, user_id, expires_at
       ), attached AS (
         UPDATE auth_transactions t SET user_id = session.user_id, session_id = session.id FROM session WHERE t.id = :transactionId
       ), handoff AS (
         INSERT INTO handoff_codes (code_digest, transaction_id, platform_id, user_id, session_id, onboarding, expires_at)
         SELECT CAST(:handoffCodeDigest AS bytea), :transactionId, :platformId, session.user_id, session.id, :onboarding,
                now() + make_interval(secs => :handoffTtlSeconds)
           FROM session WHERE CAST(:handoffCodeDigest AS bytea) IS NOT NULL
         ON CONFLICT (transaction_id) DO NOTHING
         RETURNING id
       )
       SELECT session.expires_at AS "expiresAt", (CAST(:handoffCodeDigest AS bytea) IS NULL OR EXISTS (SELECT 1 FROM handoff)) AS "handoffIssued",
              NOT in_time.ok AS late
         FROM in_time LEFT JOIN session ON true`;

/**
 * The end of the callback in one statement: the gateway session, the login transaction
 * pointed at its user and session (what resume and the session list read), and the
 * transaction's handoff code when there is one. The three commit together or not at all,
 * and durably (this is the statement the exchange depends on). `handoffIssued` is false
 * when a handoff code is asked for and the transaction already has one (unique on
 * transaction_id): the caller answers 409 CONFLICT.
 *
 * Nothing is written, and undefined answered, when the account has been deleted since the
 * callback upserted it: the user row is read FOR SHARE, so a deletion either committed
 * before (no session) or waits for this statement and then ends the session with the
 * account's others.
 *
 * Run after its deadline (`in_time`: STATEMENT_DEADLINE) it writes nothing and throws
 * StatementDeadlinePassed: a callback answered 503 has created no session and issued no code.
 */
export async function insertLoginSession(db: Db, session: NewLoginSession): Promise<{ expiresAt: Date; handoffIssued: boolean } | undefined> {
  const { rows } = await runPrepared<{ expiresAt: Date | null; handoffIssued: boolean | null; late: boolean }>(
    db,
    'gw_insert_login_session',
    INSERT_LOGIN_SESSION_SQL,
    { ...session, deadline: STATEMENT_DEADLINE },
  );
  const row = rows[0]!;
  refuseIfLate('gw_insert_login_session', row);
  return row.expiresAt ? { expiresAt: row.expiresAt, handoffIssued: row.handoffIssued! } : undefined;
}

/**
 * Marks a use of the session, at most once a minute: the idle timeout is checked on every
 * request from what is read, without a write per request. The first use after the login is
 * always marked (last_used_at still equals created_at): it tells a session a browser holds from
 * one no browser holds any more (`unreachedAfterSeconds`).
 */
export async function touchSession(db: Db, sessionId: string): Promise<void> {
  await db.raw(
    `UPDATE gateway_sessions SET last_used_at = now()
      WHERE id = ? AND (last_used_at < now() - interval '1 minute' OR (last_used_at = created_at AND now() > created_at))`,
    [sessionId],
  );
}

export type EndReason = 'sign_out' | 'provider_logout' | 'revoked' | 'account_deleted' | 'expired' | 'idle' | 'unreached';

/** Which sessions end: fixed shapes only (no SQL from callers). */
export type SessionSelector =
  | { sessionIds: readonly string[] }
  /** A user's sessions, all but `except` when it names one. */
  | { userId: string; except?: string | null }
  | { idpSid: string }
  /**
   * The session and every live one of the same user from the same sign-in at the provider (same
   * `sid`), only while that session itself lives: once it has ended, a later sign-in at the same
   * provider session is another sign-out's business (a replayed sign-out token ends nothing).
   */
  | { sameSignInAs: string }
  | { sub: string }
  | { expiredOrIdleSeconds: number; limit: number }
  /**
   * Logins that never reached a platform, `afterSeconds` after the login: no platform
   * credential, no handoff code pending or spent, and a cookie never used since (a newer login
   * in the same browser replaced it). The browser still holding such a cookie uses it, which
   * records a use (security.ts), so the browser's own session never matches.
   */
  | { unreachedAfterSeconds: number; limit: number };

/**
 * Ends the live sessions a selector names, once: `ended_at` and the reason are set (and
 * `revoked_at`, so no lookup finds them again), and the ended sessions are returned; a
 * session that has already ended is not returned again. Expired and idle sessions (found by
 * the purge) keep `revoked_at` empty: they ended by time, nobody revoked them.
 */
export async function endSessionRows(db: Db, selector: SessionSelector, reason: EndReason): Promise<{ id: string; userId: string; supportAccessId: string | null }[]> {
  let where: string;
  let bindings: Record<string, unknown>;
  if ('sessionIds' in selector) {
    where = 's.id = ANY(CAST(:ids AS uuid[]))';
    bindings = { ids: [...selector.sessionIds] };
  } else if ('userId' in selector) {
    where = 's.user_id = :userId AND s.id IS DISTINCT FROM CAST(:except AS uuid)';
    bindings = { userId: selector.userId, except: selector.except ?? null };
  } else if ('idpSid' in selector) {
    where = 's.idp_sid = :idpSid';
    bindings = { idpSid: selector.idpSid };
  } else if ('sameSignInAs' in selector) {
    where = `s.id = :id OR s.id IN (SELECT o.id FROM gateway_sessions o JOIN gateway_sessions me ON me.id = :id
                                     WHERE o.user_id = me.user_id AND o.idp_sid = me.idp_sid AND me.ended_at IS NULL)`;
    bindings = { id: selector.sameSignInAs };
  } else if ('sub' in selector) {
    where = 's.user_id IN (SELECT id FROM users WHERE sub = :sub)';
    bindings = { sub: selector.sub };
  } else if ('unreachedAfterSeconds' in selector) {
    where = `s.id IN (SELECT g.id FROM gateway_sessions g
                       WHERE g.ended_at IS NULL AND g.last_used_at = g.created_at
                         AND g.created_at <= now() - make_interval(secs => :after)
                         AND NOT EXISTS (SELECT 1 FROM platform_credentials c WHERE c.session_id = g.id)
                         AND NOT EXISTS (SELECT 1 FROM handoff_codes h
                                          WHERE h.session_id = g.id AND (h.consumed_at IS NOT NULL OR h.expires_at > now()))
                       ORDER BY g.created_at LIMIT :limit)`;
    bindings = { after: selector.unreachedAfterSeconds, limit: selector.limit };
  } else {
    where = `s.id IN (SELECT id FROM gateway_sessions
                       WHERE ended_at IS NULL AND (expires_at <= now() OR last_used_at <= now() - make_interval(secs => :idle))
                       ORDER BY expires_at LIMIT :limit)`;
    bindings = { idle: selector.expiredOrIdleSeconds, limit: selector.limit };
  }
  const byTime = reason === 'expired' || reason === 'idle';
  const { rows } = await db.raw<{ rows: { id: string; userId: string; supportAccessId: string | null }[] }>(
    `UPDATE gateway_sessions s
        SET ended_at = now(),
            end_reason = ${byTime ? `CASE WHEN s.expires_at <= now() THEN 'expired' ELSE 'idle' END` : ':reason'},
            revoked_at = ${byTime ? 's.revoked_at' : 'COALESCE(s.revoked_at, now())'}
      WHERE (${where}) AND s.ended_at IS NULL
      RETURNING s.id, s.user_id AS "userId", s.support_access_id AS "supportAccessId"`,
    { ...bindings, reason },
  );
  return rows;
}

export interface SessionListRow {
  id: string;
  userId: string;
  createdAt: Date;
  lastUsedAt: Date;
  expiresAt: Date;
  userAgent: string | null;
  ipPrefix: string | null;
  platforms: string[];
}

/** A user's live sessions (not ended, not expired, not idle), most recently used first. */
export async function listLiveSessions(db: Db, userId: string, idleSeconds: number): Promise<SessionListRow[]> {
  const { rows } = await db.raw<{ rows: SessionListRow[] }>(
    `SELECT s.id, s.user_id AS "userId", s.created_at AS "createdAt", s.last_used_at AS "lastUsedAt", s.expires_at AS "expiresAt",
            s.user_agent AS "userAgent", s.ip_prefix AS "ipPrefix",
            COALESCE(ARRAY(SELECT DISTINCT p.platform_key FROM platform_credentials c JOIN platforms p ON p.id = c.platform_id
                            WHERE c.session_id = s.id ORDER BY p.platform_key), '{}') AS platforms
       FROM gateway_sessions s
      WHERE s.user_id = :userId AND s.ended_at IS NULL AND s.revoked_at IS NULL
        AND s.expires_at > now() AND s.last_used_at > now() - make_interval(secs => :idleSeconds)
      ORDER BY s.last_used_at DESC, s.created_at DESC`,
    { userId, idleSeconds },
  );
  return rows;
}

/** The owner of a session (ended or not), for revocation rights. */
export async function findSessionOwner(db: Db, sessionId: string): Promise<{ userId: string; ended: boolean } | undefined> {
  const { rows } = await db.raw<{ rows: { userId: string; ended: boolean }[] }>(
    `SELECT user_id AS "userId", (ended_at IS NOT NULL) AS ended FROM gateway_sessions WHERE id = ?`,
    [sessionId],
  );
  return rows[0];
}

/** The sealed ID token of a session, for the id_token_hint of RP-initiated logout. */
export async function findSessionIdToken(db: Db, sessionId: string): Promise<string | null> {
  const { rows } = await db.raw<{ rows: { sealed: string | null }[] }>('SELECT id_token_sealed AS sealed FROM gateway_sessions WHERE id = ?', [sessionId]);
  return rows[0]?.sealed ?? null;
}
