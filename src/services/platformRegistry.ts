import { randomBytes } from 'node:crypto';
import type { components } from '../../generated/gateway.ts';
import type { Db } from '../db/knex.ts';
import {
  findPlatformByKey,
  insertPlatform,
  listPlatformRows,
  lockPlatformByKey,
  replacePlatformSecret,
  setPlatformActive,
  updatePlatformRow,
  type OnboardingMode,
  type PlatformChanges,
  type PlatformRow,
  type PlatformSettings,
} from '../db/repositories/platforms.ts';
import { ApiError, validationError, type FieldError } from '../errors/catalogue.ts';
import { randomToken, sha256 } from '../security/crypto.ts';
import { hasUnsafeCharacters, normalizeReturnRoot, parseAbsoluteHttpUrl } from '../security/urls.ts';
import { checkOutboundHost, PUBLIC_ONLY, type OutboundPolicy } from '../security/outboundAddresses.ts';
import { recordAuditEvent, type Actor } from './audit.ts';
import { decodeCursor, encodeCursor, pageSize } from './cursor.ts';
import { insecurePlatformUrls } from './platformUrls.ts';

// The platform registry: every rule about a platform record lives here, shared by
// the admin API (src/operations/*Platform*.ts) and the operator CLI (src/cli/),
// so both accept and refuse exactly the same input. The API's contract
// validation runs first and catches shapes; the checks below repeat the shapes
// (the CLI and the dev stack do not pass through the contract) and add the
// rules JSON Schema cannot express: URL safety, de-duplication of equivalent
// return roots, and the cross-field rules of an active platform.

export type { Actor } from './audit.ts';
export { CLI_ACTOR } from './audit.ts';

export type PlatformView = components['schemas']['Platform'];
export type PlatformList = components['schemas']['PlatformList'];
export type PlatformCreateInput = components['schemas']['PlatformCreateRequest'];
export type PlatformUpdateInput = components['schemas']['PlatformUpdateRequest'];
export type PlatformCredentialsView = components['schemas']['PlatformCredentials'];

export const PLATFORM_KEY_PATTERN = /^[A-Z][A-Z0-9_]{1,63}$/;

/**
 * Rules that depend on where the gateway runs. Callers pass them from their own
 * configuration (the API from its Config, the CLI from its database-tool config), so
 * this service never reads the environment.
 */
export interface RegistryRules {
  /**
   * Production: every callbackUrl and allowed return URL must be https. Handoff codes
   * travel in the callback URL, as authorization codes do in a redirect URI, which
   * RFC 6749 §3.1.2.1 wants behind TLS; and a person lands on the return URL signed in.
   */
  requireHttps: boolean;
  /**
   * Where the gateway's own calls may go (the configuration's `outbound`): the
   * backchannelLogoutUrl's host is refused when it is loopback, link-local, a metadata or
   * reserved address, or a private one outside the listed ranges. Default: public only.
   */
  outbound?: OutboundPolicy;
}
const DEFAULT_RULES: RegistryRules = Object.freeze({ requireHttps: false });
const HTTPS_REQUIRED = 'must use https in production';

/**
 * Metadata keys refused at any depth: whoever reads metadata into a JavaScript object
 * and merges or copies it (Object.assign, a deep merge) can have `__proto__` change
 * that object's prototype, or `constructor.prototype` reach a shared one. JSON.parse
 * makes `__proto__` an ordinary own property, so such a key is stored and served back
 * unless refused here.
 */
const RESERVED_METADATA_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

export const ONBOARDING_MODES: readonly OnboardingMode[] = ['none', 'platform', 'central'];
/** Serialized (UTF-8) size limit of `metadata`: it rides along on every registry read. */
export const METADATA_MAX_BYTES = 16 * 1024;
export const METADATA_MAX_PROPERTIES = 100;
export const MAX_RETURN_URLS = 50;
const URL_MAX_LENGTH = 2048;
const DISPLAY_NAME_MAX_LENGTH = 200;
const ONBOARDING_PATH = /^\/(?![/\\])[^\s\\]*$/;

