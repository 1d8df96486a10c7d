import type { Db } from '../knex.ts';
import type { Permission } from '../../domain/types.ts';

export interface SessionPrincipalRow {
  id: string;
  userId: string;
  sub: string;
  permissions: Permission[];
  expiresAt: Date;
}

/** The session behind a gateway cookie, with its user; revoked sessions and deleted users never match. */
export async function findSessionByTokenDigest(db: Db, tokenDigest: Buffer): Promise<SessionPrincipalRow | undefined> {
  const { rows } = await db.raw<{ rows: SessionPrincipalRow[] }>(
    `SELECT s.id, s.user_id AS "userId", u.sub, s.permissions, s.expires_at AS "expiresAt"
       FROM gateway_sessions s JOIN users u ON u.id = s.user_id
      WHERE s.token_digest = ? AND s.revoked_at IS NULL AND u.deleted_at IS NULL`,
    [tokenDigest],
  );
  return rows[0];
}

export interface NewSession {
  id: string;
  userId: string;
  tokenDigest: Buffer;
  /** The token sealed for the pending handoff; erased by the exchange. */
  tokenSealed: string;
  permissions: Permission[];
  ttlSeconds: number;
}

export async function insertSession(db: Db, session: NewSession): Promise<{ expiresAt: Date }> {
  const { rows } = await db.raw<{ rows: { expiresAt: Date }[] }>(
    `INSERT INTO gateway_sessions (id, user_id, token_digest, token_sealed, permissions, expires_at)
     VALUES (:id, :userId, :tokenDigest, :tokenSealed, :permissions, now() + make_interval(secs => :ttlSeconds))
     RETURNING expires_at AS "expiresAt"`,
    { ...session },
  );
  return rows[0]!;
}
