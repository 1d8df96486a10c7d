import type { Knex } from 'knex';
import { runPrepared, type Db } from '../../db/knex.ts';
import { limitCountedCte, statementLimitBindings, type StatementRateLimit } from '../rateLimits/repository.ts';

export type OnboardingMode = 'none' | 'platform' | 'central';
export type EventDelivery = 'none' | 'push' | 'poll';
/** Support access to a platform (issue 35): off, the person told, or the person approves first. */
export type SupportAccessMode = 'off' | 'notify' | 'approve';

/** The fields an administrator sets on a platform. */
export interface PlatformSettings {
  platformKey: string;
  displayName: string;
  callbackUrl: string | null;
  /** Where back-channel logout tokens are posted (null: none). */
  backchannelLogoutUrl: string | null;
  /** How Security Event Tokens reach the platform (none, push, poll). */
  eventDelivery: EventDelivery;
  /** Where pushed Security Event Tokens are posted (RFC 8935; null: none). */
  eventReceiverUrl: string | null;
  allowedReturnUrls: string[];
  defaultOnboardingMode: OnboardingMode;
  centralOnboardingEnabled: boolean;
  platformOnboardingPath: string | null;
  metadata: Record<string, unknown>;
  /** Starts without a handoffChallenge are refused (login CSRF through a handoff code). */
  handoffChallengeRequired: boolean;
  /** BCP 47 tag the platform's pages fall back to before English (null: English). */
  defaultLanguage: string | null;
  /** Support access (issue 35): off by default. */
  supportAccess: SupportAccessMode;
  /** Never entered by support access, whatever supportAccess says. */
  sensitive: boolean;
  /** The platform's sign-in route that forwards `supportAccess` to the start (null: none). */
  supportSignInUrl: string | null;
}

/** A registry row as the services see it (never the secret digest). */
export interface PlatformRow extends PlatformSettings {
  id: string;
  clientId: string | null;
  hasCredentials: boolean;
  requirementVersion: number;
  active: boolean;
  createdAt: Date;
  updatedAt: Date;
  /** Branding (src/services/registry/branding.ts): read with the row, so the login path's pages need no query more. */
  brandColor: string | null;
  /** Language tag → the name shown to people in that language; the default is displayName. */
  displayNames: Record<string, string>;
  logoId: string | null;
}

export const PLATFORM_COLUMNS = `
  id, platform_key AS "platformKey", display_name AS "displayName", callback_url AS "callbackUrl",
  backchannel_logout_url AS "backchannelLogoutUrl", event_delivery AS "eventDelivery", event_receiver_url AS "eventReceiverUrl",
  allowed_return_urls AS "allowedReturnUrls", default_onboarding_mode AS "defaultOnboardingMode",
  central_onboarding_enabled AS "centralOnboardingEnabled", platform_onboarding_path AS "platformOnboardingPath",
  metadata, handoff_challenge_required AS "handoffChallengeRequired", default_language AS "defaultLanguage",
  support_access AS "supportAccess", sensitive, support_sign_in_url AS "supportSignInUrl", client_id AS "clientId", (client_secret_digest IS NOT NULL) AS "hasCredentials",
  requirement_version AS "requirementVersion", active, created_at AS "createdAt", updated_at AS "updatedAt",
  brand_color AS "brandColor", display_names AS "displayNames", logo_id AS "logoId"`;

/**
 * The platform whose Basic credentials a request presents, as a condition on `platforms`
 * (bindings `:clientId`, `:secretDigest`): the secret is compared as its SHA-256 digest (a
 * 256-bit secret needs no slow hash, GUIDE §5), against the committed row, so a rotation that
 * has committed refuses the old secret at once. Every statement that authenticates a platform
 * (the exchange's redeem, the event poll's read) selects with it, inside its own round trip;
 * src/services/registry/platformClient.ts turns what it found into the answer.
 */
export const PLATFORM_CLIENT_MATCH = 'client_id = :clientId AND client_secret_digest = :secretDigest';

/**
 * The registry row of a platform as one jsonb value, for statements that read the platform
 * alongside their own work (the callback's consume): `alias` names the platforms row.
 * platformFromJson turns it back into a PlatformRow.
 */
