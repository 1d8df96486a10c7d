import { randomUUID } from 'node:crypto';
import type { Db } from '../db/knex.ts';
import type { Permission } from '../domain/types.ts';
import { randomToken, sha256 } from '../security/crypto.ts';
import { insertSession } from '../db/repositories/sessions.ts';

/**
 * The two kinds of token the gateway cookie can carry, told apart by their prefix so
 * that one lookup in one table resolves either: the browser session token set by the
 * callback, and a platform's own credential returned by the exchange.
 */
export const SESSION_TOKEN_PREFIX = 'gws_';
export const PLATFORM_CREDENTIAL_PREFIX = 'gwp_';

export interface CreatedSession {
  id: string;
  token: string;
  expiresAt: Date;
}

/** A gateway session: only the digest of its browser token is stored (looked up by the cookie). */
export async function createSession(db: Db, input: { userId: string; permissions: Permission[]; ttlSeconds: number }): Promise<CreatedSession> {
  const id = randomUUID();
  const token = `${SESSION_TOKEN_PREFIX}${randomToken(32)}`;
  const { expiresAt } = await insertSession(db, { id, userId: input.userId, tokenDigest: sha256(token), permissions: input.permissions, ttlSeconds: input.ttlSeconds });
  return { id, token, expiresAt };
}

/** A platform's own credential: 256 random bits; only its digest is stored (by the exchange). */
export function newPlatformCredential(): string {
  return `${PLATFORM_CREDENTIAL_PREFIX}${randomToken(32)}`;
}
