/**
 * The one configuration module: every environment variable the service reads is
 * declared here, validated once at boot, and handed out as a frozen object.
 * A bad value stops the process with a message naming the variable and the rule.
 */

import { containsDevEncryptionKey, DEV_ENCRYPTION_KEYS } from '../security/crypto.ts';
import { signingKeysFromSpec } from '../services/backchannel/signingKeys.ts';
import { parseProxyEntry } from '../security/clientAddress.ts';
import { allowedRangeProblem, type OutboundPolicy } from '../security/outboundAddresses.ts';
import { DEFAULT_STATEMENT_TIMEOUT_MS } from '../db/knex.ts';
import { isIP } from 'node:net';

export type NodeEnv = 'development' | 'test' | 'production';
export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export interface OidcConfig {
  /** Issuer URL used for discovery; null means "start the dev identity provider" (never in production). */
  readonly issuer: string | null;
  readonly clientId: string | null;
  readonly clientSecret: string | null;
  readonly scopes: readonly string[];
  /** The `aud` every access token must carry (OIDC_ACCESS_TOKEN_AUDIENCE); null means OIDC_CLIENT_ID. */
  readonly accessTokenAudience: string | null;
  /**
   * Clients whose access tokens are accepted (OIDC_TRUSTED_CLIENT_IDS): the token's
   * `client_id` (or `azp`) must be one of them; null means [OIDC_CLIENT_ID].
   */
  readonly trustedClientIds: readonly string[] | null;
  /** Where permissions come from (OIDC_PERMISSIONS_FROM): the `scope` claim, or Zitadel's project roles claims. */
  readonly permissionsFrom: PermissionsSource;
  /**
   * Clients whose Bearer tokens are central callers (OIDC_CENTRAL_CLIENT_IDS): they need no
   * platform claim for schema operations; null means [OIDC_CLIENT_ID].
   */
  readonly centralClientIds: readonly string[] | null;
  /** The claim naming the platform(s) a non-central Bearer token acts for (OIDC_PLATFORM_CLAIM). */
  readonly platformClaim: string;
  /**
   * `amr` values (RFC 8176) that show a second factor when a platform asks for one
   * (OIDC_SECOND_FACTOR_AMR, default `mfa`: Zitadel's for two checked factors or a passkey).
   */
  readonly secondFactorAmr: readonly string[];
  /**
   * The `acr_values` sent when a platform asks for a second factor, only to a provider whose
   * discovery lists it (OIDC_SECOND_FACTOR_ACR; Zitadel lists none).
   */
  readonly secondFactorAcr: string;
}

export type PermissionsSource = 'scope' | 'zitadel-roles';

/** S3-compatible object storage for avatars (AVATAR_S3_*); null keeps them in PostgreSQL. */
export interface AvatarS3Config {
  readonly bucket: string;
  /** Endpoint of an S3-compatible service (unset: AWS for the region). */
  readonly endpoint: string | null;
  readonly region: string;
  readonly accessKeyId: string | null;
  readonly secretAccessKey: string | null;
  /** Path-style addressing (MinIO, s3rver, most self-hosted services). */
  readonly forcePathStyle: boolean;
  /** Public base URL of the stored pictures (a CDN, or the bucket's URL). */
  readonly publicUrl: string;
}

/** The identity provider's admin API for account operations (Zitadel v2 user API). */
export interface IdpAdminConfig {
  /** Base URL of the API; default OIDC_ISSUER. */
  readonly apiUrl: string | null;
  /** A service user's personal access token (IDP_ADMIN_TOKEN). */
  readonly token: string | null;
  /** A service user's JWT-profile key file (IDP_ADMIN_KEY_FILE). */
  readonly keyFile: string | null;
}

/** At most `points` attempts per `durationSeconds` window, counted per key (IP, client id, user, caller). */
export interface RateLimit {
  readonly points: number;
  readonly durationSeconds: number;
}

/** The limits shared by every instance (RATE_LIMIT_*_PER_MINUTE), in the PostgreSQL table `rate_limits`. */
export interface RateLimitsConfig {
  /** GET /v1/auth/start per client IP (sized for a whole office or carrier NAT behind one address: START_CALLBACK_PER_MINUTE). */
  readonly start: RateLimit;
  /** GET /v1/auth/callback per client IP (the same sizing). */
  readonly callback: RateLimit;
  /** POST /v1/account/password per user, every attempt. */
  readonly passwordChange: RateLimit;
  /** Platform and onboarding-field writes, revoking another user's session, per caller. */
  readonly adminWrite: RateLimit;
}

