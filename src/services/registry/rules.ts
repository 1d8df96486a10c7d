import type { EventDelivery, OnboardingMode, PlatformRow, SupportAccessMode } from './platformsRepository.ts';
import { ApiError, type FieldError } from '../../errors/catalogue.ts';
import { hasUnsafeCharacters, normalizeReturnRoot, parseAbsoluteHttpUrl } from '../../security/urls.ts';
import { checkOutboundHost, PUBLIC_ONLY, type OutboundPolicy } from '../../security/outboundAddresses.ts';
import { insecurePlatformUrls } from './platformUrls.ts';
import { canonicalLanguageTag } from '../onboarding/fieldTranslations.ts';
import { schemaPattern } from '../../contract.ts';

// The field rules of a platform record, one check per field, and the cross-field rules
// of an active platform (see index.ts).

/** A platform key, as the contract's PlatformKey schema defines it. */
export const PLATFORM_KEY_PATTERN = schemaPattern('PlatformKey');

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
export const DEFAULT_RULES: RegistryRules = Object.freeze({ requireHttps: false });
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

export function checkPlatformKey(value: unknown, errors: FieldError[]): string | undefined {
  // No uppercasing here: the key is an identity, and silently changing it would
  // hand the caller a different key than the one they sent (the account center
  // uppercases in its form, before submitting).
  if (typeof value !== 'string' || !PLATFORM_KEY_PATTERN.test(value)) {
    return fail(errors, 'platformKey', value === undefined ? 'is required' : `must match ${PLATFORM_KEY_PATTERN.source} (uppercase letters, digits, underscores)`);
  }
  return value;
}

export function checkDisplayName(value: unknown, errors: FieldError[], required: boolean): string | undefined {
  if (value === undefined && required) return fail(errors, 'displayName', 'is required');
  if (typeof value !== 'string') return fail(errors, 'displayName', 'must be a string');
  if (value.trim() === '') return fail(errors, 'displayName', 'must not be empty');
  if ([...value].length > DISPLAY_NAME_MAX_LENGTH) return fail(errors, 'displayName', `must be at most ${DISPLAY_NAME_MAX_LENGTH} characters`);
  if (/\p{Cc}/u.test(value)) return fail(errors, 'displayName', 'must not contain control characters');
  return value;
}

/**
 * The contract's PlatformDefaultLanguage: a BCP 47 tag (RFC 5646) or null; stored in its
 * canonical form (`de-at` → `de-AT`) so that matching it against languages on offer is exact.
 */
export function checkDefaultLanguage(value: unknown, errors: FieldError[]): string | null | undefined {
  if (value === null) return null;
  if (typeof value !== 'string') return fail(errors, 'defaultLanguage', 'must be a language tag or null');
  const canonical = canonicalLanguageTag(value);
  if (canonical === null) return fail(errors, 'defaultLanguage', 'is not a language tag such as de or pt-BR');
  return canonical;
}

