/**
 * The one configuration module: every environment variable the service reads is
 * declared here, validated once at boot, and handed out as a frozen object.
 * A bad value stops the process with a message naming the variable and the rule.
 *
 * One module, in parts by concern: reader.ts (the reader and its problems), database.ts,
 * provider.ts (OIDC and the admin API), keysAndCookies.ts, outbound.ts (registered URLs' reach,
 * avatar storage), limits.ts (rate limits, Redis, trusted proxies), observability.ts (traces,
 * metrics) and listener.ts (host, CORS origins, shutdown grace). This file composes them into
 * Config and checks the rules that span several parts.
 */

import { containsDevEncryptionKey } from '../security/crypto.ts';
import type { OutboundPolicy } from '../security/outboundAddresses.ts';
import { schemaPattern } from '../contract.ts';
import { DEFAULT_STATEMENT_TIMEOUT_MS, readDatabaseUrl } from './database.ts';
import { readAvatarS3, readOutbound, type AvatarS3Config } from './outbound.ts';
import { readIdpAdmin, readOidc, readScopes, type IdpAdminConfig, type OidcConfig } from './provider.ts';
import { HOST_PREFIX, COOKIE_NAME, readSigningKeys, sessionCookieName } from './keysAndCookies.ts';
import { configWarnings, perMinute, readRedisUrl, readTrustedProxies, START_CALLBACK_PER_MINUTE, type RateLimitsConfig } from './limits.ts';
import { readSecretToken, readTracing, type TracingConfig } from './observability.ts';
import { DEFAULT_PRODUCTION_SHUTDOWN_GRACE_SECONDS, readListenHost, readOrigins } from './listener.ts';
import { ConfigError, readLogLevel, readNodeEnv, Reader, type Env, type LogLevel, type NodeEnv } from './reader.ts';

export { ConfigError, type LogLevel, type NodeEnv } from './reader.ts';
export { loadDatabaseToolConfig, type DatabaseToolConfig } from './database.ts';
export { MULTI_FACTOR_ACR, oidcClientConfigured, type IdpAdminConfig, type OidcConfig, type PermissionsSource } from './provider.ts';
export { loadKeyRingSpec } from './keysAndCookies.ts';
export type { AvatarS3Config } from './outbound.ts';
export type { RateLimit, RateLimitsConfig } from './limits.ts';
export type { TracingConfig } from './observability.ts';
export { DEFAULT_PRODUCTION_SHUTDOWN_GRACE_SECONDS } from './listener.ts';

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

/** A platform key, checked by the contract's PlatformKey pattern (read here, not at import: the tools that never load Config never read the contract). */
function readPlatformKey(reader: Reader, name: string): string | null {
  const pattern = schemaPattern('PlatformKey');
  return reader.pattern(name, pattern, `must match ${pattern.source}`);
}

export function loadConfig(env: Env = process.env): Config {
  const reader = new Reader(env);
  const nodeEnv = readNodeEnv(reader);
  const isProduction = nodeEnv === 'production';
  const port = reader.integer('PORT', 8080, 0, 65535);
  const publicBaseUrl = reader.url('PUBLIC_BASE_URL', `http://localhost:${port}`);
  const accountCenterUrl = reader.url('ACCOUNT_CENTER_URL', 'http://localhost:3000');

  const issuer = reader.url('OIDC_ISSUER', null);
  const scopes = readScopes(reader);

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
    oidc: readOidc(reader, issuer, scopes),
    authCallbackUrl: reader.url('AUTH_CALLBACK_URL', `${publicBaseUrl}/v1/auth/callback`),
    authHandoffTtlSeconds: reader.integer('AUTH_HANDOFF_TTL_SECONDS', 60, 30, 300),
    authTransactionTtlSeconds: reader.integer('AUTH_TRANSACTION_TTL_SECONDS', 600, 60, 3600),
    authResumeTtlSeconds: reader.integer('AUTH_RESUME_TTL_SECONDS', 3600, 60, 24 * 3600),
    accountCenterUrl,
    corsOrigins: readOrigins(reader, 'CORS_ORIGINS', [new URL(accountCenterUrl).origin]),
    authPlatformKey: readPlatformKey(reader, 'AUTH_PLATFORM_KEY'),
    gatewayCookieName: sessionCookieName(reader.pattern('GATEWAY_COOKIE_NAME', COOKIE_NAME, 'must be a cookie name token (RFC 6265), 1..64 characters') ?? 'gw_session', isProduction),
    gatewaySessionTtlSeconds: reader.integer('GATEWAY_SESSION_TTL_SECONDS', 8 * 3600, 300, 30 * 24 * 3600),
    gatewaySessionIdleSeconds: reader.integer('GATEWAY_SESSION_IDLE_SECONDS', 2 * 3600, 300, 30 * 24 * 3600),
    secureCookies: isProduction || publicBaseUrl.startsWith('https://'),
    avatarMaxBytes: reader.integer('AVATAR_MAX_BYTES', 5 * 1024 * 1024, 1024, 5 * 1024 * 1024),
    avatarS3: readAvatarS3(reader),
    idpAdmin: readIdpAdmin(reader),
    accountRetentionDays: reader.integer('ACCOUNT_RETENTION_DAYS', 30, 1, 3650),
    encryptionKeys: reader.string('ENCRYPTION_KEYS', null),
    gatewaySigningKeys: readSigningKeys(reader),
    logLevel: readLogLevel(reader, nodeEnv),
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

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}
