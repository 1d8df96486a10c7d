import { refuseIfLate, runPrepared, STATEMENT_DEADLINE, STATEMENT_IN_TIME_CTE, type Db } from '../../db/knex.ts';
import type { Permission } from '../../domain/types.ts';
import type { OnboardingStatus } from '../../domain/types.ts';
import { PLATFORM_CLIENT_MATCH } from '../registry/platformsRepository.ts';

export interface NewHandoff {
  codeDigest: Buffer;
  transactionId: string;
  platformId: string;
  userId: string;
  sessionId: string;
  onboarding: OnboardingStatus;
  ttlSeconds: number;
}

/** The text of gw_insert_handoff, built once: runPrepared compares it with the prepared one on every call. */
const INSERT_HANDOFF_SQL = `WITH ${STATEMENT_IN_TIME_CTE}, inserted AS (
       INSERT INTO handoff_codes (code_digest, transaction_id, platform_id, user_id, session_id, onboarding, expires_at)
       SELECT :codeDigest, :transactionId, :platformId, :userId, :sessionId, :onboarding, now() + make_interval(secs => :ttlSeconds)
         FROM in_time WHERE in_time.ok
       ON CONFLICT (transaction_id) DO NOTHING
       RETURNING id
     )
     SELECT NOT in_time.ok AS late, EXISTS (SELECT 1 FROM inserted) AS inserted FROM in_time`;

/**
 * Returns false when the transaction already has a handoff (unique on transaction_id). Run after
 * its deadline (STATEMENT_DEADLINE) it inserts nothing and throws StatementDeadlinePassed: a
 * resume answered 503 has issued no code, so its retry is not refused with 409 CONFLICT.
 */
export async function insertHandoff(db: Db, handoff: NewHandoff): Promise<boolean> {
  const { rows } = await runPrepared<{ late: boolean; inserted: boolean }>(
    db,
    'gw_insert_handoff',
    INSERT_HANDOFF_SQL,
    { ...handoff, onboarding: JSON.stringify(handoff.onboarding), deadline: STATEMENT_DEADLINE },
  );
  refuseIfLate('gw_insert_handoff', rows[0]);
  return rows[0]!.inserted;
}

export interface RedeemedHandoff {
  /** The platform of the credentials presented (whatever became of the code); null: unknown client id or wrong secret. */
  platformKey: string | null;
  /** Whether that platform is active (null: none matched); an inactive one's code is not consumed. */
  platformActive: boolean | null;
  /** The rest is null unless the code was redeemed. */
  sessionId: string | null;
  sessionExpiresAt: Date | null;
  permissions: Permission[] | null;
  userId: string | null;
  sub: string | null;
  onboarding: OnboardingStatus | null;
  returnTo: string | null;
  /** How the person authenticated (the session's), and what the login asked (its transaction's): null unless redeemed. */
  authTime: Date | null;
  amr: string[] | null;
  acr: string | null;
  maxAgeSeconds: number | null;
  forceLogin: boolean | null;
  secondFactor: boolean | null;
  stepUp: boolean | null;
  /** A support session's actor and access (issue 35), from the session row the redeem reads anyway; null otherwise. */
  act: { sub: string; name: string | null } | null;
  supportAccessId: string | null;
}

/** The text of gw_redeem_handoff, built once: runPrepared compares it with the prepared one on every call. */
const REDEEM_HANDOFF_SQL = `WITH ${STATEMENT_IN_TIME_CTE}, platform AS (
       SELECT id, platform_key, active, handoff_challenge_required FROM platforms WHERE ${PLATFORM_CLIENT_MATCH}
     ), used AS (
       UPDATE handoff_codes h SET consumed_at = now()
         FROM platform p, auth_transactions t
        WHERE h.code_digest = :codeDigest AND h.platform_id = p.id AND p.active
          AND h.consumed_at IS NULL AND h.expires_at > now()
          AND t.id = h.transaction_id AND t.handoff_challenge IS NOT DISTINCT FROM CAST(:handoffChallenge AS text)
          AND (t.handoff_challenge IS NOT NULL OR NOT p.handoff_challenge_required)
          AND (SELECT ok FROM in_time)
       RETURNING h.session_id, h.user_id, h.onboarding, p.id AS platform_id, t.return_to,
                 t.max_age_seconds, t.force_login, t.second_factor_required, t.step_up_sub IS NOT NULL AS step_up
     ), session AS (
       SELECT s.id, s.expires_at, s.permissions, u.sub, s.auth_time, s.amr, s.acr, s.support_actor, s.support_access_id
         FROM gateway_sessions s JOIN used ON s.id = used.session_id JOIN users u ON u.id = s.user_id
        WHERE s.revoked_at IS NULL AND s.expires_at > now() AND u.deleted_at IS NULL
     ), credential AS (
       INSERT INTO platform_credentials (session_id, platform_id, token_digest)
       SELECT session.id, used.platform_id, :credentialDigest FROM session JOIN used ON used.session_id = session.id
     )
     SELECT (SELECT platform_key FROM platform) AS "platformKey", (SELECT active FROM platform) AS "platformActive",
            session.id AS "sessionId", session.expires_at AS "sessionExpiresAt", session.permissions,
            used.user_id AS "userId", session.sub, used.onboarding, used.return_to AS "returnTo",
            session.auth_time AS "authTime", session.amr, session.acr, used.max_age_seconds AS "maxAgeSeconds",
            used.force_login AS "forceLogin", used.second_factor_required AS "secondFactor", used.step_up AS "stepUp",
            session.support_actor AS act, session.support_access_id AS "supportAccessId",
            (SELECT NOT ok FROM in_time) AS late
       FROM (SELECT 1) AS one
       LEFT JOIN used ON true
       LEFT JOIN session ON session.id = used.session_id`;