export const platformJson = (alias: string) => `jsonb_build_object(
  'id', ${alias}.id, 'platformKey', ${alias}.platform_key, 'displayName', ${alias}.display_name, 'callbackUrl', ${alias}.callback_url,
  'backchannelLogoutUrl', ${alias}.backchannel_logout_url, 'eventDelivery', ${alias}.event_delivery,
  'eventReceiverUrl', ${alias}.event_receiver_url, 'allowedReturnUrls', ${alias}.allowed_return_urls,
  'defaultOnboardingMode', ${alias}.default_onboarding_mode, 'centralOnboardingEnabled', ${alias}.central_onboarding_enabled,
  'platformOnboardingPath', ${alias}.platform_onboarding_path, 'metadata', ${alias}.metadata,
  'handoffChallengeRequired', ${alias}.handoff_challenge_required, 'defaultLanguage', ${alias}.default_language,
  'supportAccess', ${alias}.support_access, 'sensitive', ${alias}.sensitive, 'supportSignInUrl', ${alias}.support_sign_in_url, 'clientId', ${alias}.client_id,
  'hasCredentials', ${alias}.client_secret_digest IS NOT NULL, 'requirementVersion', ${alias}.requirement_version,
  'active', ${alias}.active, 'createdAt', ${alias}.created_at, 'updatedAt', ${alias}.updated_at,
  'brandColor', ${alias}.brand_color, 'displayNames', ${alias}.display_names, 'logoId', ${alias}.logo_id)`;

export function platformFromJson(json: Omit<PlatformRow, 'createdAt' | 'updatedAt'> & { createdAt: string; updatedAt: string }): PlatformRow {
  return { ...json, createdAt: new Date(json.createdAt), updatedAt: new Date(json.updatedAt) };
}

export async function findPlatformByKey(db: Db, platformKey: string): Promise<PlatformRow | undefined> {
  const { rows } = await db.raw<{ rows: PlatformRow[] }>(`SELECT ${PLATFORM_COLUMNS} FROM platforms WHERE platform_key = ?`, [platformKey]);
  return rows[0];
}

/** The text of gw_active_platform_by_key, built once: runPrepared compares it with the prepared one on every call. */
const ACTIVE_PLATFORM_BY_KEY_SQL = `SELECT ${PLATFORM_COLUMNS} FROM platforms WHERE platform_key = ? AND active`;

export async function findActivePlatformByKey(db: Db, platformKey: string): Promise<PlatformRow | undefined> {
  const { rows } = await runPrepared<PlatformRow>(
    db,
    'gw_active_platform_by_key',
    ACTIVE_PLATFORM_BY_KEY_SQL,
    [platformKey],
  );
  return rows[0];
}

/** The text of gw_active_platform_by_key_counting, built once: runPrepared compares it with the prepared one on every call. */
const ACTIVE_PLATFORM_BY_KEY_COUNTING_SQL = `WITH counted AS (
         ${limitCountedCte({ asynchronousCommit: true })}
       )
       SELECT CASE WHEN counted.points > CAST(:limitPoints AS integer) THEN counted.expire END AS "rateLimitedUntil", platform.*
         FROM counted
         LEFT JOIN (SELECT ${PLATFORM_COLUMNS} FROM platforms WHERE platform_key = :platformKey AND active) AS platform ON true`;

/**
 * The start's read of the platform and its rate-limit count in one statement (one round trip
 * fewer per start, see StatementRateLimit). The count is the rate-limit store's own statement,
 * committed asynchronously as that store's are; the platform is read from the statement's
 * snapshot. The count happens whether or not the platform exists, as it did when it came first.
 */
export async function findActivePlatformByKeyCounting(
  db: Db,
  platformKey: string,
  limit: StatementRateLimit,
): Promise<{ platform: PlatformRow | undefined; rateLimitedUntil: number | null }> {
  const { rows } = await runPrepared<PlatformRow & { rateLimitedUntil: number | null }>(
    db,
    'gw_active_platform_by_key_counting',
    ACTIVE_PLATFORM_BY_KEY_COUNTING_SQL,
    { ...statementLimitBindings(limit), platformKey },
  );
  const { rateLimitedUntil, ...platform } = rows[0]!;
  return { platform: platform.id == null ? undefined : (platform as PlatformRow), rateLimitedUntil };
}

/** The active platform, read FOR SHARE: schema changes (FOR UPDATE) wait for the transaction, or it waits for them. */
export async function lockPlatformForShare(db: Db, platformKey: string): Promise<PlatformRow | undefined> {
  const { rows } = await db.raw<{ rows: PlatformRow[] }>(
    `SELECT ${PLATFORM_COLUMNS} FROM platforms WHERE platform_key = ? AND active FOR SHARE`,
    [platformKey],
  );
  return rows[0];
}

