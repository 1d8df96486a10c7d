import { runPrepared, type Db } from '../../db/knex.ts';

export interface UserRow {
  id: string;
  sub: string;
  email: string | null;
  displayName: string | null;
  /** Set when the account was deleted (DELETE /v1/account/me). */
  deletedAt: Date | null;
}

const USER_COLUMNS = `id, sub, email, display_name AS "displayName", deleted_at AS "deletedAt"`;

/** The user of a subject, deleted or not (a deleted account must be recognised, not re-created). */
export async function findUserBySub(db: Db, sub: string): Promise<UserRow | undefined> {
  const { rows } = await db.raw<{ rows: UserRow[] }>(`SELECT ${USER_COLUMNS} FROM users WHERE sub = ?`, [sub]);
  return rows[0];
}

export interface IdpClaims {
  sub: string;
  email: string | null;
  emailVerified: boolean;
  displayName: string | null;
  givenName: string | null;
  familyName: string | null;
}

/**
 * Just-in-time provisioning, in one statement. A new user gets a profile prefilled from the
 * ID token's standard claims (`given_name`, `family_name`, `name`); a returning user's
 * e-mail is refreshed and nothing else, so what the person changed in their profile is never
 * overwritten. A deleted account is left alone and answered with `deletedAt` set: the caller
 * refuses the login instead of quietly re-creating the user. Concurrent first logins of one
 * subject both end on the same row.
 */
export async function upsertUserFromIdp(db: Db, claims: IdpClaims): Promise<UserRow> {
  const { rows } = await db.raw<{ rows: UserRow[] }>(
    `WITH ${upsertUserCtes('VALUES (:sub, :email, :emailVerified, :displayName, now())')}
     SELECT ${USER_COLUMNS} FROM upserted
     UNION ALL
     SELECT ${USER_COLUMNS} FROM users WHERE sub = :sub AND deleted_at IS NOT NULL AND NOT EXISTS (SELECT 1 FROM upserted)`,
    claimBindings(claims),
  );
  return rows[0]!;
}

/**
 * The user and, for a new one, the profile prefilled from the claims: the CTEs `upserted`
 * (no row for a deleted account, which is left alone) and `profile`. `source` gives the row
 * to insert (:sub, :email, :emailVerified, :displayName, and last_login_at).
 */
function upsertUserCtes(source: string): string {
  return `upserted AS (
       INSERT INTO users (sub, email, email_verified, display_name, last_login_at)
       ${source}
       ON CONFLICT (sub) DO UPDATE SET
         email = EXCLUDED.email, email_verified = EXCLUDED.email_verified, last_login_at = now(), updated_at = now()
         WHERE users.deleted_at IS NULL
       RETURNING id, sub, email, display_name, deleted_at, (xmax = 0) AS inserted
     ), profile AS (
       INSERT INTO profiles (user_id, first_name, last_name, display_name)
       SELECT id, :givenName, :familyName, :displayName FROM upserted WHERE inserted
       ON CONFLICT (user_id) DO NOTHING
     )`;
}

function claimBindings(claims: IdpClaims) {
  return {
    ...claims,
    givenName: truncate(claims.givenName, 100),
    familyName: truncate(claims.familyName, 100),
    displayName: truncate(claims.displayName, 200),
  };
}

export interface LoginUserRow extends UserRow {
  /** The requirement version the user completed on the platform (membership), null when none or deleted. */
  completedRequirementVersion: number | null;
}

/** The text of gw_upsert_login_user, built once: runPrepared compares it with the prepared one on every call. */
const UPSERT_LOGIN_USER_SQL = `WITH ${upsertUserCtes(`SELECT :sub, :email, :emailVerified, :displayName, now()
           FROM (SELECT set_config('synchronous_commit', 'off', true)) AS asynchronous_commit`)}, membership AS (
         INSERT INTO platform_memberships (user_id, platform_id) SELECT id, :platformId FROM upserted
         ON CONFLICT (user_id, platform_id) DO UPDATE SET updated_at = now(), last_signed_in_at = now()
         RETURNING completed_requirement_version
       )
       SELECT ${USER_COLUMNS}, (SELECT completed_requirement_version FROM membership) AS "completedRequirementVersion" FROM upserted
       UNION ALL
       SELECT ${USER_COLUMNS}, NULL FROM users WHERE sub = :sub AND deleted_at IS NOT NULL AND NOT EXISTS (SELECT 1 FROM upserted)`;

/**
 * The callback's provisioning in one statement: upsertUserFromIdp (the same rules: a new
 * user's profile prefilled, a returning user's e-mail refreshed, a deleted account answered
 * with `deletedAt` and left alone) and the platform membership created on first use, which
 * bootstrapMembership does elsewhere; the membership's `last_signed_in_at` (apps with my data,
 * issue 26) is set by the same row write. A deleted account gets no membership: every write
 * selects from the upserted row, which a deleted account does not have.
 *
 * Committed with synchronous_commit off (for this statement's own transaction only): the
 * callback's next write, the session with its handoff code, commits synchronously, and
 * flushing its WAL flushes this statement's, which comes before it. Only a crash between
 * the two can lose this one, and then the login failed anyway and the person signs in
 * again; idempotent upserts are all it wrote.
 */