/**
 * The whole exchange in one round trip (GUIDE §5, §9):
 *  - the platform's credentials are checked against the committed registry row,
 *    so a rotation that has committed refuses the old secret at once;
 *  - the code is consumed only when it belongs to that (active) platform, is
 *    unexpired and unused, and the handoff challenge of its login matches the
 *    verifier sent (both absent, or equal): `UPDATE … WHERE consumed_at IS NULL …
 *    RETURNING`. A verifier for a login without a challenge does not match either,
 *    so an injected code cannot be downgraded past a platform that uses them; and a
 *    platform that requires the challenge (handoff_challenge_required) exchanges no code of a
 *    login without one, also of a login started before the setting was turned on;
 *  - the platform's own credential is stored (its digest) in the same statement,
 *    bound to the session and the platform, only when the session is still live.
 * `platformKey` is the platform the credentials belong to, also when the code is refused (the
 * refusal is counted per platform); null when the client id is unknown or the secret wrong.
 * No rate limit is read or written here: see docs/operations.md#rate-limits for why the
 * exchange has none. The secret comparison is an equality of SHA-256 digests of 256-bit
 * secrets: timing can at most reveal digest bytes, which do not lead back to the secret.
 * Run after its deadline (`in_time`: STATEMENT_DEADLINE) it consumes and stores nothing and
 * throws StatementDeadlinePassed: the exchange's 503 leaves the code for its retry.
 */
export async function redeemHandoff(
  db: Db,
  input: { clientId: string; secretDigest: Buffer; codeDigest: Buffer; handoffChallenge: string | null; credentialDigest: Buffer },
): Promise<RedeemedHandoff> {
  const { rows } = await runPrepared<RedeemedHandoff & { late: boolean }>(
    db,
    'gw_redeem_handoff',
    REDEEM_HANDOFF_SQL,
    { ...input, deadline: STATEMENT_DEADLINE },
  );
  const { late, ...row } = rows[0]!;
  refuseIfLate('gw_redeem_handoff', { late });
  return row;
}

/**
 * What redeemHandoff returned, read back after its connection died before the answer (a failover
 * in the middle of the exchange): the credential digest is of a secret made by that one request,
 * so a row means its statement committed. The same checks as the redeem's (the platform's
 * credentials, the code's platform); null when it did not commit.
 */
export async function findRedeemedHandoff(
  db: Db,
  input: { clientId: string; secretDigest: Buffer; codeDigest: Buffer; credentialDigest: Buffer },
): Promise<RedeemedHandoff | null> {
  const { rows } = await db.raw<{ rows: RedeemedHandoff[] }>(
    `SELECT p.platform_key AS "platformKey", true AS "platformActive", s.id AS "sessionId", s.expires_at AS "sessionExpiresAt", s.permissions,
            h.user_id AS "userId", u.sub, h.onboarding, t.return_to AS "returnTo",
            s.auth_time AS "authTime", s.amr, s.acr, t.max_age_seconds AS "maxAgeSeconds", t.force_login AS "forceLogin",
            t.second_factor_required AS "secondFactor", t.step_up_sub IS NOT NULL AS "stepUp",
            s.support_actor AS act, s.support_access_id AS "supportAccessId"
       FROM platform_credentials c
       JOIN platforms p ON p.id = c.platform_id AND p.id IN (SELECT id FROM platforms WHERE ${PLATFORM_CLIENT_MATCH})
       JOIN handoff_codes h ON h.session_id = c.session_id AND h.platform_id = c.platform_id AND h.code_digest = :codeDigest AND h.consumed_at IS NOT NULL
       JOIN auth_transactions t ON t.id = h.transaction_id
       JOIN gateway_sessions s ON s.id = c.session_id
       JOIN users u ON u.id = s.user_id
      WHERE c.token_digest = :credentialDigest`,
    input,
  );
  return rows[0] ?? null;
}