/** The active platforms a user has signed in to (has a membership of), in key order. */
export async function activePlatformsOfMember(db: Db, userId: string): Promise<PlatformRow[]> {
  const { rows } = await db.raw<{ rows: PlatformRow[] }>(
    `SELECT ${PLATFORM_COLUMNS} FROM platforms
      WHERE active AND id IN (SELECT platform_id FROM platform_memberships WHERE user_id = ?)
      ORDER BY platform_key`,
    [userId],
  );
  return rows;
}

export async function findActivePlatformById(db: Db, id: string): Promise<PlatformRow | undefined> {
  const { rows } = await db.raw<{ rows: PlatformRow[] }>(`SELECT ${PLATFORM_COLUMNS} FROM platforms WHERE id = ? AND active`, [id]);
  return rows[0];
}

// ---------------------------------------------------------------- registry administration
// Used by the registry service (API and operator CLI). Writes take a transaction
// so that each change and its audit row commit together.

/** The stored, already validated form of a new platform. */
export interface NewPlatform extends PlatformSettings {
  clientId: string;
  clientSecretDigest: Buffer;
  active: boolean;
}

/** Undefined when a platform with this key already exists (unique on platform_key). */
export async function insertPlatform(db: Db, platform: NewPlatform): Promise<PlatformRow | undefined> {
  const { rows } = await db.raw<{ rows: PlatformRow[] }>(
    `INSERT INTO platforms (platform_key, display_name, callback_url, backchannel_logout_url, event_delivery, event_receiver_url, allowed_return_urls,
                            default_onboarding_mode, central_onboarding_enabled, platform_onboarding_path, metadata,
                            handoff_challenge_required, default_language, support_access, sensitive, support_sign_in_url, client_id, client_secret_digest, active)
     VALUES (:platformKey, :displayName, :callbackUrl, :backchannelLogoutUrl, :eventDelivery, :eventReceiverUrl, CAST(:allowedReturnUrls AS text[]),
             :defaultOnboardingMode, :centralOnboardingEnabled, :platformOnboardingPath, CAST(:metadata AS jsonb),
             :handoffChallengeRequired, :defaultLanguage, :supportAccess, :sensitive, :supportSignInUrl, :clientId, :clientSecretDigest, :active)
     ON CONFLICT (platform_key) DO NOTHING
     RETURNING ${PLATFORM_COLUMNS}`,
    { ...platform, metadata: JSON.stringify(platform.metadata) },
  );
  return rows[0];
}

/** The row locked for the rest of the transaction: a read-merge-write that concurrent writers wait for. */
export async function lockPlatformByKey(db: Db, platformKey: string): Promise<PlatformRow | undefined> {
  const { rows } = await db.raw<{ rows: PlatformRow[] }>(`SELECT ${PLATFORM_COLUMNS} FROM platforms WHERE platform_key = ? FOR UPDATE`, [platformKey]);
  return rows[0];
}

/** The registry properties an update may change (platformKey and clientId never change). */
export interface PlatformChanges {
  displayName?: string;
  callbackUrl?: string | null;
  backchannelLogoutUrl?: string | null;
  eventDelivery?: EventDelivery;
  eventReceiverUrl?: string | null;
  allowedReturnUrls?: string[];
  defaultOnboardingMode?: OnboardingMode;
  centralOnboardingEnabled?: boolean;
  platformOnboardingPath?: string | null;
  metadata?: Record<string, unknown>;
  handoffChallengeRequired?: boolean;
  defaultLanguage?: string | null;
  supportAccess?: SupportAccessMode;
  sensitive?: boolean;
  supportSignInUrl?: string | null;
}

// Fixed column list: the SET clause is built only from these names, never from input.
const CHANGE_COLUMNS: { [K in keyof Required<PlatformChanges>]: string } = {
  displayName: 'display_name',
  callbackUrl: 'callback_url',
  backchannelLogoutUrl: 'backchannel_logout_url',
  eventDelivery: 'event_delivery',
  eventReceiverUrl: 'event_receiver_url',
  allowedReturnUrls: 'allowed_return_urls',
  defaultOnboardingMode: 'default_onboarding_mode',
  centralOnboardingEnabled: 'central_onboarding_enabled',
  platformOnboardingPath: 'platform_onboarding_path',
  metadata: 'metadata',
  handoffChallengeRequired: 'handoff_challenge_required',
  defaultLanguage: 'default_language',
  supportAccess: 'support_access',
  sensitive: 'sensitive',
  supportSignInUrl: 'support_sign_in_url',
};

