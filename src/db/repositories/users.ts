import type { Db } from '../knex.ts';

export interface UserRow {
  id: string;
  sub: string;
  email: string | null;
  displayName: string | null;
}

export async function findUserBySub(db: Db, sub: string): Promise<UserRow | undefined> {
  const { rows } = await db.raw<{ rows: UserRow[] }>(
    `SELECT id, sub, email, display_name AS "displayName" FROM users WHERE sub = ? AND deleted_at IS NULL`,
    [sub],
  );
  return rows[0];
}

/**
 * Just-in-time provisioning: one statement creates the user on first login or
 * refreshes what the identity provider says about them, and creates the empty
 * profile row. Concurrent first logins of one subject both end on the same row.
 */
export async function upsertUserFromIdp(
  db: Db,
  claims: { sub: string; email: string | null; emailVerified: boolean; displayName: string | null; givenName: string | null; familyName: string | null },
): Promise<UserRow> {
  const { rows } = await db.raw<{ rows: UserRow[] }>(
    `WITH upserted AS (
       INSERT INTO users (sub, email, email_verified, display_name, last_login_at)
       VALUES (:sub, :email, :emailVerified, :displayName, now())
       ON CONFLICT (sub) DO UPDATE SET
         email = EXCLUDED.email, email_verified = EXCLUDED.email_verified,
         display_name = COALESCE(EXCLUDED.display_name, users.display_name),
         last_login_at = now(), updated_at = now(), deleted_at = NULL
       RETURNING id, sub, email, display_name
     ), profile AS (
       INSERT INTO profiles (user_id, first_name, last_name)
       SELECT id, :givenName, :familyName FROM upserted
       ON CONFLICT (user_id) DO NOTHING
     )
     SELECT id, sub, email, display_name AS "displayName" FROM upserted`,
    claims,
  );
  return rows[0]!;
}
