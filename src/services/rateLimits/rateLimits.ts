// Rate limits shared by every instance of the gateway. The counters live in the gateway's
// PostgreSQL (table `rate_limits`, migration 20261122000800), through rate-limiter-flexible's
// PostgreSQL store on the knex pool; or, when REDIS_URL is set, in Redis (RateLimiterRedis on an
// ioredis client), with the PostgreSQL store as its insurance limiter. The limits and their
// defaults are in the config module (RATE_LIMIT_*_PER_MINUTE); docs/operations.md lists them.
//
// Keys are `<prefix>:<SHA-256 of the subject>` (in Redis `auth-gateway:<prefix>:<digest>`): fixed
// length, and no IP address, client id or user id in the store. An IPv6 client is counted by its
// /64 network (one subscriber's allocation), an IPv4 client by its address.
//
// Redis unreachable, refused or too slow (REDIS_COMMAND_TIMEOUT_MS): the same limits are counted
// in PostgreSQL until it answers again. Never unlimited (fail open), never a login outage for a
// store whose only job is counting (fail closed): the fallback store is the one every instance
// already shares, so the budget stays the documented one across instances. The PostgreSQL store
// failing too (the database down) is not a refusal: its error goes on to the database error
// handling (503 DATABASE_UNAVAILABLE).

