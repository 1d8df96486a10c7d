import { randomUUID } from 'node:crypto';
import type { Db } from '../db/knex.ts';
import type { KeyRing } from '../security/crypto.ts';
import type { Permission } from '../domain/types.ts';
import { randomToken, sha256 } from '../security/crypto.ts';
import { insertSession } from '../db/repositories/sessions.ts';

/** AES-GCM additional data: the sealed token only opens for its own session row. */
export const sessionTokenAad = (sessionId: string) => `gateway_sessions:token:${sessionId}`;

export interface CreatedSession {
  id: string;
  token: string;
  expiresAt: Date;
}

/**
 * A gateway session: the token is stored as a digest (looked up by the cookie)
 * and, until the handoff is exchanged, sealed so the exchange can return it.
 */
export async function createSession(
  db: Db,
  keyRing: KeyRing,
  input: { userId: string; permissions: Permission[]; ttlSeconds: number },
): Promise<CreatedSession> {
  const id = randomUUID();
  const token = randomToken(32);
  const { expiresAt } = await insertSession(db, {
    id,
    userId: input.userId,
    tokenDigest: sha256(token),
    tokenSealed: keyRing.seal(token, sessionTokenAad(id)),
    permissions: input.permissions,
    ttlSeconds: input.ttlSeconds,
  });
  return { id, token, expiresAt };
}