/** Client ids are public identifiers (Basic user names), not secrets: 128 random bits are plenty. */
export const CLIENT_ID_PREFIX = 'pc_';
/** The prefix lets secret scanners recognise a leaked platform secret. */
export const CLIENT_SECRET_PREFIX = 'pcs_';

const newClientId = () => `${CLIENT_ID_PREFIX}${randomBytes(16).toString('base64url')}`;
/** 256 random bits (GUIDE §5); only its SHA-256 digest is stored. */
const newClientSecret = () => `${CLIENT_SECRET_PREFIX}${randomToken(32)}`;

/** The settings a platform is created with and a PATCH may change. */
const UPDATE_FIELDS = [
  'displayName',
  'callbackUrl',
  'backchannelLogoutUrl',
  'allowedReturnUrls',
  'defaultOnboardingMode',
  'centralOnboardingEnabled',
  'platformOnboardingPath',
  'metadata',
  'handoffChallengeRequired',
] as const satisfies readonly (keyof PlatformChanges)[];
const CREATE_FIELDS = ['platformKey', ...UPDATE_FIELDS, 'active'] as const;
const IMMUTABLE_FIELDS = new Set(['platformKey', 'clientId']);

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
    if (errors.length > 0) throw validationError(errors);

    const changed = UPDATE_FIELDS.filter((field) => field in changes && !sameValue(current[field], merged[field]));
    if (changed.length === 0) return current;
    const effective: PlatformChanges = {};
    for (const field of changed) Object.assign(effective, { [field]: changes[field] });
    const updated = await updatePlatformRow(trx, platformKey, effective);
    await recordAuditEvent(trx, { action: 'platform.update', platformKey, changedFields: changed }, actor);
    return updated!;
  });
  return toPlatformView(row);
}

