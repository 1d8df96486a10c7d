// Bulk test data for POST /v1/auth/exchange. Handoff codes are single use, so
// every request of a run needs its own consumed transaction, gateway session and
// handoff code. They are written here in three INSERT … SELECT FROM unnest(…)
// statements in one transaction, shaped exactly like the rows the callback
// writes: only digests of the session token and the code stored.

import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { randomToken, s256Challenge, sha256 } from '../../src/security/crypto.ts';
import { HANDOFF_PREFIX } from '../../src/services/login/handoff.ts';

export interface HandoffBatch {
  codes: string[];
  /** The gateway session each code's exchange must describe (same index). */
  sessionIds: string[];
}

export interface SeedTarget {
  /** The handoff verifier every seeded login's challenge is made from (the exchange rounds send it). */
  handoffVerifier: string;
  platformId: string;
  userId: string;
  callbackUrl: string;
  returnTo: string;
  handoffTtlSeconds: number;
}

const ONBOARDING_COMPLETE = JSON.stringify({ status: 'COMPLETE', requirementVersion: 1, missingFields: [], canCompleteCentrally: true });

export async function seedHandoffs(client: pg.Client, target: SeedTarget, count: number): Promise<HandoffBatch> {
  const codes: string[] = new Array(count);
  const sessionIds: string[] = new Array(count);
  const transactionIds: string[] = new Array(count);
  const tokenDigests: string[] = new Array(count);
  const codeDigests: string[] = new Array(count);
  for (let i = 0; i < count; i++) {
    const sessionId = randomUUID();
    const token = randomToken(32);
    const code = `${HANDOFF_PREFIX}${randomToken(32)}`;
    codes[i] = code;
    sessionIds[i] = sessionId;
    transactionIds[i] = randomUUID();
    tokenDigests[i] = sha256(token).toString('hex');
    codeDigests[i] = sha256(code).toString('hex');
  }
  await client.query('BEGIN');
  try {
    await client.query(
      `INSERT INTO gateway_sessions (id, user_id, token_digest, permissions, expires_at)
       SELECT s.id, $1, decode(s.digest, 'hex'), '{}', now() + interval '8 hours'
         FROM unnest($2::uuid[], $3::text[]) AS s(id, digest)`,
      [target.userId, sessionIds, tokenDigests],
    );
    // Consumed transactions (as after the callback): secrets erased, user and session attached.
    await client.query(
      `INSERT INTO auth_transactions (id, platform_id, state_digest, nonce_digest, onboarding_mode, platform_callback_url,
                                      return_to, user_id, session_id, expires_at, consumed_at, handoff_challenge)
       SELECT t.id, $1, sha256(convert_to(t.id::text || ':state', 'UTF8')), sha256(convert_to(t.id::text || ':nonce', 'UTF8')),
              'none', $2, $3, $4, t.session_id, now() + interval '10 minutes', now(), $7
         FROM unnest($5::uuid[], $6::uuid[]) AS t(id, session_id)`,
      [target.platformId, target.callbackUrl, target.returnTo, target.userId, transactionIds, sessionIds, s256Challenge(target.handoffVerifier)],
    );
    await client.query(
      `INSERT INTO handoff_codes (code_digest, transaction_id, platform_id, user_id, session_id, onboarding, expires_at)
       SELECT decode(h.digest, 'hex'), h.transaction_id, $1, $2, h.session_id, $3::jsonb, now() + make_interval(secs => $4)
         FROM unnest($5::text[], $6::uuid[], $7::uuid[]) AS h(digest, transaction_id, session_id)`,
      [target.platformId, target.userId, ONBOARDING_COMPLETE, target.handoffTtlSeconds, codeDigests, transactionIds, sessionIds],
    );
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  }
  return { codes, sessionIds };
}