export interface Config {
  readonly nodeEnv: NodeEnv;
  readonly isProduction: boolean;
  readonly port: number;
  /**
   * HOST: the address the gateway (and the dev stack's example BFF) listen on. Unset: loopback
   * (127.0.0.1) while the dev stack runs (no OIDC_ISSUER, not production), where the published
   * demo users and credentials work; every interface otherwise (null), as a container needs.
   */
  readonly listenHost: string | null;
  readonly publicBaseUrl: string;
  readonly databaseUrl: string | null;
  /** SHUTDOWN_GRACE_SECONDS: after SIGTERM, how long to keep accepting (readiness 503) before closing the listener (DEFAULT_PRODUCTION_SHUTDOWN_GRACE_SECONDS in production, 0 otherwise). */
  readonly shutdownGraceSeconds: number;
  /** DATABASE_STATEMENT_TIMEOUT_MS: the longest a request's SQL statement may run (0: no limit). */
  readonly databaseStatementTimeoutMs: number;
  /**
   * DATABASE_PREPARED_STATEMENTS (default true): the login's hot statements are named, so each
   * connection parses and plans them once. Set false behind a pooler in transaction mode that
   * cannot keep prepared statements (PgBouncer before 1.21, or without max_prepared_statements).
   */
  readonly databasePreparedStatements: boolean;
  readonly oidc: OidcConfig;
  readonly authCallbackUrl: string;
  readonly authHandoffTtlSeconds: number;
  readonly authTransactionTtlSeconds: number;
  /** How long after the callback a resume may still issue a handoff (AUTH_RESUME_TTL_SECONDS). */
  readonly authResumeTtlSeconds: number;
  readonly accountCenterUrl: string;
  readonly corsOrigins: readonly string[];
  readonly authPlatformKey: string | null;
  /** GATEWAY_COOKIE_NAME; in production `__Host-` prefixed (see sessionCookieName). */
  readonly gatewayCookieName: string;
  readonly gatewaySessionTtlSeconds: number;
  /** A session unused this long ends (GATEWAY_SESSION_IDLE_SECONDS), before its absolute lifetime. */
  readonly gatewaySessionIdleSeconds: number;
  /** Cookies carry `Secure`: in production, and whenever PUBLIC_BASE_URL is https. */
  readonly secureCookies: boolean;
  /** Largest avatar upload accepted (AVATAR_MAX_BYTES). */
  readonly avatarMaxBytes: number;
  readonly avatarS3: AvatarS3Config | null;
  readonly idpAdmin: IdpAdminConfig;
  /** How long a deleted account's data is kept before the purge removes it (ACCOUNT_RETENTION_DAYS). */
  readonly accountRetentionDays: number;
  /** Key ring spec `kid:base64key,...`; null in development means the fixed dev key ring. */
  readonly encryptionKeys: string | null;
  /**
   * GATEWAY_SIGNING_KEYS: `kid:base64url(PKCS#8 DER of an EC P-256 private key),...`, the first
   * signs the back-channel logout tokens (ES256), all are published at /.well-known/jwks.json.
   * Required in production; null elsewhere means a development key generated at start.
   */
  readonly gatewaySigningKeys: string | null;
  readonly logLevel: LogLevel;
  /** Rate limits (RATE_LIMIT_*_PER_MINUTE). */
  readonly rateLimits: RateLimitsConfig;
  /** Proxies whose X-Forwarded-For is believed (TRUSTED_PROXIES: IPs and CIDR ranges); empty: never. */
  readonly trustedProxies: readonly string[];
  /** Port of the development identity provider (only used when OIDC_ISSUER is unset). */
  readonly devIdpPort: number;
  /** Port of the example platform back end served by the demo stack. */
  readonly demoBffPort: number;
  /** Port of the separate Prometheus listener (METRICS_PORT, GET /metrics); null: none. */
  readonly metricsPort: number | null;
  /** Bearer token that opens /metrics on the public port (METRICS_TOKEN); null: 404 there. */
  readonly metricsToken: string | null;
  /**
   * REDIS_URL (redis:// or rediss://): the rate-limit counters live in Redis, with PostgreSQL as
   * the fallback store while Redis is unreachable; null: PostgreSQL only.
   */
  readonly redisUrl: string | null;
  /** OpenTelemetry trace export (OTEL_EXPORTER_OTLP_ENDPOINT); null: no tracing at all. */
  readonly tracing: TracingConfig | null;
  /** Settings that work but are probably not what the operator meant: logged as warnings at boot. */
  readonly warnings: readonly string[];
  /**
   * What outbound calls to registered URLs (back-channel logout) may reach besides public
   * addresses: OUTBOUND_ALLOWED_PRIVATE_RANGES, and loopback for the dev stack (see readOutbound).
   */
  readonly outbound: OutboundPolicy;
}

/** OTLP/HTTP trace export, with the standard OpenTelemetry variable names. */
export interface TracingConfig {
  /** OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, else OTEL_EXPORTER_OTLP_ENDPOINT + `/v1/traces`. */
  readonly tracesUrl: string;
  /** OTEL_SERVICE_NAME, default `auth-gateway`. */
  readonly serviceName: string;
}