/** Soft deactivation; idempotent (an inactive platform is returned as is, with no audit row). */
export async function deactivatePlatform(db: Db, platformKey: string, actor: Actor): Promise<PlatformView> {
  const row = await db.transaction(async (trx) => {
    const current = await lockPlatform(trx, platformKey);
    if (!current.active) return current;
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
    allowedReturnUrls: row.allowedReturnUrls,
    defaultOnboardingMode: row.defaultOnboardingMode,
    centralOnboardingEnabled: row.centralOnboardingEnabled,
    platformOnboardingPath: row.platformOnboardingPath,
    metadata: row.metadata,
    handoffChallengeRequired: row.handoffChallengeRequired,
    active: row.active,
    clientId: row.clientId,
    requirementVersion: row.requirementVersion,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

// ---------------------------------------------------------------- validation

interface ValidCreate extends PlatformSettings {
  active: boolean;
}

/** Every problem of a create body at once, each under its own `/body/<field>` pointer. */
export function validateCreate(input: unknown, rules: RegistryRules = DEFAULT_RULES): ValidCreate {
  const errors: FieldError[] = [];
  if (!isPlainObject(input)) throw validationError([{ pointer: '/body', message: 'must be a JSON object' }]);
  for (const key of Object.keys(input)) {
    if (!(CREATE_FIELDS as readonly string[]).includes(key)) errors.push({ pointer: pointer(key), message: 'is not a known property' });
  }
  const platformKey = checkPlatformKey(input.platformKey, errors);
  const displayName = checkDisplayName(input.displayName, errors, true);
  const callbackUrl = input.callbackUrl === undefined ? null : checkCallbackUrl(input.callbackUrl, errors, rules);
  const backchannelLogoutUrl = input.backchannelLogoutUrl === undefined ? null : checkBackchannelLogoutUrl(input.backchannelLogoutUrl, errors, rules);
  const allowedReturnUrls = input.allowedReturnUrls === undefined ? [] : checkReturnUrls(input.allowedReturnUrls, errors, rules);
  const defaultOnboardingMode = input.defaultOnboardingMode === undefined ? 'central' : checkMode(input.defaultOnboardingMode, errors);
  const centralOnboardingEnabled =
    input.centralOnboardingEnabled === undefined ? true : checkBoolean('centralOnboardingEnabled', input.centralOnboardingEnabled, errors);
  const platformOnboardingPath = input.platformOnboardingPath === undefined ? null : checkOnboardingPath(input.platformOnboardingPath, errors);
  const metadata = input.metadata === undefined ? {} : checkMetadata(input.metadata, errors);
  const active = input.active === undefined ? true : checkBoolean('active', input.active, errors);
  // On unless the operator turns it off: a start without handoffChallenge allows login CSRF.
  const handoffChallengeRequired =
    input.handoffChallengeRequired === undefined ? true : checkBoolean('handoffChallengeRequired', input.handoffChallengeRequired, errors);

  const value = {
    platformKey: platformKey ?? '',
    displayName: displayName ?? '',
    callbackUrl: callbackUrl ?? null,
    backchannelLogoutUrl: backchannelLogoutUrl ?? null,
    allowedReturnUrls: allowedReturnUrls ?? [],
    defaultOnboardingMode: defaultOnboardingMode ?? 'central',
    centralOnboardingEnabled: centralOnboardingEnabled ?? true,
    platformOnboardingPath: platformOnboardingPath ?? null,
    metadata: metadata ?? {},
    handoffChallengeRequired: handoffChallengeRequired ?? true,
    active: active ?? true,
  };
  // Cross-field rules only on fields that are individually valid, so each field gets one clear message.
  if (callbackUrl !== undefined && allowedReturnUrls !== undefined && active !== undefined) {
    checkComplete(value, errors, active ? 'for an active platform (or create the platform inactive)' : null);
  }
  if (defaultOnboardingMode !== undefined && centralOnboardingEnabled !== undefined) {
    checkCentral(value, errors, 'centralOnboardingEnabled' in input ? 'centralOnboardingEnabled' : 'defaultOnboardingMode');
  }
  if (errors.length > 0) throw validationError(errors);
  return value;
}

/** A patch: the present properties, each valid on its own (cross-field rules run on the merged record). */
export function validateUpdate(input: unknown, rules: RegistryRules = DEFAULT_RULES): PlatformChanges {
  const errors: FieldError[] = [];
  if (!isPlainObject(input)) throw validationError([{ pointer: '/body', message: 'must be a JSON object' }]);
  const changes: PlatformChanges = {};
  for (const key of Object.keys(input)) {
    if (IMMUTABLE_FIELDS.has(key)) errors.push({ pointer: pointer(key), message: 'is immutable and cannot be changed' });
    else if (key === 'active') errors.push({ pointer: pointer(key), message: 'is changed with the activate and deactivate operations' });
    else if (!(UPDATE_FIELDS as readonly string[]).includes(key)) errors.push({ pointer: pointer(key), message: 'is not a known property' });
  }
  if (Object.keys(input).length === 0) errors.push({ pointer: '/body', message: 'must change at least one property' });
  const assign = <K extends keyof PlatformChanges>(field: K, value: PlatformChanges[K] | undefined) => {
    if (value !== undefined) changes[field] = value;
  };
  if ('displayName' in input) assign('displayName', checkDisplayName(input.displayName, errors, false));
  if ('callbackUrl' in input) assign('callbackUrl', checkCallbackUrl(input.callbackUrl, errors, rules));
  if ('backchannelLogoutUrl' in input) assign('backchannelLogoutUrl', checkBackchannelLogoutUrl(input.backchannelLogoutUrl, errors, rules));
  if ('allowedReturnUrls' in input) assign('allowedReturnUrls', checkReturnUrls(input.allowedReturnUrls, errors, rules));
  if ('defaultOnboardingMode' in input) assign('defaultOnboardingMode', checkMode(input.defaultOnboardingMode, errors));
  if ('centralOnboardingEnabled' in input) assign('centralOnboardingEnabled', checkBoolean('centralOnboardingEnabled', input.centralOnboardingEnabled, errors));
  if ('platformOnboardingPath' in input) assign('platformOnboardingPath', checkOnboardingPath(input.platformOnboardingPath, errors));
  if ('metadata' in input) assign('metadata', checkMetadata(input.metadata, errors));
  if ('handoffChallengeRequired' in input) assign('handoffChallengeRequired', checkBoolean('handoffChallengeRequired', input.handoffChallengeRequired, errors));
  if (errors.length > 0) throw validationError(errors);
  return changes;
}

function checkPlatformKey(value: unknown, errors: FieldError[]): string | undefined {
  // No uppercasing here: the key is an identity, and silently changing it would
  // hand the caller a different key than the one they sent (the account center
  // uppercases in its form, before submitting).
  if (typeof value !== 'string' || !PLATFORM_KEY_PATTERN.test(value)) {
    return fail(errors, 'platformKey', value === undefined ? 'is required' : 'must match ^[A-Z][A-Z0-9_]{1,63}$ (uppercase letters, digits, underscores)');
  }
  return value;
}

function checkDisplayName(value: unknown, errors: FieldError[], required: boolean): string | undefined {
  if (value === undefined && required) return fail(errors, 'displayName', 'is required');
  if (typeof value !== 'string') return fail(errors, 'displayName', 'must be a string');
  if (value.trim() === '') return fail(errors, 'displayName', 'must not be empty');
  if ([...value].length > DISPLAY_NAME_MAX_LENGTH) return fail(errors, 'displayName', `must be at most ${DISPLAY_NAME_MAX_LENGTH} characters`);
  if (/\p{Cc}/u.test(value)) return fail(errors, 'displayName', 'must not contain control characters');
  return value;
}

/** The stored form is the parsed URL's serialization, so what the browser is sent is what was checked. */
function checkCallbackUrl(value: unknown, errors: FieldError[], rules: RegistryRules): string | null | undefined {
  if (value === null) return null;
  if (typeof value !== 'string') return fail(errors, 'callbackUrl', 'must be a string or null');
  if (value.length > URL_MAX_LENGTH) return fail(errors, 'callbackUrl', `must be at most ${URL_MAX_LENGTH} characters`);
  const parsed = parseAbsoluteHttpUrl(value, { allowQuery: true });
  if (!parsed.ok) return fail(errors, 'callbackUrl', parsed.reason);
  if (rules.requireHttps && parsed.url.protocol !== 'https:') return fail(errors, 'callbackUrl', HTTPS_REQUIRED);
  // The gateway sets `code` on the callback; a registered one would be overwritten or, worse, confused with it.
  if (parsed.url.searchParams.has('code')) return fail(errors, 'callbackUrl', 'must not carry a code query parameter (the gateway adds it)');
  if (parsed.url.href.length > URL_MAX_LENGTH) return fail(errors, 'callbackUrl', `must be at most ${URL_MAX_LENGTH} characters`);
  return parsed.url.href;
}

/**
 * Where the gateway posts logout tokens (OpenID Connect Back-Channel Logout 1.0 §2.2: an
 * absolute URL, query allowed, no fragment), with the callbackUrl's rules: no userinfo, a
 * canonically spelled host, https in production, and a host outbound calls may reach
 * (src/security/outboundAddresses.ts); stored as the parsed URL's serialization.
 */
function checkBackchannelLogoutUrl(value: unknown, errors: FieldError[], rules: RegistryRules): string | null | undefined {
  const field = 'backchannelLogoutUrl';
  if (value === null) return null;
  if (typeof value !== 'string') return fail(errors, field, 'must be a string or null');
  if (value.length > URL_MAX_LENGTH) return fail(errors, field, `must be at most ${URL_MAX_LENGTH} characters`);
  const parsed = parseAbsoluteHttpUrl(value, { allowQuery: true });
  if (!parsed.ok) return fail(errors, field, parsed.reason);
  if (rules.requireHttps && parsed.url.protocol !== 'https:') return fail(errors, field, HTTPS_REQUIRED);
  // The host as written; a name is judged again after resolution at every delivery (delivery.ts).
  const outbound = checkOutboundHost(parsed.url.hostname, rules.outbound ?? PUBLIC_ONLY);
  if (!outbound.ok) return fail(errors, field, outbound.reason, 'ADDRESS_NOT_ALLOWED');
  if (parsed.url.href.length > URL_MAX_LENGTH) return fail(errors, field, `must be at most ${URL_MAX_LENGTH} characters`);
  return parsed.url.href;
}

/**
 * Roots are stored as parsed URLs, and roots that mean the same thing (case of
 * scheme and host, default port, one trailing slash) are kept once, in the order
 * given: the first root resolves root-relative returnTo values.
 */
function checkReturnUrls(value: unknown, errors: FieldError[], rules: RegistryRules): string[] | undefined {
  if (!Array.isArray(value)) return fail(errors, 'allowedReturnUrls', 'must be an array of URLs');
  if (value.length > MAX_RETURN_URLS) return fail(errors, 'allowedReturnUrls', `must hold at most ${MAX_RETURN_URLS} URLs`);
  const roots: string[] = [];
  const seen = new Set<string>();
  const before = errors.length;
  value.forEach((item: unknown, index) => {
    const at = `allowedReturnUrls/${index}`;
    if (typeof item !== 'string') return void fail(errors, at, 'must be a string');
    if (item.length > URL_MAX_LENGTH) return void fail(errors, at, `must be at most ${URL_MAX_LENGTH} characters`);
    const parsed = parseAbsoluteHttpUrl(item, { allowQuery: false });
    if (!parsed.ok) return void fail(errors, at, parsed.reason);
    if (rules.requireHttps && parsed.url.protocol !== 'https:') return void fail(errors, at, HTTPS_REQUIRED);
    const key = normalizeReturnRoot(parsed.url);
    if (seen.has(key)) return;
    seen.add(key);
    roots.push(parsed.url.href);
  });
  return errors.length === before ? roots : undefined;
}

function checkMode(value: unknown, errors: FieldError[]): OnboardingMode | undefined {
  if (typeof value !== 'string' || !(ONBOARDING_MODES as readonly string[]).includes(value)) {
    return fail(errors, 'defaultOnboardingMode', `must be one of ${ONBOARDING_MODES.join(', ')}`);
  }
  return value as OnboardingMode;
}

function checkBoolean(field: string, value: unknown, errors: FieldError[]): boolean | undefined {
  if (typeof value !== 'boolean') return fail(errors, field, 'must be true or false');
  return value;
}

function checkOnboardingPath(value: unknown, errors: FieldError[]): string | null | undefined {
  if (value === null) return null;
  if (typeof value !== 'string') return fail(errors, 'platformOnboardingPath', 'must be a string or null');
  if (value.length > URL_MAX_LENGTH) return fail(errors, 'platformOnboardingPath', `must be at most ${URL_MAX_LENGTH} characters`);
  if (!ONBOARDING_PATH.test(value) || hasUnsafeCharacters(value) || value.includes('#')) {
    return fail(errors, 'platformOnboardingPath', 'must be a path starting with a single /, without whitespace, backslashes or a fragment');
  }
  return value;
}

function checkMetadata(value: unknown, errors: FieldError[]): Record<string, unknown> | undefined {
  if (!isPlainObject(value)) return fail(errors, 'metadata', 'must be a JSON object');
  const reserved = reservedKeyPointers(value);
  if (reserved.length > 0) {
    for (const at of reserved) fail(errors, `metadata${at}`, `is a reserved key (${[...RESERVED_METADATA_KEYS].join(', ')} are refused at any depth)`);
    return undefined;
  }
  if (Object.keys(value).length > METADATA_MAX_PROPERTIES) return fail(errors, 'metadata', `must have at most ${METADATA_MAX_PROPERTIES} properties`);
  let text: string;
  try {
    text = JSON.stringify(value);
  } catch {
    return fail(errors, 'metadata', 'must be JSON');
  }
  // \u0000 is valid JSON but PostgreSQL jsonb refuses it; say so instead of a 500.
  if (text.includes('\\u0000')) return fail(errors, 'metadata', 'must not contain NUL characters');
  if (Buffer.byteLength(text, 'utf8') > METADATA_MAX_BYTES) return fail(errors, 'metadata', `must be at most ${METADATA_MAX_BYTES} bytes serialized`);
  return JSON.parse(text) as Record<string, unknown>;
}

/**
 * JSON pointers (below `metadata`, RFC 6901) of every reserved key, at any depth.
 * Iterative: a 64 KiB body can nest tens of thousands of levels.
 */
function reservedKeyPointers(metadata: Record<string, unknown>): string[] {
  const found: string[] = [];
  const pending: [value: unknown, at: string][] = [[metadata, '']];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [value, at] = next;
    if (value === null || typeof value !== 'object') continue;
    const isArray = Array.isArray(value);
    for (const [key, inner] of Object.entries(value)) {
      const path = `${at}/${escapePointer(key)}`;
      if (!isArray && RESERVED_METADATA_KEYS.has(key)) found.push(path);
      else pending.push([inner, path]);
    }
  }
  return found.sort();
}

const escapePointer = (segment: string) => segment.replaceAll('~', '~0').replaceAll('/', '~1');

/** Production: the stored URLs of a platform about to be activated must be https. */
function refuseInsecureUrls(record: PlatformRow, rules: RegistryRules): void {
  if (!rules.requireHttps) return;
  const insecure = [...new Set(insecurePlatformUrls(record).map((entry) => entry.field))];
  if (insecure.length === 0) return;
  throw new ApiError(
    'CONFLICT',
    `The ${insecure.join(' and ')} of ${record.platformKey} ${insecure.length > 1 ? 'use' : 'uses'} http; production requires https. Update ${insecure.length > 1 ? 'them' : 'it'} before activating the platform.`,
  );
}

/** An active platform needs a callback URL and an allowed return root; `when` null means inactive (no rule). */
function checkComplete(record: { callbackUrl: string | null; allowedReturnUrls: string[] }, errors: FieldError[], when: string | null): void {
  if (when === null) return;
  if (record.callbackUrl === null) errors.push({ pointer: pointer('callbackUrl'), message: `is required ${when}` });
  if (record.allowedReturnUrls.length === 0) errors.push({ pointer: pointer('allowedReturnUrls'), message: `needs at least one URL ${when}` });
}

function checkCentral(record: { defaultOnboardingMode: OnboardingMode; centralOnboardingEnabled: boolean }, errors: FieldError[], field: string): void {
  if (record.defaultOnboardingMode === 'central' && !record.centralOnboardingEnabled) {
    errors.push({
      pointer: pointer(field),
      message:
        field === 'centralOnboardingEnabled'
          ? 'must be true while defaultOnboardingMode is central'
          : 'cannot be central while centralOnboardingEnabled is false',
    });
  }
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

function pointer(field: string): string {
  return `/body/${field}`;
}

/** Records the error and returns undefined, so a check reads `return fail(...)`. */
function fail(errors: FieldError[], field: string, message: string, reason?: FieldError['reason']): undefined {
  errors.push(reason ? { pointer: pointer(field), message, reason } : { pointer: pointer(field), message });
  return undefined;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
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