export async function updatePlatformRow(db: Db, platformKey: string, changes: PlatformChanges): Promise<PlatformRow | undefined> {
  const sets: string[] = [];
  const bindings: Knex.Value[] = [];
  for (const name of Object.keys(CHANGE_COLUMNS) as (keyof PlatformChanges)[]) {
    if (!(name in changes)) continue;
    const value = changes[name];
    if (name === 'metadata') {
      sets.push(`${CHANGE_COLUMNS[name]} = CAST(? AS jsonb)`);
      bindings.push(JSON.stringify(value));
    } else if (name === 'allowedReturnUrls') {
      sets.push(`${CHANGE_COLUMNS[name]} = CAST(? AS text[])`);
      bindings.push(value as string[]);
    } else {
      sets.push(`${CHANGE_COLUMNS[name]} = ?`);
      bindings.push((value ?? null) as Knex.Value);
    }
  }
  if (sets.length === 0) return findPlatformByKey(db, platformKey);
  const { rows } = await db.raw<{ rows: PlatformRow[] }>(
    `UPDATE platforms SET ${sets.join(', ')}, updated_at = now() WHERE platform_key = ? RETURNING ${PLATFORM_COLUMNS}`,
    [...bindings, platformKey],
  );
  return rows[0];
}

/**
 * Sets the active flag. Call it with the row locked (lockPlatformByKey) after the
 * service's checks; the table's platforms_active_is_complete check is the last
 * line of defence for activation.
 */
export async function setPlatformActive(db: Db, platformKey: string, active: boolean): Promise<PlatformRow | undefined> {
  const { rows } = await db.raw<{ rows: PlatformRow[] }>(
    `UPDATE platforms SET active = ?, updated_at = now() WHERE platform_key = ? RETURNING ${PLATFORM_COLUMNS}`,
    [active, platformKey],
  );
  return rows[0];
}

/**
 * Replaces the secret digest (and sets a client id when the platform had none) in
 * one statement. The exchange compares against the committed row, so once the
 * surrounding transaction commits the previous secret is refused.
 */
export async function replacePlatformSecret(
  db: Db,
  platformKey: string,
  input: { newClientId: string; clientSecretDigest: Buffer },
): Promise<{ clientId: string; rotatedAt: Date } | undefined> {
  const { rows } = await db.raw<{ rows: { clientId: string; rotatedAt: Date }[] }>(
    `UPDATE platforms
        SET client_id = COALESCE(client_id, :newClientId), client_secret_digest = :clientSecretDigest,
            credentials_rotated_at = now(), updated_at = now()
      WHERE platform_key = :platformKey
     RETURNING client_id AS "clientId", credentials_rotated_at AS "rotatedAt"`,
    { platformKey, ...input },
  );
  return rows[0];
}

export interface PlatformListQuery {
  active: boolean | null;
  /** Keyset: only keys after this one (the last key of the previous page). */
  afterKey: string | null;
  /** Case-insensitive substring of platform_key or display_name; matched literally (no wildcards). */
  search: string | null;
  limit: number;
}

export async function listPlatformRows(db: Db, query: PlatformListQuery): Promise<PlatformRow[]> {
  const conditions: string[] = [];
  const bindings: Knex.Value[] = [];
  if (query.active !== null) {
    conditions.push('active = ?');
    bindings.push(query.active);
  }
  if (query.search !== null) {
    // strpos, not LIKE: the text is a bound parameter compared as a plain substring, so `%`,
    // `_` and `\` in it are literal and nothing in it reaches the SQL text.
    conditions.push('(strpos(lower(platform_key), lower(?)) > 0 OR strpos(lower(display_name), lower(?)) > 0)');
    bindings.push(query.search, query.search);
  }
  if (query.afterKey !== null) {
    // Same collation as the ORDER BY, so the keyset never skips or repeats a key.
    conditions.push('platform_key COLLATE "C" > ?');
    bindings.push(query.afterKey);
  }
  const where = conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : '';
  const { rows } = await db.raw<{ rows: PlatformRow[] }>(
    `SELECT ${PLATFORM_COLUMNS} FROM platforms ${where} ORDER BY platform_key COLLATE "C" LIMIT ?`,
    [...bindings, query.limit],
  );
  return rows;
}
