import { randomBytes } from 'node:crypto';
import type { components } from '../../../generated/gateway.ts';
import type { Db } from '../../db/knex.ts';
import {
  findPlatformByKey,
  insertPlatform,
  listPlatformRows,
  lockPlatformByKey,
  replacePlatformSecret,
  setPlatformActive,
  updatePlatformRow,
  type PlatformChanges,
  type PlatformRow,
} from './platformsRepository.ts';
import { ApiError, validationError, type FieldError } from '../../errors/catalogue.ts';
import { randomToken, sha256 } from '../../security/crypto.ts';
import { recordAuditEvent, type Actor } from '../audit/audit.ts';
import { decodeCursor, encodeCursor, pageSize } from '../../db/cursor.ts';
import { checkCentral, checkComplete, checkEventReceiver, DEFAULT_RULES, PLATFORM_KEY_PATTERN, refuseInsecureUrls, type RegistryRules } from './rules.ts';
import { CREATE_FIELDS, UPDATE_FIELDS, validateCreate, validateUpdate } from './validate.ts';
import { endSupportAccessOfPlatform } from '../supportAccess/platformEnds.ts';

// The registry's service functions (reads, writes, representation), shared by the
// admin API and the operator CLI (see index.ts).

export type { Actor } from '../audit/audit.ts';
export { CLI_ACTOR } from '../audit/audit.ts';

export type PlatformView = components['schemas']['Platform'];
export type PlatformList = components['schemas']['PlatformList'];
export type PlatformCreateInput = components['schemas']['PlatformCreateRequest'];
export type PlatformUpdateInput = components['schemas']['PlatformUpdateRequest'];
export type PlatformCredentialsView = components['schemas']['PlatformCredentials'];

/** Client ids are public identifiers (Basic user names), not secrets: 128 random bits are plenty. */
export const CLIENT_ID_PREFIX = 'pc_';
/** The prefix lets secret scanners recognise a leaked platform secret. */
export const CLIENT_SECRET_PREFIX = 'pcs_';

const newClientId = () => `${CLIENT_ID_PREFIX}${randomBytes(16).toString('base64url')}`;
/** 256 random bits (GUIDE §5); only its SHA-256 digest is stored. */
const newClientSecret = () => `${CLIENT_SECRET_PREFIX}${randomToken(32)}`;

// ---------------------------------------------------------------- reads

export async function getPlatform(db: Db, platformKey: string): Promise<PlatformView> {
  const row = PLATFORM_KEY_PATTERN.test(platformKey) ? await findPlatformByKey(db, platformKey) : undefined;
  if (!row) throw platformNotFound(platformKey);
  return toPlatformView(row);
}

export interface PlatformListQuery {
  active?: boolean | undefined;
  limit?: number | undefined;
  cursor?: string | undefined;
  /** Case-insensitive substring of platformKey or displayName (1..100 characters), matched literally. */
  search?: string | undefined;
}

export const SEARCH_MAX_LENGTH = 100;

/**
 * Ordered by platformKey (byte order); keyset cursor on the last key of the page. With
 * `search`, only matching platforms, paged by the same keyset (the cursor holds only the key).
 */
export async function listPlatforms(db: Db, query: PlatformListQuery = {}): Promise<PlatformList> {
  const limit = pageSize(query.limit);
  const afterKey =
    query.cursor === undefined
      ? null
      : decodeCursor(query.cursor, (value) => (typeof value.k === 'string' && PLATFORM_KEY_PATTERN.test(value.k) ? value.k : null));
  const search = query.search ?? null;
  // The contract checks the length for the API; the CLI comes here directly (code points, as JSON Schema counts).
  if (search !== null && (search.length === 0 || [...search].length > SEARCH_MAX_LENGTH)) {
    throw validationError([{ pointer: '/query/search', message: `must be 1 to ${SEARCH_MAX_LENGTH} characters` }]);
  }
  // PostgreSQL text never holds NUL, so no key or name contains it (and the driver would refuse it).
  const rows = search?.includes('\u0000') ? [] : await listPlatformRows(db, { active: query.active ?? null, afterKey, search, limit: limit + 1 });
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    items: page.map(toPlatformView),
    nextCursor: rows.length > limit && last ? encodeCursor({ k: last.platformKey }) : null,
  };
}

// ---------------------------------------------------------------- writes (each with its audit row, in one transaction)