import { createHash } from 'node:crypto';
import { isIP } from 'node:net';
import { once } from 'node:events';
import { RateLimiterPostgres, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';

import type { AppDeps } from '../../deps.ts';
import type { Db } from '../../db/knex.ts';
import { findActivePlatformByKey, findActivePlatformByKeyCounting, type PlatformRow } from '../registry/index.ts';
import { countRateLimitSql, type StatementRateLimit } from './repository.ts';
import type { RateLimit, RateLimitsConfig } from '../../config/index.ts';
import type { OperationId, Principal } from '../../domain/types.ts';
import { ApiError } from '../../errors/catalogue.ts';
import { normalizeAddress } from '../../security/clientAddress.ts';
import { countRateLimitFallback, countRateLimitRefusal } from '../../observability/metrics.ts';
import { breakerOf, closeBreaker } from './redisBreaker.ts';

export type LimitName = keyof RateLimitsConfig;

/** The key prefix of each limit in `rate_limits` (password_change predates this module). */
const PREFIXES: Record<LimitName, string> = {
  start: 'auth_start',
  callback: 'auth_callback',
  passwordChange: 'password_change',
  adminWrite: 'admin_write',
};

/** What a refused caller is told (the 429 problem's detail). */
const WHAT: Record<LimitName, string> = {
  start: 'Too many logins started from this address.',
  callback: 'Too many login callbacks from this address.',
  passwordChange: 'Too many password change attempts.',
  adminWrite: 'Too many administrative changes by this caller.',
};

type Deps = Pick<AppDeps, 'db' | 'config' | 'redis' | 'tracing'>;

/** Namespace of the gateway's keys in a Redis that may be shared with other services. */
export const REDIS_KEY_PREFIX = 'auth-gateway';
/** Connecting (TCP and handshake) to Redis gives up after this long, then retries in the background. */
export const REDIS_CONNECT_TIMEOUT_MS = 2000;
/** A Redis command not answered within this long falls back to PostgreSQL (a frozen or partitioned Redis). */
export const REDIS_COMMAND_TIMEOUT_MS = 500;

/** Limiters by fallback database, then by store (the Redis client, or the database itself), then by limit. */
const limiters = new WeakMap<Db, WeakMap<object, Map<string, RateLimiterAbstract>>>();

/** The PostgreSQL store: the store of its own, or Redis's insurance (then each use is counted as a fallback). */
function postgresLimiter(db: Db, name: LimitName, limit: RateLimit, insurance: boolean, redisFailed?: () => void): RateLimiterPostgres {
  const options = {
    storeClient: db,
    storeType: 'knex',
    tableName: 'rate_limits',
    tableCreated: true, // the migration creates it; the service never runs DDL at request time
    keyPrefix: PREFIXES[name],
    points: limit.points,
    duration: limit.durationSeconds,
  };
  if (!insurance) return committedAsynchronously(new RateLimiterPostgres(options));
  // rate-limiter-flexible calls the insurance limiter only when the Redis store failed (and the
  // breaker below calls it while open): each call is a fallback, and tells the breaker.
  const fallback = () => {
    countRateLimitFallback(PREFIXES[name], db);
    redisFailed?.();
  };
  return committedAsynchronously(new (class extends RateLimiterPostgres {
    override consume(...args: Parameters<RateLimiterPostgres['consume']>) {
      fallback();
      return super.consume(...args);
    }
  })(options));
}

/** What committedAsynchronously replaces in rate-limiter-flexible's PostgreSQL store (lib/RateLimiterPostgres.js). */
interface PostgresStoreInternals {
  tableCreated: boolean;
  _getTableIdentifier(): string;
  _query(query: { name: string; text: string; values: unknown[] }): Promise<unknown>;
  _upsert(key: string, points: number, msDuration: number, forceExpire?: boolean): Promise<unknown>;
}

/**
 * The store's counting statement replaced by countRateLimitSql (src/services/rateLimits/repository.ts):
 * the same row and arithmetic, committed asynchronously (why: that file). The library has no
 * option for it, so its `_upsert` (key, points, msDuration, forceExpire) is replaced. If an
 * update stopped calling it, counting would fall back to the library's own synchronous
 * statement (slower, still correct); if it changed its arguments, the counts and 429s that
 * test/api/rateLimits.test.ts checks would go wrong. Pin the version (package.json) and re-read
 * lib/RateLimiterPostgres.js on an upgrade.
 */
function committedAsynchronously<T extends RateLimiterPostgres>(limiter: T): T {
  const store = limiter as unknown as PostgresStoreInternals;
  store._upsert = function (key: string, points: number, msDuration: number, forceExpire = false) {
    if (!this.tableCreated) return Promise.reject(new Error('Table is not created yet'));
    const newExpire = msDuration > 0 ? Date.now() + msDuration : null;
    return this._query({
      name: forceExpire ? 'gw-upsert-force-async' : 'gw-upsert-async',
      text: countRateLimitSql(this._getTableIdentifier(), { key: '$1', points: '$2', newExpire: '$3', now: '$4' }, forceExpire),
      values: forceExpire ? [key, points, newExpire] : [key, points, newExpire, Date.now()],
    });
  };
  return limiter;
}

function limiterOf(deps: Deps, name: LimitName): { limiter: RateLimiterAbstract; limit: RateLimit } {
  const limit = deps.config.rateLimits[name];
  const redis = deps.config.redisUrl ? deps.redis : null;
  if (deps.config.redisUrl && !redis) throw new Error('REDIS_URL is set but the app has no Redis client (openRateLimitRedis)');
  let byStore = limiters.get(deps.db);
  if (!byStore) {
    byStore = new WeakMap();
    limiters.set(deps.db, byStore);
  }
  const store: object = redis ?? deps.db;
  let byLimit = byStore.get(store);
  if (!byLimit) {
    byLimit = new Map();
    byStore.set(store, byLimit);
  }
  const id = `${name}:${limit.points}/${limit.durationSeconds}`;
  let limiter = byLimit.get(id);
  if (!limiter) {
    limiter = redis
      ? new RateLimiterRedis({
          storeClient: redis,
          keyPrefix: `${REDIS_KEY_PREFIX}:${PREFIXES[name]}`,
          points: limit.points,
          duration: limit.durationSeconds,
          rejectIfRedisNotReady: true, // not connected: straight to PostgreSQL, no waiting
          insuranceLimiter: postgresLimiter(deps.db, name, limit, true, () => breakerOf(redis).failed()),
        })
      : postgresLimiter(deps.db, name, limit, false);
    byLimit.set(id, limiter);
  }
  // The breaker open: PostgreSQL at once (the Redis limiter's own insurance), without asking Redis.
  if (redis && breakerOf(redis).open) return { limiter: (limiter as RateLimiterRedis & { insuranceLimiter: RateLimiterAbstract }).insuranceLimiter, limit };
  return { limiter, limit };
}

/**
 * The Redis client of the rate limits (REDIS_URL). ioredis is loaded only here. Commands are
 * never queued while disconnected (they fail at once, and the limiters count in PostgreSQL),
 * time out after REDIS_COMMAND_TIMEOUT_MS, and the client reconnects in the background (at most
 * every 2 s). Waits up to REDIS_CONNECT_TIMEOUT_MS for the first connection, never longer: the
 * service starts with Redis down. State changes are logged once each, without the URL.
 */
export async function openRateLimitRedis(url: string, logger: Pick<Logger, 'info' | 'warn'>): Promise<Redis> {
  const { Redis } = await import('ioredis');
  const redis = new Redis(url, {
    connectTimeout: REDIS_CONNECT_TIMEOUT_MS,
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    retryStrategy: (times) => Math.min(times * 200, 2000),
  });
  const breaker = breakerOf(redis, logger);
  let up: boolean | null = null;
  redis.on('ready', () => {
    breaker.close(); // connected again: Redis answers
    if (up !== true) logger.info('Redis is connected: rate limits are counted there');
    up = true;
  });
  redis.on('error', (error: Error & { code?: string }) => {
    if (up !== false) logger.warn({ reason: error.code ?? error.message }, 'Redis is unavailable: rate limits are counted in PostgreSQL until it is back');
    up = false;
  });
  const timer = new AbortController();
  const wait = setTimeout(() => timer.abort(), REDIS_CONNECT_TIMEOUT_MS);
  await once(redis, 'ready', { signal: timer.signal }).catch(() => {});
  clearTimeout(wait);
  return redis;
}

/** Shutdown: QUIT (pending replies answered first), bounded to a second; then the socket closes and reconnecting stops. */
export async function closeRateLimitRedis(redis: Redis): Promise<void> {
  closeBreaker(redis);
  if (redis.status === 'ready') {
    await Promise.race([redis.quit().catch(() => undefined), new Promise((resolve) => setTimeout(resolve, 1000).unref())]);
  }
  redis.disconnect(false);
}

/** The readiness check of Redis: informational (a Redis down does not make the instance unready, see above). */
export async function redisReadiness(redis: Redis): Promise<{ status: 'up' | 'down'; latencyMs: number | null; reason: string | null }> {
  if (redis.status !== 'ready') return { status: 'down', latencyMs: null, reason: redis.status === 'connecting' || redis.status === 'reconnecting' ? 'not connected (reconnecting)' : 'not connected' };
  const started = performance.now();
  try {
    await redis.ping();
    return { status: 'up', latencyMs: Math.round((performance.now() - started) * 10) / 10, reason: null };
  } catch (error) {
    return { status: 'down', latencyMs: null, reason: /timed? ?out/i.test((error as Error).message) ? 'timed out' : 'unreachable' };
  }
}

const digest = (subject: string) => createHash('sha256').update(subject, 'utf8').digest('base64url');

function refusal(deps: Deps, name: LimitName, msBeforeNext: number): ApiError {
  countRateLimitRefusal(PREFIXES[name], deps.db); // gateway_rate_limit_refusals_total{limiter}
  const retryAfter = Math.max(1, Math.ceil(msBeforeNext / 1000));
  return new ApiError('RATE_LIMITED', `${WHAT[name]} Try again in ${retryAfter} seconds.`, {
    headers: { 'Retry-After': String(retryAfter) },
  });
}

/**
 * Counts one attempt of `subject` against the limit, or refuses it with 429 RATE_LIMITED and
 * Retry-After (whole seconds, at least 1).
 */
export async function consumeRateLimit(deps: Deps, name: LimitName, subject: string): Promise<void> {
  if (deps.tracing) return deps.tracing.span(`ratelimit ${PREFIXES[name]}`, storeAttributes(deps), () => consume(deps, name, subject));
  return consume(deps, name, subject);
}

/** Span attributes of a rate-limit check (traces): the limiter's store, never its key. */
const storeAttributes = (deps: Deps) => ({ 'gateway.rate_limit.store': deps.config.redisUrl ? 'redis' : 'postgresql' });

async function consume(deps: Deps, name: LimitName, subject: string): Promise<void> {
  try {
    await limiterOf(deps, name).limiter.consume(digest(subject), 1);
  } catch (rejection) {
    if (!(rejection instanceof RateLimiterRes)) throw rejection; // the store failed: the database error handling applies
    throw refusal(deps, name, rejection.msBeforeNext);
  }
}

/**
 * The limit `name` of `subject` for the statement of the step it guards. With the counters in
 * PostgreSQL: the row that statement counts in the same round trip (StatementRateLimit), and the
 * statement answers whether the budget was spent (refuseIfLimitReached). With Redis: counted
 * there now (429 if spent), and null.
 */
export async function statementRateLimit(deps: Deps, name: LimitName, subject: string): Promise<StatementRateLimit | null> {
  if (deps.config.redisUrl) {
    await consumeRateLimit(deps, name, subject);
    return null;
  }
  const limit = deps.config.rateLimits[name];
  return { key: `${PREFIXES[name]}:${digest(subject)}`, points: limit.points, durationMs: limit.durationSeconds * 1000 };
}

/** A statement found the budget of `name` spent (its window's end, ms since the epoch): 429 RATE_LIMITED. */
export function refuseIfLimitReached(deps: Deps, name: LimitName, rateLimitedUntil: number | null): void {
  if (rateLimitedUntil !== null) throw refusal(deps, name, Math.max(rateLimitedUntil - Date.now(), 0));
}

/**
 * GET /v1/auth/start's count and its platform: with the counters in PostgreSQL, one statement
 * counts the start against its address's limit and reads the platform
 * (findActivePlatformByKeyCounting); with Redis, the Redis count, then the read. A start over
 * the limit is refused (429) before its platform is looked at, as when the count came first.
 */
export async function consumeStartAndFindPlatform(deps: Deps, subject: string, platformKey: string): Promise<PlatformRow | undefined> {
  const limit = await statementRateLimit(deps, 'start', subject);
  if (!limit) return findActivePlatformByKey(deps.db, platformKey);
  const countAndRead = async () => {
    const { platform, rateLimitedUntil } = await findActivePlatformByKeyCounting(deps.db, platformKey, limit);
    refuseIfLimitReached(deps, 'start', rateLimitedUntil);
    return platform;
  };
  return deps.tracing ? deps.tracing.span(`ratelimit ${PREFIXES.start}`, storeAttributes(deps), countAndRead) : countAndRead();
}

/** The rate-limit subject of a client address: the address, or the /64 network of an IPv6 one. */
export function addressSubject(address: string | undefined): string {
  if (!address) return 'unknown';
  const normalized = normalizeAddress(address);
  if (isIP(normalized) !== 6) return normalized;
  return `${expandIpv6(normalized).slice(0, 4).join(':')}::/64`;
}

function expandIpv6(address: string): string[] {
  const [head = '', tail = ''] = address.split('%')[0]!.toLowerCase().split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = address.includes('::') ? [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right] : left;
  return groups.map((group) => group.replace(/^0+(?=.)/, ''));
}

/** The administrative writes, limited per caller (revokeSession only for another user's session: see there). */
export const ADMIN_WRITE_OPERATIONS: ReadonlySet<OperationId> = new Set<OperationId>([
  'createPlatform',
  'updatePlatform',
  'activatePlatform',
  'deactivatePlatform',
  'rotatePlatformCredentials',
  'setPlatformBranding',
  'clearPlatformBranding',
  'uploadPlatformLogo',
  'deletePlatformLogo',
  'createOnboardingField',
  'updateOnboardingField',
  'archiveOnboardingField',
  // An operator's support access requests (issue 35): each one reaches a person.
  'requestSupportAccess',
]);

/** The caller of an administrative write: its subject at the identity provider. */
export function callerSubject(principal: Principal): string {
  return principal.sub;
}

/** Counts an administrative write of the caller (see ADMIN_WRITE_OPERATIONS), or refuses it. */
export async function limitAdministrativeWrite(deps: Deps, operationId: OperationId, principal: Principal | null): Promise<void> {
  if (!principal || !ADMIN_WRITE_OPERATIONS.has(operationId)) return;
  await consumeRateLimit(deps, 'adminWrite', callerSubject(principal));
}