/** The stored form is the parsed URL's serialization, so what the browser is sent is what was checked. */
export function checkCallbackUrl(value: unknown, errors: FieldError[], rules: RegistryRules): string | null | undefined {
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
export function checkBackchannelLogoutUrl(value: unknown, errors: FieldError[], rules: RegistryRules): string | null | undefined {
  return checkCalledUrl('backchannelLogoutUrl', value, errors, rules);
}

/**
 * Where the gateway pushes Security Event Tokens (RFC 8935 §2: an https URL of the receiver in
 * production). The gateway calls it just as it calls the backchannelLogoutUrl, so it is the
 * same rule (checkCalledUrl), not a copy of it.
 */
export function checkEventReceiverUrl(value: unknown, errors: FieldError[], rules: RegistryRules): string | null | undefined {
  return checkCalledUrl('eventReceiverUrl', value, errors, rules);
}

export const EVENT_DELIVERIES: readonly EventDelivery[] = ['none', 'push', 'poll'];

export const SUPPORT_ACCESS_MODES = ['off', 'notify', 'approve'] as const;

export function checkSupportAccess(value: unknown, errors: FieldError[]): SupportAccessMode | undefined {
  if (typeof value !== 'string' || !(SUPPORT_ACCESS_MODES as readonly string[]).includes(value)) {
    return fail(errors, 'supportAccess', `must be one of ${SUPPORT_ACCESS_MODES.join(', ')}`);
  }
  return value as SupportAccessMode;
}

/** The platform's own sign-in route for support access: an absolute http(s) URL; the gateway adds `supportAccess`. */
export function checkSupportSignInUrl(value: unknown, errors: FieldError[], rules: RegistryRules): string | null | undefined {
  if (value === null) return null;
  if (typeof value !== 'string') return fail(errors, 'supportSignInUrl', 'must be a string or null');
  if (value.length > URL_MAX_LENGTH) return fail(errors, 'supportSignInUrl', `must be at most ${URL_MAX_LENGTH} characters`);
  const parsed = parseAbsoluteHttpUrl(value, { allowQuery: true });
  if (!parsed.ok) return fail(errors, 'supportSignInUrl', parsed.reason);
  if (rules.requireHttps && parsed.url.protocol !== 'https:') return fail(errors, 'supportSignInUrl', HTTPS_REQUIRED);
  if (parsed.url.searchParams.has('supportAccess')) return fail(errors, 'supportSignInUrl', 'must not carry a supportAccess query parameter (the gateway adds it)');
  return parsed.url.href;
}

export function checkEventDelivery(value: unknown, errors: FieldError[]): EventDelivery | undefined {
  if (typeof value !== 'string' || !(EVENT_DELIVERIES as readonly string[]).includes(value)) {
    return fail(errors, 'eventDelivery', `must be one of ${EVENT_DELIVERIES.join(', ')}`);
  }
  return value as EventDelivery;
}

/** Push delivery needs somewhere to push to (cross-field, on the merged record). */
export function checkEventReceiver(record: { eventDelivery: EventDelivery; eventReceiverUrl: string | null }, errors: FieldError[], field: string): void {
  if (record.eventDelivery === 'push' && record.eventReceiverUrl === null) {
    errors.push({ pointer: pointer(field), message: field === 'eventDelivery' ? 'cannot be push without an eventReceiverUrl' : 'is required while eventDelivery is push' });
  }
}

/**
 * A URL the gateway itself calls (back-channel logout, pushed events): an absolute http(s) URL,
 * query allowed, no userinfo or fragment, a canonically spelled host, https in production, and
 * a host outbound calls may reach (src/security/outboundAddresses.ts); stored as the parsed URL's
 * serialization.
 */
function checkCalledUrl(field: string, value: unknown, errors: FieldError[], rules: RegistryRules): string | null | undefined {
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
export function checkReturnUrls(value: unknown, errors: FieldError[], rules: RegistryRules): string[] | undefined {
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

export function checkMode(value: unknown, errors: FieldError[]): OnboardingMode | undefined {
  if (typeof value !== 'string' || !(ONBOARDING_MODES as readonly string[]).includes(value)) {
    return fail(errors, 'defaultOnboardingMode', `must be one of ${ONBOARDING_MODES.join(', ')}`);
  }
  return value as OnboardingMode;
}

export function checkBoolean(field: string, value: unknown, errors: FieldError[]): boolean | undefined {
  if (typeof value !== 'boolean') return fail(errors, field, 'must be true or false');
  return value;
}

export function checkOnboardingPath(value: unknown, errors: FieldError[]): string | null | undefined {
  if (value === null) return null;
  if (typeof value !== 'string') return fail(errors, 'platformOnboardingPath', 'must be a string or null');
  if (value.length > URL_MAX_LENGTH) return fail(errors, 'platformOnboardingPath', `must be at most ${URL_MAX_LENGTH} characters`);
  if (!ONBOARDING_PATH.test(value) || hasUnsafeCharacters(value) || value.includes('#')) {
    return fail(errors, 'platformOnboardingPath', 'must be a path starting with a single /, without whitespace, backslashes or a fragment');
  }
  return value;
}

export function checkMetadata(value: unknown, errors: FieldError[]): Record<string, unknown> | undefined {
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
export function refuseInsecureUrls(record: PlatformRow, rules: RegistryRules): void {
  if (!rules.requireHttps) return;
  const insecure = [...new Set(insecurePlatformUrls(record).map((entry) => entry.field))];
  if (insecure.length === 0) return;
  throw new ApiError(
    'CONFLICT',
    `The ${insecure.join(' and ')} of ${record.platformKey} ${insecure.length > 1 ? 'use' : 'uses'} http; production requires https. Update ${insecure.length > 1 ? 'them' : 'it'} before activating the platform.`,
  );
}

/** An active platform needs a callback URL and an allowed return root; `when` null means inactive (no rule). */
export function checkComplete(record: { callbackUrl: string | null; allowedReturnUrls: string[] }, errors: FieldError[], when: string | null): void {
  if (when === null) return;
  if (record.callbackUrl === null) errors.push({ pointer: pointer('callbackUrl'), message: `is required ${when}` });
  if (record.allowedReturnUrls.length === 0) errors.push({ pointer: pointer('allowedReturnUrls'), message: `needs at least one URL ${when}` });
}

export function checkCentral(record: { defaultOnboardingMode: OnboardingMode; centralOnboardingEnabled: boolean }, errors: FieldError[], field: string): void {
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

export function pointer(field: string): string {
  return `/body/${field}`;
}

/** Records the error and returns undefined, so a check reads `return fail(...)`. */
export function fail(errors: FieldError[], field: string, message: string, reason?: FieldError['reason']): undefined {
  errors.push(reason ? { pointer: pointer(field), message, reason } : { pointer: pointer(field), message });
  return undefined;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}