/**
 * Registers a platform with fresh credentials. The secret is returned here and
 * never again; only its digest is stored. A duplicate key is 409 CONFLICT.
 */
export async function createPlatform(
  db: Db,
  input: PlatformCreateInput,
  actor: Actor,
  rules: RegistryRules = DEFAULT_RULES,
): Promise<{ platform: PlatformView; clientSecret: string }> {
  const value = validateCreate(input, rules);
  const clientSecret = newClientSecret();
  const row = await db.transaction(async (trx) => {
    const inserted = await insertPlatform(trx, { ...value, clientId: newClientId(), clientSecretDigest: sha256(clientSecret) });
    if (!inserted) throw new ApiError('CONFLICT', `A platform with the key ${value.platformKey} already exists.`);
    const sent = CREATE_FIELDS.filter((field) => field !== 'platformKey' && (input as Record<string, unknown>)[field] !== undefined);
    await recordAuditEvent(trx, { action: 'platform.create', platformKey: value.platformKey, changedFields: ['platformKey', ...sent, 'clientId', 'clientSecret'] }, actor);
    return inserted;
  });
  return { platform: toPlatformView(row), clientSecret };
}

/**
 * Partial update with merge semantics: a present property replaces the stored
 * value, `null` clears a nullable one, absent properties stay. The merged record
 * must still satisfy the registry rules. Only properties whose value actually
 * changes are written and audited; a patch that changes nothing writes nothing.
 */
export async function updatePlatform(
  db: Db,
  platformKey: string,
  patch: PlatformUpdateInput,
  actor: Actor,
  rules: RegistryRules = DEFAULT_RULES,
): Promise<PlatformView> {
  const changes = validateUpdate(patch, rules);
  const row = await db.transaction(async (trx) => {
    const current = await lockPlatform(trx, platformKey);
    const merged = { ...current, ...changes };
    const errors: FieldError[] = [];
    checkComplete(merged, errors, current.active ? 'while the platform is active (deactivate it first)' : null);
    checkCentral(merged, errors, 'centralOnboardingEnabled' in changes ? 'centralOnboardingEnabled' : 'defaultOnboardingMode');
    checkEventReceiver(merged, errors, 'eventDelivery' in changes ? 'eventDelivery' : 'eventReceiverUrl');
    if (errors.length > 0) throw validationError(errors);

    const changed = UPDATE_FIELDS.filter((field) => field in changes && !sameValue(current[field], merged[field]));
    if (changed.length === 0) return current;
    const effective: PlatformChanges = {};
    for (const field of changed) Object.assign(effective, { [field]: changes[field] });
    const updated = await updatePlatformRow(trx, platformKey, effective);
    await recordAuditEvent(trx, { action: 'platform.update', platformKey, changedFields: changed }, actor);
    // No longer enterable by support access (issue 35): a running one ends now, not at its time.
    const supportChanged = changed.includes('sensitive') || changed.includes('supportAccess');
    if (supportChanged && (updated!.sensitive || updated!.supportAccess === 'off')) await endSupportAccessOfPlatform(trx, updated!.id);
    return updated!;
  });
  return toPlatformView(row);
}

/** Soft deactivation; idempotent (an inactive platform is returned as is, with no audit row). */
export async function deactivatePlatform(db: Db, platformKey: string, actor: Actor): Promise<PlatformView> {
  const row = await db.transaction(async (trx) => {
    const current = await lockPlatform(trx, platformKey);
    if (!current.active) return current;
    // Support access (issue 35) does not outlive the platform: a running one ends now, first,
    // while the platform still receives events, so its support-access-ended waits for it like
    // every event pending at its deactivation (a poll after a reactivation fetches it), as the
    // other ends of an access announce theirs.
    await endSupportAccessOfPlatform(trx, current.id);
    const updated = await setPlatformActive(trx, platformKey, false);
    await recordAuditEvent(trx, { action: 'platform.deactivate', platformKey, changedFields: ['active'] }, actor);
    return updated!;
  });
  return toPlatformView(row);
}

/**
 * Re-activation; idempotent. An active platform needs a callback URL, an allowed
 * return URL and credentials; each lack has its own 409 code so the caller knows
 * what to fix. In production its stored URLs must also be https (409 CONFLICT naming
 * them): a record written before the rule, or outside production, is not put back
 * into service over plain http. An already active platform is left as it is.
 */
