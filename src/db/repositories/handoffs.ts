import type { Db } from '../knex.ts';
import type { Permission } from '../../domain/types.ts';
import type { OnboardingStatus } from '../../domain/types.ts';

export interface NewHandoff {
  codeDigest: Buffer;
  transactionId: string;
  platformId: string;
  userId: string;
  sessionId: string;
  onboarding: OnboardingStatus;
  ttlSeconds: number;
}

/** Returns false when the transaction already has a handoff (unique on transaction_id). */
export async function insertHandoff(db: Db, handoff: NewHandoff): Promise<boolean> {
  const { rows } = await db.raw<{ rows: unknown[] }>(
    `INSERT INTO handoff_codes (code_digest, transaction_id, platform_id, user_id, session_id, onboarding, expires_at)
     VALUES (:codeDigest, :transactionId, :platformId, :userId, :sessionId, :onboarding, now() + make_interval(secs => :ttlSeconds))
     ON CONFLICT (transaction_id) DO NOTHING
     RETURNING id`,
    { ...handoff, onboarding: JSON.stringify(handoff.onboarding) },
  );
  return rows.length === 1;
}

export interface RedeemedHandoff {
  credentialsValid: boolean;
  sessionId: string | null;
  sessionExpiresAt: Date | null;
  tokenSealed: string | null;
  permissions: Permission[] | null;
  userId: string | null;
  sub: string | null;
  platformKey: string | null;
  onboarding: OnboardingStatus | null;
  returnTo: string | null;
}

/**
 * The whole exchange in one round trip (GUIDE §5, §9):
 *  - the platform's credentials are checked against the committed registry row,
 *    so a rotation that has committed refuses the old secret at once;
 *  - the code is consumed only when it belongs to that (active) platform, is
 *    unexpired and unused: `UPDATE … WHERE consumed_at IS NULL … RETURNING`;
 *  - the sealed gatewayToken is read and erased from the session in the same
 *    statement (data-modifying CTEs see the snapshot taken before they ran).
 * `credentialsValid` is false when the client id is unknown or the secret wrong.
 * The secret comparison is an equality of SHA-256 digests of 256-bit secrets:
 * timing can at most reveal digest bytes, which do not lead back to the secret.
 */
export async function redeemHandoff(db: Db, input: { clientId: string; secretDigest: Buffer; codeDigest: Buffer }): Promise<RedeemedHandoff> {
  const { rows } = await db.raw<{ rows: RedeemedHandoff[] }>(
    `WITH platform AS (
       SELECT id, platform_key, active FROM platforms
        WHERE client_id = :clientId AND client_secret_digest = :secretDigest
     ), used AS (
       UPDATE handoff_codes h SET consumed_at = now()
         FROM platform p
        WHERE h.code_digest = :codeDigest AND h.platform_id = p.id AND p.active
          AND h.consumed_at IS NULL AND h.expires_at > now()
       RETURNING h.session_id, h.user_id, h.transaction_id, h.onboarding, p.platform_key
     ), session AS (
       SELECT s.id, s.expires_at, s.token_sealed, s.permissions
         FROM gateway_sessions s JOIN used ON s.id = used.session_id
        WHERE s.revoked_at IS NULL AND s.expires_at > now()
     ), erased AS (
       UPDATE gateway_sessions s SET token_sealed = NULL FROM used WHERE s.id = used.session_id
     )
     SELECT EXISTS (SELECT 1 FROM platform) AS "credentialsValid",
            session.id AS "sessionId", session.expires_at AS "sessionExpiresAt",
            session.token_sealed AS "tokenSealed", session.permissions,
            used.user_id AS "userId", u.sub, used.platform_key AS "platformKey",
            used.onboarding, t.return_to AS "returnTo"
       FROM (SELECT 1) AS one
       LEFT JOIN used ON true
       LEFT JOIN session ON session.id = used.session_id
       LEFT JOIN users u ON u.id = used.user_id
       LEFT JOIN auth_transactions t ON t.id = used.transaction_id`,
    input,
  );
  return rows[0]!;
}
