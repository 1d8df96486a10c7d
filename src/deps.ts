import type { Logger } from 'pino';
import type { Config } from './config/index.ts';
import type { Db } from './db/knex.ts';
import type { KeyRing } from './security/crypto.ts';
import type { RelyingParty } from './oidc/relyingParty.ts';
import type { IdentityProviderAccounts } from './services/identityProvider/port.ts';
import type { Metrics } from './observability/metrics.ts';
import type { Lifecycle } from './server.ts';
import type { Redis } from 'ioredis';
import type { Tracing } from './observability/tracing.ts';

/** Everything an operation may use, built once at boot and passed down explicitly. */
export interface AppDeps {
  readonly config: Config;
  readonly db: Db;
  readonly logger: Logger;
  readonly keyRing: KeyRing;
  /** The OpenID Connect client; null when it is not configured (flow endpoints answer 503). */
  readonly oidc: RelyingParty | null;
  /** The user's account at the identity provider; null when no admin API is configured (those operations answer 503). */
  readonly idpAccounts: IdentityProviderAccounts | null;
  /**
   * Prometheus metrics (src/observability/metrics.ts). main.ts always passes the served one;
   * createApp gives an app built without one its own, so operations and services may count
   * on it through `deps.metrics?.` (tools and unit tests that build deps by hand leave it out).
   */
  readonly metrics?: Metrics;
  /** Whether this instance is draining for shutdown (src/server.ts); absent in tools and unit tests. */
  readonly lifecycle?: Lifecycle;
  /**
   * The rate limits' Redis client when REDIS_URL is set (openRateLimitRedis in
   * src/services/rateLimits/rateLimits.ts; main.ts opens it and quits it at shutdown).
   */
  readonly redis?: Redis | null;
  /**
   * OpenTelemetry tracing when OTEL_EXPORTER_OTLP_ENDPOINT is set (src/observability/tracing.ts,
   * loaded only then); absent: every hook point is one falsy check.
   */
  readonly tracing?: Tracing | null;
}