export async function activatePlatform(db: Db, platformKey: string, actor: Actor, rules: RegistryRules = DEFAULT_RULES): Promise<PlatformView> {
  const row = await db.transaction(async (trx) => {
    const current = await lockPlatform(trx, platformKey);
    if (current.active) return current;
    if (!current.callbackUrl) {
      throw new ApiError('PLATFORM_MISSING_CALLBACK_URL', `Set a callbackUrl for ${platformKey} before activating it.`);
    }
    if (current.allowedReturnUrls.length === 0) {
      throw new ApiError('PLATFORM_MISSING_RETURN_URLS', `Add at least one allowedReturnUrls root for ${platformKey} before activating it.`);
    }
    if (!current.clientId || !current.hasCredentials) {
      throw new ApiError('PLATFORM_MISSING_CREDENTIALS', `Rotate the credentials of ${platformKey} before activating it.`);
    }
    refuseInsecureUrls(current, rules);
    const updated = await setPlatformActive(trx, platformKey, true);
    await recordAuditEvent(trx, { action: 'platform.activate', platformKey, changedFields: ['active'] }, actor);
    return updated!;
  });
  return toPlatformView(row);
}

/**
 * A new client secret, returned once. The previous secret stops working when
 * this transaction commits: the exchange checks the secret digest against the
 * committed row in its single statement. The clientId is kept (generated if the
 * platform had none, which makes such a platform activatable).
 */
export async function rotatePlatformCredentials(
  db: Db,
  platformKey: string,
  actor: Actor,
): Promise<{ platformKey: string; clientId: string; clientSecret: string; rotatedAt: string }> {
  if (!PLATFORM_KEY_PATTERN.test(platformKey)) throw platformNotFound(platformKey);
  const clientSecret = newClientSecret();
  const candidateId = newClientId();
  const result = await db.transaction(async (trx) => {
    const replaced = await replacePlatformSecret(trx, platformKey, { newClientId: candidateId, clientSecretDigest: sha256(clientSecret) });
    if (!replaced) throw platformNotFound(platformKey);
    const changedFields = replaced.clientId === candidateId ? ['clientId', 'clientSecret'] : ['clientSecret'];
    await recordAuditEvent(trx, { action: 'platform.rotate_credentials', platformKey, changedFields }, actor);
    return replaced;
  });
  return { platformKey, clientId: result.clientId, clientSecret, rotatedAt: result.rotatedAt.toISOString() };
}

// ---------------------------------------------------------------- representation

/** The read representation: every registry property, never the secret or its digest. */
export function toPlatformView(row: PlatformRow): PlatformView {
  return {
    platformKey: row.platformKey,
    displayName: row.displayName,
    callbackUrl: row.callbackUrl,
    backchannelLogoutUrl: row.backchannelLogoutUrl,
    eventDelivery: row.eventDelivery,
    eventReceiverUrl: row.eventReceiverUrl,
    allowedReturnUrls: row.allowedReturnUrls,
    defaultOnboardingMode: row.defaultOnboardingMode,
    centralOnboardingEnabled: row.centralOnboardingEnabled,
    platformOnboardingPath: row.platformOnboardingPath,
    metadata: row.metadata,
    handoffChallengeRequired: row.handoffChallengeRequired,
    defaultLanguage: row.defaultLanguage,
    supportAccess: row.supportAccess,
    sensitive: row.sensitive,
    supportSignInUrl: row.supportSignInUrl,
    active: row.active,
    clientId: row.clientId,
    requirementVersion: row.requirementVersion,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

// ---------------------------------------------------------------- helpers

async function lockPlatform(db: Db, platformKey: string): Promise<PlatformRow> {
  const row = PLATFORM_KEY_PATTERN.test(platformKey) ? await lockPlatformByKey(db, platformKey) : undefined;
  if (!row) throw platformNotFound(platformKey);
  return row;
}

function platformNotFound(platformKey: string): ApiError {
  return new ApiError('PLATFORM_NOT_FOUND', `No platform with the key ${JSON.stringify(platformKey.slice(0, 64))} is registered.`);
}

/** Value equality for the stored shapes (scalars, string arrays, JSON objects), key order ignored. */
function sameValue(a: unknown, b: unknown): boolean {
  return canonicalJson(a) === canonicalJson(b);
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value as object)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