export async function upsertLoginUser(db: Db, claims: IdpClaims, platformId: string): Promise<LoginUserRow> {
  const { rows } = await runPrepared<LoginUserRow>(
    db,
    'gw_upsert_login_user',
    UPSERT_LOGIN_USER_SQL,
    { ...claimBindings(claims), platformId },
  );
  return rows[0]!;
}

/** Profile names are bounded (the contract's PersonName and ProfileDisplayName); a provider's longer claim is cut, never refused. */
function truncate(value: string | null, max: number): string | null {
  if (value === null) return null;
  const trimmed = [...value.trim()].slice(0, max).join('');
  return trimmed === '' ? null : trimmed;
}

/**
 * Marks an account deleted and expires its pending handoff codes (its sessions are ended by
 * the caller, in the same transaction). False when the account was already deleted.
 */
export async function markUserDeleted(db: Db, userId: string): Promise<boolean> {
  const { rows } = await db.raw<{ rows: { deleted: boolean }[] }>(
    `WITH deleted AS (
       UPDATE users SET deleted_at = now(), updated_at = now() WHERE id = :userId AND deleted_at IS NULL RETURNING id
     ), handoffs AS (
       UPDATE handoff_codes SET expires_at = now() WHERE user_id IN (SELECT id FROM deleted) AND consumed_at IS NULL AND expires_at > now()
     )
     SELECT EXISTS (SELECT 1 FROM deleted) AS deleted`,
    { userId },
  );
  return rows[0]!.deleted;
}

export async function markIdpDeactivated(db: Db, userId: string): Promise<void> {
  await db.raw('UPDATE users SET idp_deactivated_at = now() WHERE id = ? AND idp_deactivated_at IS NULL', [userId]);
}

/** Deleted accounts whose identity-provider deactivation has not succeeded yet (retried by the purge). */
export async function usersAwaitingIdpDeactivation(db: Db, limit: number): Promise<Pick<UserRow, 'id' | 'sub'>[]> {
  const { rows } = await db.raw<{ rows: Pick<UserRow, 'id' | 'sub'>[] }>(
    `SELECT id, sub FROM users WHERE deleted_at IS NOT NULL AND idp_deactivated_at IS NULL AND purged_at IS NULL ORDER BY deleted_at LIMIT ?`,
    [limit],
  );
  return rows;
}

/** Deleted accounts past the retention period, not yet purged. */
export async function usersDueForPurge(db: Db, retentionDays: number, limit: number): Promise<Pick<UserRow, 'id' | 'sub'>[]> {
  const { rows } = await db.raw<{ rows: Pick<UserRow, 'id' | 'sub'>[] }>(
    `SELECT id, sub FROM users
      WHERE deleted_at IS NOT NULL AND purged_at IS NULL AND deleted_at < now() - make_interval(days => :retentionDays)
      ORDER BY deleted_at LIMIT :limit`,
    { retentionDays, limit },
  );
  return rows;
}

/** The digest of the deletion receipt handed to the browser that deleted the account (getAccountDeletion). */
export async function setDeletionReceipt(db: Db, userId: string, digest: Buffer): Promise<void> {
  await db.raw(`UPDATE users SET deletion_receipt_digest = ? WHERE id = ?`, [digest, userId]);
}

/** Locks a deleted, not yet purged user for the purge's transaction; false when there is none (purged meanwhile). */
export async function lockUserForPurge(db: Db, userId: string): Promise<boolean> {
  const { rows } = await db.raw<{ rows: unknown[] }>(`SELECT 1 FROM users WHERE id = ? AND deleted_at IS NOT NULL AND purged_at IS NULL FOR UPDATE`, [userId]);
  return rows.length > 0;
}

/**
 * Removes a deleted user's personal data: profile, onboarding values, memberships, the
 * agreement record, and what the user row itself says about them. The row stays as a
 * tombstone of the subject.
 *
 * The agreement record is append-only while the account exists (its trigger refuses deletion
 * until `deleted_at` is set); at the end of the retention it goes with the rest of the
 * person's data: a platform that must keep proof of an acceptance keeps its own copy (it reads
 * the record with its credential, and hears of the deletion when it is scheduled).
 */
export async function purgeUserData(db: Db, userId: string): Promise<void> {
  await db.raw(
    `WITH profile AS (DELETE FROM profiles WHERE user_id = :userId),
          onboarding_values AS (DELETE FROM onboarding_values WHERE user_id = :userId),
          memberships AS (DELETE FROM platform_memberships WHERE user_id = :userId),
          agreements AS (DELETE FROM agreement_records WHERE user_id = :userId),
          -- Support access about the person (issue 35): the operator's free-text reason may
          -- describe them; who, where and when stay (the row is also the proof of what support did).
          support AS (UPDATE support_access SET reason = '(erased with the account)' WHERE user_id = :userId)
     UPDATE users SET email = NULL, email_verified = false, display_name = NULL, deletion_receipt_digest = NULL, purged_at = now(), updated_at = now()
      WHERE id = :userId AND deleted_at IS NOT NULL`,
    { userId },
  );
}
