import type { Db } from '../knex.ts';
import type { Permission } from '../../domain/types.ts';

export interface SessionPrincipalRow {
  id: string;
  userId: string;
  sub: string;
  permissions: Permission[];
  createdAt: Date;
  expiresAt: Date;
}

/** The session behind a browser session cookie, with its user; revoked sessions and deleted users never match. */
export async function findSessionByTokenDigest(db: Db, tokenDigest: Buffer): Promise<SessionPrincipalRow | undefined> {
  const { rows } = await db.raw<{ rows: SessionPrincipalRow[] }>(
    `SELECT s.id, s.user_id AS "userId", u.sub, s.permissions, s.created_at AS "createdAt", s.expires_at AS "expiresAt"
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
            p.id AS "platformId", p.platform_key AS "platformKey"
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
}

export async function insertSession(db: Db, session: NewSession): Promise<{ expiresAt: Date }> {
  const { rows } = await db.raw<{ rows: { expiresAt: Date }[] }>(
    `INSERT INTO gateway_sessions (id, user_id, token_digest, permissions, expires_at)
     VALUES (:id, :userId, :tokenDigest, :permissions, now() + make_interval(secs => :ttlSeconds))
     RETURNING expires_at AS "expiresAt"`,
    { ...session },
  );
  return rows[0]!;
}
