import type { Db } from '../knex.ts';
import type { OnboardingMode } from './platforms.ts';

export interface NewTransaction {
  id: string;
  platformId: string;
  stateDigest: Buffer;
  nonceDigest: Buffer;
  pkceVerifierSealed: string;
  nonceSealed: string;
  onboardingMode: OnboardingMode;
  platformCallbackUrl: string;
  returnTo: string;
  browserBindingDigest: Buffer;
  handoffChallenge: string | null;
  ttlSeconds: number;
}

export async function insertTransaction(db: Db, tx: NewTransaction): Promise<void> {
  await db.raw(
    `INSERT INTO auth_transactions
       (id, platform_id, state_digest, nonce_digest, pkce_verifier_sealed, nonce_sealed,
        onboarding_mode, platform_callback_url, return_to, browser_binding_digest, handoff_challenge, expires_at)
     VALUES (:id, :platformId, :stateDigest, :nonceDigest, :pkceVerifierSealed, :nonceSealed,
        :onboardingMode, :platformCallbackUrl, :returnTo, :browserBindingDigest, :handoffChallenge,
        now() + make_interval(secs => :ttlSeconds))`,
    { ...tx },
  );
}

export interface ConsumedTransaction {
  id: string;
  platformId: string;
  platformKey: string;
  nonceDigest: Buffer;
  pkceVerifierSealed: string;
  nonceSealed: string;
  onboardingMode: OnboardingMode;
  returnTo: string;
  /** Null only for transactions started before browser binding existed: the callback refuses them. */
  browserBindingDigest: Buffer | null;
  handoffChallenge: string | null;
}

/**
 * Single use in one statement: the row is marked consumed and its sealed secrets
 * erased, and the sealed values are returned from the row as it was. Under
 * concurrency the FOR UPDATE re-check lets exactly one caller through.
 */
export async function consumeTransactionByState(db: Db, stateDigest: Buffer): Promise<ConsumedTransaction | undefined> {
  const { rows } = await db.raw<{ rows: ConsumedTransaction[] }>(
    `UPDATE auth_transactions t
        SET consumed_at = now(), pkce_verifier_sealed = NULL, nonce_sealed = NULL
       FROM (SELECT id, pkce_verifier_sealed, nonce_sealed FROM auth_transactions
              WHERE state_digest = ? AND consumed_at IS NULL AND expires_at > now()
              FOR UPDATE) AS before, platforms p
      WHERE t.id = before.id AND t.consumed_at IS NULL AND p.id = t.platform_id
      RETURNING t.id, t.platform_id AS "platformId", p.platform_key AS "platformKey", t.nonce_digest AS "nonceDigest",
                before.pkce_verifier_sealed AS "pkceVerifierSealed", before.nonce_sealed AS "nonceSealed",
                t.onboarding_mode AS "onboardingMode", t.return_to AS "returnTo",
                t.browser_binding_digest AS "browserBindingDigest", t.handoff_challenge AS "handoffChallenge"`,
    [stateDigest],
  );
  return rows[0];
}

export async function attachLogin(db: Db, transactionId: string, userId: string, sessionId: string): Promise<void> {
  await db.raw('UPDATE auth_transactions SET user_id = ?, session_id = ? WHERE id = ?', [userId, sessionId, transactionId]);
}

export interface ResumableTransaction {
  id: string;
  platformId: string;
  platformKey: string;
  sessionId: string;
  onboardingMode: OnboardingMode;
  returnTo: string;
  handoffChallenge: string | null;
  /** False once AUTH_RESUME_TTL_SECONDS have passed since the callback, or once its session has ended. */
  resumable: boolean;
}

/**
 * A consumed transaction of this user, for resume after central onboarding. It is
 * returned even when it may no longer be resumed, so the refusal can offer a fresh start.
 */
export async function findConsumedTransactionOfUser(
  db: Db,
  input: { transactionId: string; userId: string; resumeTtlSeconds: number },
): Promise<ResumableTransaction | undefined> {
  const { rows } = await db.raw<{ rows: ResumableTransaction[] }>(
    `SELECT t.id, t.platform_id AS "platformId", p.platform_key AS "platformKey", t.session_id AS "sessionId",
            t.onboarding_mode AS "onboardingMode", t.return_to AS "returnTo", t.handoff_challenge AS "handoffChallenge",
            (t.consumed_at > now() - make_interval(secs => :resumeTtlSeconds)
             AND s.revoked_at IS NULL AND s.expires_at > now()) AS resumable
       FROM auth_transactions t
       JOIN platforms p ON p.id = t.platform_id
       JOIN gateway_sessions s ON s.id = t.session_id
      WHERE t.id = :transactionId AND t.user_id = :userId AND t.consumed_at IS NOT NULL`,
    input,
  );
  return rows[0];
}