export class ConfigError extends Error {
  readonly problems: readonly string[];
  constructor(problems: string[]) {
    super(`invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

type Env = Readonly<Record<string, string | undefined>>;

const PLATFORM_KEY = /^[A-Z][A-Z0-9_]{1,63}$/;
const CLAIM_NAME = /^\S{1,200}$/;
/** The OpenID Provider Authentication Policy Extension's multi-factor policy, a widely used `acr` value for "a second factor". */
export const MULTI_FACTOR_ACR = 'http://schemas.openid.net/pape/policies/2007/06/multi-factor';
const COOKIE_NAME = /^[A-Za-z0-9!#$%&'*+\-.^_`|~]{1,64}$/; // RFC 6265 token

const HOST_PREFIX = /^__Host-/i;

/**
 * The session cookie's name. In production it carries the `__Host-` prefix (RFC 6265bis §4.1.3.2:
 * Secure, Path=/, no Domain), so a sibling subdomain cannot set or shadow it (cookie tossing);
 * GATEWAY_COOKIE_NAME is prefixed unless it already is, so the default needs no change.
 */
function sessionCookieName(configured: string, isProduction: boolean): string {
  if (!isProduction || HOST_PREFIX.test(configured)) return configured;
  return `__Host-${configured.replace(/^__Secure-/i, '')}`;
}

/** Collects problems instead of throwing at the first, so an operator sees them all at once. */
class Reader {
  readonly problems: string[] = [];
  private readonly env: Env;
  constructor(env: Env) {
    this.env = env;
  }

  raw(name: string): string | undefined {
    const value = this.env[name];
    return value === undefined || value.trim() === '' ? undefined : value.trim();
  }

  string(name: string, fallback: string): string;
  string(name: string, fallback: null): string | null;
  string(name: string, fallback: string | null): string | null {
    return this.raw(name) ?? fallback;
  }

  integer(name: string, fallback: number, min: number, max: number): number {
    const raw = this.raw(name);
    if (raw === undefined) return fallback;
    const value = /^-?\d+$/.test(raw) ? Number(raw) : NaN;
    if (!Number.isSafeInteger(value) || value < min || value > max) {
      this.problems.push(`${name}=${raw} is refused: allowed ${min}..${max} (whole number)`);
      return fallback;
    }
    return value;
  }

  oneOf<T extends string>(name: string, fallback: T, allowed: readonly T[]): T {
    const raw = this.raw(name);
    if (raw === undefined) return fallback;
    if (!(allowed as readonly string[]).includes(raw)) {
      this.problems.push(`${name}=${raw} is refused: allowed ${allowed.join(', ')}`);
      return fallback;
    }
    return raw as T;
  }

  /** An absolute http(s) URL without userinfo or fragment, returned without a trailing slash. */
  url(name: string, fallback: string): string;
  url(name: string, fallback: null): string | null;
  url(name: string, fallback: string | null): string | null {
    const raw = this.raw(name);
    if (raw === undefined) return fallback;
    const checked = checkHttpUrl(raw);
    if (checked !== null) {
      this.problems.push(`${name}=${raw} is refused: ${checked}`);
      return fallback;
    }
    return raw.replace(/\/+$/, '');
  }

  pattern(name: string, regex: RegExp, rule: string): string | null {
    const raw = this.raw(name);
    if (raw === undefined) return null;
    if (!regex.test(raw)) {
      this.problems.push(`${name}=${raw} is refused: ${rule}`);
      return null;
    }
    return raw;
  }
}

function checkHttpUrl(raw: string): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute http or https URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must be an absolute http or https URL';
  if (url.username || url.password || raw.includes('@')) return 'must not contain userinfo';
  if (raw.includes('#')) return 'must not contain a fragment';
  return null;
}

/** AVATAR_S3_BUCKET switches avatars to object storage; the other AVATAR_S3_* describe it. */
function readAvatarS3(reader: Reader): AvatarS3Config | null {
  const bucket = reader.raw('AVATAR_S3_BUCKET');
  if (bucket === undefined) {
    for (const name of ['AVATAR_S3_ENDPOINT', 'AVATAR_S3_PUBLIC_URL', 'AVATAR_S3_ACCESS_KEY_ID', 'AVATAR_S3_SECRET_ACCESS_KEY']) {
      if (reader.raw(name) !== undefined) reader.problems.push(`${name} is set but AVATAR_S3_BUCKET is not: set the bucket too, or unset it`);
    }
    return null;
  }
  const endpoint = reader.url('AVATAR_S3_ENDPOINT', null);
  const region = reader.string('AVATAR_S3_REGION', 'us-east-1');
  const publicUrl = reader.url('AVATAR_S3_PUBLIC_URL', null) ?? (endpoint ? `${endpoint}/${bucket}` : `https://${bucket}.s3.${region}.amazonaws.com`);
  const accessKeyId = reader.string('AVATAR_S3_ACCESS_KEY_ID', null);
  const secretAccessKey = reader.string('AVATAR_S3_SECRET_ACCESS_KEY', null);
  if (Boolean(accessKeyId) !== Boolean(secretAccessKey)) {
    reader.problems.push('AVATAR_S3_ACCESS_KEY_ID and AVATAR_S3_SECRET_ACCESS_KEY go together (or neither, for the SDK\'s default credentials)');
  }
  return {
    bucket,
    endpoint,
    region,
    accessKeyId,
    secretAccessKey,
    forcePathStyle: reader.oneOf('AVATAR_S3_FORCE_PATH_STYLE', endpoint ? 'true' : 'false', ['true', 'false']) === 'true',
    publicUrl,
  };
}

/** A bearer secret: 32..256 printable ASCII characters, never echoed in the refusal. */
function readSecretToken(reader: Reader, name: string): string | null {
  const raw = reader.raw(name);
  if (raw === undefined) return null;
  if (!/^[\x21-\x7e]{32,256}$/.test(raw)) {
    reader.problems.push(`${name} is refused: must be 32..256 printable characters without spaces (e.g. openssl rand -base64 32)`);
    return null;
  }
  return raw;
}

/** A comma-separated list of non-empty entries; null when unset. */
function readList(reader: Reader, name: string): string[] | null {
  const raw = reader.raw(name);
  if (raw === undefined) return null;
  const entries = [...new Set(raw.split(',').map((part) => part.trim()).filter(Boolean))];
  if (entries.length === 0) reader.problems.push(`${name} is refused: list at least one value`);
  return entries;
}

/** GATEWAY_SIGNING_KEYS, parsed here (once per process: the ring is kept) so a bad key stops the boot. */
function readSigningKeys(reader: Reader): string | null {
  const raw = reader.raw('GATEWAY_SIGNING_KEYS');
  if (raw === undefined) return null;
  try {
    signingKeysFromSpec(raw);
  } catch (error) {
    // The parser's messages name entries and key ids, never key material.
    reader.problems.push(`GATEWAY_SIGNING_KEYS is refused: ${(error as Error).message}`);
    return null;
  }
  return raw;
}

/**
 * DATABASE_URL, refused at boot in the forms the driver (pg) would get wrong: pg connects to one
 * host and ignores target_session_attrs, so a multi-host URL crashed the boot (`Invalid URL`, with
 * ports) or waited forever on a host named "db1,db2" (without), and a read-write attribute would
 * have been dropped without a word. Failover goes through one address that always leads to the
 * primary (docs/operations.md, "PostgreSQL failover"). Never echoed: it may carry a password.
 */
function readDatabaseUrl(reader: Reader): string | null {
  const raw = reader.raw('DATABASE_URL');
  if (raw === undefined) return null;
  const oneAddress = 'point it at one address that always leads to the primary, such as HAProxy routed by Patroni\'s REST API (docs/operations.md, "PostgreSQL failover")';
  let url: URL | null = null;
  try {
    url = new URL(raw);
  } catch {
    url = null;
  }
  const hostParams = url ? ['host', 'hostaddr', 'port'].flatMap((name) => url.searchParams.getAll(name)) : [];
  // The host part of the authority: after its last `@` (a password may hold a comma).
  const authority = /^postgres(?:ql)?:\/\/([^/?#]*)/i.exec(raw)?.[1] ?? '';
  if (authority.slice(authority.lastIndexOf('@') + 1).includes(',') || hostParams.some((value) => value.includes(','))) {
    reader.problems.push(`DATABASE_URL is refused: it names several hosts, and the driver (pg) connects to one host only; ${oneAddress}`);
    return null;
  }
  if (!url || (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:')) {
    reader.problems.push('DATABASE_URL is refused: must be postgres://user:password@host[:port]/database (one host; the port defaults to 5432)');
    return null;
  }
  const attrs = url.searchParams.get('target_session_attrs');
  if (attrs !== null && attrs !== 'any') {
    reader.problems.push(`DATABASE_URL is refused: target_session_attrs is not supported by the driver (pg would ignore it and connect to a standby as readily as to the primary); remove it and ${oneAddress}`);
    return null;
  }
  return raw;
}

/** Origins are compared exactly (scheme, host, port), as browsers send them in the Origin header. */
function readOrigins(reader: Reader, name: string, fallback: string[]): string[] {
  const raw = reader.raw(name);
  if (raw === undefined) return fallback;
  const origins: string[] = [];
  for (const entry of raw.split(',').map((part) => part.trim()).filter(Boolean)) {
    const problem = checkHttpUrl(entry);
    const url = problem === null ? new URL(entry) : null;
    if (!url || url.origin !== entry.replace(/\/$/, '')) {
      reader.problems.push(`${name} entry "${entry}" is refused: must be an origin such as https://app.example.com (scheme, host, optional port; no path)`);
      continue;
    }
    origins.push(url.origin);
  }
  return [...new Set(origins)];
}

/** HOST: an IP address (`0.0.0.0` or `::` for every interface) or a host name; see Config.listenHost. */
function readListenHost(reader: Reader, devStack: boolean): string | null {
  const raw = reader.raw('HOST');
  if (raw === undefined) return devStack ? '127.0.0.1' : null;
  if (isIP(raw) === 0 && !/^[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?$/.test(raw)) {
    reader.problems.push(`HOST=${raw} is refused: must be an IP address (0.0.0.0 or :: for every interface, 127.0.0.1 for this machine only) or a host name`);
    return null;
  }
  return raw;
}

/** TRUSTED_PROXIES: IP addresses and CIDR ranges, comma separated; unset or empty trusts none. */
function readTrustedProxies(reader: Reader): string[] {
  const raw = reader.raw('TRUSTED_PROXIES');
  if (raw === undefined) return [];
  const entries: string[] = [];
  for (const entry of raw.split(',').map((part) => part.trim()).filter(Boolean)) {
    if (!parseProxyEntry(entry)) {
      reader.problems.push(`TRUSTED_PROXIES entry "${entry}" is refused: must be an IP address or a CIDR range such as 10.0.0.0/8`);
      continue;
    }
    entries.push(entry);
  }
  return [...new Set(entries)];
}

/** REDIS_URL: redis:// or rediss:// (TLS); never echoed in a refusal (it may carry a password). */
function readRedisUrl(reader: Reader): string | null {
  const raw = reader.raw('REDIS_URL');
  if (raw === undefined) return null;
  let url: URL | null = null;
  try {
    url = new URL(raw);
  } catch {
    url = null;
  }
  if (!url || (url.protocol !== 'redis:' && url.protocol !== 'rediss:') || !url.hostname) {
    reader.problems.push('REDIS_URL is refused: must be redis://[user:password@]host[:port][/db] or rediss://… for TLS');
    return null;
  }
  return raw;
}

/**
 * OTEL_EXPORTER_OTLP_ENDPOINT (a base URL: traces go to `<it>/v1/traces`) or
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT (the full traces URL, used as is), as the OpenTelemetry
 * specification defines them; OTEL_SERVICE_NAME names the service. Neither set: null.
 */
function readTracing(reader: Reader): TracingConfig | null {
  const traces = reader.raw('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
  const base = reader.raw('OTEL_EXPORTER_OTLP_ENDPOINT');
  if (traces === undefined && base === undefined) return null;
  const name = traces !== undefined ? 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT' : 'OTEL_EXPORTER_OTLP_ENDPOINT';
  const raw = (traces ?? base)!;
  const problem = checkHttpUrl(raw);
  if (problem !== null) {
    reader.problems.push(`${name} is refused: ${problem}`);
    return null;
  }
  const tracesUrl = traces ?? `${raw.replace(/\/+$/, '')}/v1/traces`;
  return { tracesUrl, serviceName: reader.pattern('OTEL_SERVICE_NAME', /^\S{1,200}$/, 'must be a name (1..200 characters, no whitespace)') ?? 'auth-gateway' };
}

/**
 * The default of the per-address start and callback limits. A budget per address is shared by
 * everyone behind that address, so it is sized for the largest population that honestly shares
 * one, not for one person: 20,000 people behind one egress address (a large company, a campus, a
 * mobile carrier's NAT) all signing in to three platforms within the first ten minutes of a
 * working day make 6,000 starts (and callbacks) a minute. What the limit still does: a single
 * runaway source (a script in a loop, a redirect loop in a broken back end) writes at most 100
 * login transactions a second. docs/operations.md#rate-limits.
 */
const START_CALLBACK_PER_MINUTE = 6000;

/** Variables that no longer do anything: set, they are reported at boot (Config.warnings), never refused. */
const RETIRED: Record<string, string> = {
  RATE_LIMIT_EXCHANGE_FAILURES_PER_MINUTE:
    'RATE_LIMIT_EXCHANGE_FAILURES_PER_MINUTE is no longer used and is ignored: failed exchanges are not rate limited (a stranger could spend the budget of the platform back end that relays them); they are counted in gateway_handoffs_invalid_total and gateway_handoffs_refused_total. Remove the variable',
};

/**
 * OUTBOUND_ALLOWED_PRIVATE_RANGES: comma-separated IP addresses and CIDR ranges, each inside a
 * private block (or, outside production, loopback); unset or empty lists none. Loopback is
 * allowed without listing it only where the dev stack runs (no OIDC_ISSUER, not production):
 * its demo platforms receive their logout tokens on localhost. Read the same way by the service
 * and the operator CLI, so both accept the same backchannelLogoutUrl.
 */
function readOutbound(reader: Reader, isProduction: boolean): OutboundPolicy {
  const ranges: string[] = [];
  for (const entry of (reader.raw('OUTBOUND_ALLOWED_PRIVATE_RANGES') ?? '').split(',').map((part) => part.trim()).filter(Boolean)) {
    const problem = allowedRangeProblem(entry, { isProduction });
    if (problem !== null) reader.problems.push(`OUTBOUND_ALLOWED_PRIVATE_RANGES entry "${entry}" is refused: ${problem}`);
    else ranges.push(entry);
  }
  return { allowedPrivateRanges: [...new Set(ranges)], allowLoopback: !isProduction && reader.raw('OIDC_ISSUER') === undefined };
}

/**
 * SHUTDOWN_GRACE_SECONDS in production when unset. With 0 the listener closed at SIGTERM while
 * balancers still wrote requests on their idle keep-alive connections, and those were reset (a
 * rolling restart lost 1 of 2,578 logins; 0 of 2,931 with 2 s). Development and tests keep 0, so
 * Ctrl-C and a test's stop are immediate.
 */
export const DEFAULT_PRODUCTION_SHUTDOWN_GRACE_SECONDS = 5;

/** One limit a minute: RATE_LIMIT_<NAME>_PER_MINUTE, 1..100000. */
function perMinute(reader: Reader, name: string, fallback: number): RateLimit {
  return { points: reader.integer(`RATE_LIMIT_${name}_PER_MINUTE`, fallback, 1, 100_000), durationSeconds: 60 };
}

function configWarnings(reader: Reader, isProduction: boolean): string[] {
  const warnings = Object.entries(RETIRED).filter(([name]) => reader.raw(name) !== undefined).map(([, warning]) => warning);
  // Behind a load balancer every request's peer is the balancer: without TRUSTED_PROXIES all
  // clients share one address's start and callback budget, and the session list shows the balancer.
  if (isProduction && reader.raw('TRUSTED_PROXIES') === undefined) {
    warnings.push('TRUSTED_PROXIES is unset: every client is counted by the address of its TCP peer. Behind a load balancer or reverse proxy that is the proxy, so all clients share one start and callback budget (RATE_LIMIT_START_PER_MINUTE, RATE_LIMIT_CALLBACK_PER_MINUTE) and the session list shows the proxy\'s address. List the proxies in TRUSTED_PROXIES (IP addresses or CIDR ranges)');
  }
  return warnings;
}

export function loadConfig(env: Env = process.env): Config {
  const reader = new Reader(env);
  const nodeEnv = reader.oneOf<NodeEnv>('NODE_ENV', 'development', ['development', 'test', 'production']);
  const isProduction = nodeEnv === 'production';
  const port = reader.integer('PORT', 8080, 0, 65535);
  const publicBaseUrl = reader.url('PUBLIC_BASE_URL', `http://localhost:${port}`);
  const accountCenterUrl = reader.url('ACCOUNT_CENTER_URL', 'http://localhost:3000');

  const issuer = reader.url('OIDC_ISSUER', null);
  const scopes = (reader.raw('OIDC_SCOPES') ?? 'openid profile email').split(/\s+/).filter(Boolean);
  if (!scopes.includes('openid')) reader.problems.push('OIDC_SCOPES is refused: must include "openid"');

  const config: Config = {
    nodeEnv,
    isProduction,
    port,
    listenHost: readListenHost(reader, !isProduction && !issuer),
    publicBaseUrl,
    databaseUrl: readDatabaseUrl(reader),
    shutdownGraceSeconds: reader.integer('SHUTDOWN_GRACE_SECONDS', isProduction ? DEFAULT_PRODUCTION_SHUTDOWN_GRACE_SECONDS : 0, 0, 120),
    databaseStatementTimeoutMs: reader.integer('DATABASE_STATEMENT_TIMEOUT_MS', DEFAULT_STATEMENT_TIMEOUT_MS, 0, 600_000),
    databasePreparedStatements: reader.oneOf('DATABASE_PREPARED_STATEMENTS', 'true', ['true', 'false']) === 'true',
    oidc: {
      issuer,
      clientId: reader.string('OIDC_CLIENT_ID', null),
      clientSecret: reader.string('OIDC_CLIENT_SECRET', null),
      scopes,
      accessTokenAudience: reader.string('OIDC_ACCESS_TOKEN_AUDIENCE', null),
      trustedClientIds: readList(reader, 'OIDC_TRUSTED_CLIENT_IDS'),
      permissionsFrom: reader.oneOf<PermissionsSource>('OIDC_PERMISSIONS_FROM', 'scope', ['scope', 'zitadel-roles']),
      centralClientIds: readList(reader, 'OIDC_CENTRAL_CLIENT_IDS'),
      platformClaim: reader.pattern('OIDC_PLATFORM_CLAIM', CLAIM_NAME, 'must be a claim name (1..200 characters, no whitespace)') ?? 'platform_key',
      secondFactorAmr: readList(reader, 'OIDC_SECOND_FACTOR_AMR') ?? ['mfa'],
      secondFactorAcr: reader.pattern('OIDC_SECOND_FACTOR_ACR', CLAIM_NAME, 'must be one acr value (1..200 characters, no whitespace)') ?? MULTI_FACTOR_ACR,
    },
    authCallbackUrl: reader.url('AUTH_CALLBACK_URL', `${publicBaseUrl}/v1/auth/callback`),
    authHandoffTtlSeconds: reader.integer('AUTH_HANDOFF_TTL_SECONDS', 60, 30, 300),
    authTransactionTtlSeconds: reader.integer('AUTH_TRANSACTION_TTL_SECONDS', 600, 60, 3600),
    authResumeTtlSeconds: reader.integer('AUTH_RESUME_TTL_SECONDS', 3600, 60, 24 * 3600),
    accountCenterUrl,
    corsOrigins: readOrigins(reader, 'CORS_ORIGINS', [new URL(accountCenterUrl).origin]),
    authPlatformKey: reader.pattern('AUTH_PLATFORM_KEY', PLATFORM_KEY, 'must match ^[A-Z][A-Z0-9_]{1,63}$'),
    gatewayCookieName: sessionCookieName(reader.pattern('GATEWAY_COOKIE_NAME', COOKIE_NAME, 'must be a cookie name token (RFC 6265), 1..64 characters') ?? 'gw_session', isProduction),
    gatewaySessionTtlSeconds: reader.integer('GATEWAY_SESSION_TTL_SECONDS', 8 * 3600, 300, 30 * 24 * 3600),
    gatewaySessionIdleSeconds: reader.integer('GATEWAY_SESSION_IDLE_SECONDS', 2 * 3600, 300, 30 * 24 * 3600),
    secureCookies: isProduction || publicBaseUrl.startsWith('https://'),
    avatarMaxBytes: reader.integer('AVATAR_MAX_BYTES', 5 * 1024 * 1024, 1024, 5 * 1024 * 1024),
    avatarS3: readAvatarS3(reader),
    idpAdmin: {
      apiUrl: reader.url('IDP_ADMIN_API_URL', null),
      token: reader.string('IDP_ADMIN_TOKEN', null),
      keyFile: reader.string('IDP_ADMIN_KEY_FILE', null),
    },
    accountRetentionDays: reader.integer('ACCOUNT_RETENTION_DAYS', 30, 1, 3650),
    encryptionKeys: reader.string('ENCRYPTION_KEYS', null),
    gatewaySigningKeys: readSigningKeys(reader),
    logLevel: reader.oneOf<LogLevel>('LOG_LEVEL', nodeEnv === 'test' ? 'silent' : 'info', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
    rateLimits: {
      start: perMinute(reader, 'START', START_CALLBACK_PER_MINUTE),
      callback: perMinute(reader, 'CALLBACK', START_CALLBACK_PER_MINUTE),
      passwordChange: perMinute(reader, 'PASSWORD_CHANGE', 5),
      adminWrite: perMinute(reader, 'ADMIN_WRITES', 60),
    },
    trustedProxies: readTrustedProxies(reader),
    devIdpPort: reader.integer('DEV_IDP_PORT', 9090, 0, 65535),
    demoBffPort: reader.integer('DEMO_BFF_PORT', 3001, 0, 65535),
    metricsPort: reader.raw('METRICS_PORT') === undefined ? null : reader.integer('METRICS_PORT', 0, 1, 65535),
    metricsToken: readSecretToken(reader, 'METRICS_TOKEN'),
    redisUrl: readRedisUrl(reader),
    tracing: readTracing(reader),
    warnings: configWarnings(reader, isProduction),
    outbound: readOutbound(reader, isProduction),
  };


  if (isProduction) {
    // Production never falls back to the embedded database, the dev identity
    // provider or the published development key ring, and speaks only https.
    if (reader.raw('DATABASE_URL') === undefined) reader.problems.push('DATABASE_URL is required when NODE_ENV=production');
    if (!config.encryptionKeys) reader.problems.push('ENCRYPTION_KEYS is required when NODE_ENV=production');
    if (!config.gatewaySigningKeys && reader.raw('GATEWAY_SIGNING_KEYS') === undefined) {
      reader.problems.push('GATEWAY_SIGNING_KEYS is required when NODE_ENV=production (kid:base64url(PKCS#8 DER of an EC P-256 key), see docs/configuration.md)');
    }
    // AUTH_CALLBACK_URL shares PUBLIC_BASE_URL's origin (checked below), so its scheme too.
    const mustBeHttps: [string, string | null][] = [
      ['PUBLIC_BASE_URL', config.publicBaseUrl],
      ['ACCOUNT_CENTER_URL', config.accountCenterUrl],
      ['OIDC_ISSUER', config.oidc.issuer],
    ];
    for (const [name, value] of mustBeHttps) {
      if (value !== null && !value.startsWith('https://')) reader.problems.push(`${name} must be https when NODE_ENV=production`);
    }
    // A page served over http can be changed by anyone on its network; it must not call the API with the person's cookie.
    // (The default, ACCOUNT_CENTER_URL's origin, is checked as that variable above.)
    const httpOrigins = reader.raw('CORS_ORIGINS') === undefined ? [] : config.corsOrigins.filter((origin) => !origin.startsWith('https://'));
    if (httpOrigins.length > 0) reader.problems.push(`CORS_ORIGINS must list only https origins when NODE_ENV=production (refused: ${httpOrigins.join(', ')})`);
  }
  // The published development key ring protects nothing: it is accepted only while the
  // service runs its own dev stack (embedded PostgreSQL and the dev identity provider).
  const ownDevStack = !isProduction && !config.oidc.issuer && !config.databaseUrl;
  if (config.encryptionKeys !== null && containsDevEncryptionKey(config.encryptionKeys) && !ownDevStack) {
    reader.problems.push('ENCRYPTION_KEYS is refused: the published development key ring is only for the embedded dev stack');
  } else if (!config.encryptionKeys && !ownDevStack && !isProduction) {
    reader.problems.push('ENCRYPTION_KEYS is required when OIDC_ISSUER or DATABASE_URL is set (the published development key ring is only for the embedded dev stack)');
  }
  if (config.idpAdmin.token && config.idpAdmin.keyFile) {
    reader.problems.push('IDP_ADMIN_TOKEN and IDP_ADMIN_KEY_FILE are both set: the identity provider admin API takes one of them');
  }
  // The login binding cookie set by start (on PUBLIC_BASE_URL) must reach the callback.
  if (new URL(config.authCallbackUrl).origin !== new URL(config.publicBaseUrl).origin) {
    reader.problems.push(`AUTH_CALLBACK_URL must be on the gateway's own origin ${new URL(config.publicBaseUrl).origin} (the login binding cookie set at start must reach it)`);
  }
  if (issuer && (!config.oidc.clientId || !config.oidc.clientSecret) && !isProduction) {
    reader.problems.push('OIDC_CLIENT_ID and OIDC_CLIENT_SECRET are required when OIDC_ISSUER is set');
  }
  if (HOST_PREFIX.test(config.gatewayCookieName) && !config.secureCookies) {
    reader.problems.push('GATEWAY_COOKIE_NAME with the __Host- prefix needs Secure cookies: set an https PUBLIC_BASE_URL, or a name without the prefix');
  }
  if (config.metricsPort !== null && config.metricsPort === config.port) {
    reader.problems.push(`METRICS_PORT=${config.metricsPort} is refused: the metrics listener needs a port of its own, not PORT`);
  }
  if (!config.corsOrigins.includes(new URL(accountCenterUrl).origin)) {
    reader.problems.push(`CORS_ORIGINS must include the account center origin ${new URL(accountCenterUrl).origin}`);
  }

  if (reader.problems.length > 0) throw new ConfigError(reader.problems);
  return deepFreeze(config);
}

/** What the tools that only touch the database need (migrations, the operator CLI). */
export interface DatabaseToolConfig {
  readonly nodeEnv: NodeEnv;
  readonly isProduction: boolean;
  readonly databaseUrl: string | null;
  readonly logLevel: LogLevel;
  /** The service's outbound rule, so `platforms create/update` accept the backchannelLogoutUrl the API would. */
  readonly outbound: OutboundPolicy;
}

/**
 * The database settings alone: `node scripts/migrate.ts` and the operator CLI need only
 * DATABASE_URL (and NODE_ENV, LOG_LEVEL), never the service's keys or public URLs.
 */
export function loadDatabaseToolConfig(env: Env = process.env): DatabaseToolConfig {
  const reader = new Reader(env);
  const nodeEnv = reader.oneOf<NodeEnv>('NODE_ENV', 'development', ['development', 'test', 'production']);
  const config: DatabaseToolConfig = {
    nodeEnv,
    isProduction: nodeEnv === 'production',
    databaseUrl: readDatabaseUrl(reader),
    logLevel: reader.oneOf<LogLevel>('LOG_LEVEL', nodeEnv === 'test' ? 'silent' : 'info', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
    outbound: readOutbound(reader, nodeEnv === 'production'),
  };
  if (config.isProduction && reader.raw('DATABASE_URL') === undefined) reader.problems.push('DATABASE_URL is required when NODE_ENV=production');
  if (reader.problems.length > 0) throw new ConfigError(reader.problems);
  return Object.freeze(config);
}

/**
 * The key ring of `keys status` and `keys rotate-data` (the only CLI commands that need it):
 * ENCRYPTION_KEYS, exactly as the service reads it; the published development ring only where
 * the service would use it too (not in production).
 */
export function loadKeyRingSpec(env: Env = process.env): string {
  const reader = new Reader(env);
  const isProduction = reader.oneOf<NodeEnv>('NODE_ENV', 'development', ['development', 'test', 'production']) === 'production';
  const spec = reader.string('ENCRYPTION_KEYS', null);
  if (!spec && (isProduction || reader.string('DATABASE_URL', null))) {
    reader.problems.push('ENCRYPTION_KEYS is required with NODE_ENV=production or DATABASE_URL (the published development key ring is only for the embedded dev stack)');
  }
  if (reader.problems.length > 0) throw new ConfigError(reader.problems);
  return spec ?? DEV_ENCRYPTION_KEYS;
}

/** True when the flow endpoints can run: in production a missing OIDC client answers 503. */
export function oidcClientConfigured(config: Config): boolean {
  return Boolean(config.oidc.issuer && config.oidc.clientId && config.oidc.clientSecret);
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}
