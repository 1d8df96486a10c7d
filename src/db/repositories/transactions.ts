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
  ttlSeconds: number;
}

export async function insertTransaction(db: Db, tx: NewTransaction): Promise<void> {
  await db.raw(
    `INSERT INTO auth_transactions
       (id, platform_id, state_digest, nonce_digest, pkce_verifier_sealed, nonce_sealed,
        onboarding_mode, platform_callback_url, return_to, expires_at)
     VALUES (:id, :platformId, :stateDigest, :nonceDigest, :pkceVerifierSealed, :nonceSealed,
        :onboardingMode, :platformCallbackUrl, :returnTo, now() + make_interval(secs => :ttlSeconds))`,
    { ...tx },
  );
}

export interface ConsumedTransaction {
  id: string;
  platformId: string;
  nonceDigest: Buffer;
  pkceVerifierSealed: string;
  nonceSealed: string;
  onboardingMode: OnboardingMode;
  returnTo: string;
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
              FOR UPDATE) AS before
      WHERE t.id = before.id AND t.consumed_at IS NULL
      RETURNING t.id, t.platform_id AS "platformId", t.nonce_digest AS "nonceDigest",
                before.pkce_verifier_sealed AS "pkceVerifierSealed", before.nonce_sealed AS "nonceSealed",
                t.onboarding_mode AS "onboardingMode", t.return_to AS "returnTo"`,
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
  sessionId: string;
  onboardingMode: OnboardingMode;
}

/** A consumed transaction of this user, for resume after central onboarding. */
export async function findConsumedTransactionOfUser(db: Db, transactionId: string, userId: string): Promise<ResumableTransaction | undefined> {
  const { rows } = await db.raw<{ rows: ResumableTransaction[] }>(
    `SELECT id, platform_id AS "platformId", session_id AS "sessionId", onboarding_mode AS "onboardingMode"
       FROM auth_transactions
      WHERE id = ? AND user_id = ? AND consumed_at IS NOT NULL AND session_id IS NOT NULL`,
    [transactionId, userId],
  );
  return rows[0];
}
