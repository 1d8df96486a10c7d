// Rate limits shared by every instance of the gateway: the counters live in the gateway's
// PostgreSQL (table `rate_limits`, migration 20261122000800), through rate-limiter-flexible's
// PostgreSQL store on the knex pool. The limits and their defaults are in the config module
// (RATE_LIMIT_*_PER_MINUTE); docs/operations.md lists them.
//
// Keys are `<prefix>:<SHA-256 of the subject>`: fixed length, and no IP address, client id or
// user id in the table. An IPv6 client is counted by its /64 network (one subscriber's
// allocation), an IPv4 client by its address.
//
// The store failing (the database down) is not a refusal: its error goes on to the database
// error handling (503 DATABASE_UNAVAILABLE).

import { createHash } from 'node:crypto';
import { isIP } from 'node:net';
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';

import type { AppDeps } from '../deps.ts';
import type { Db } from '../db/knex.ts';
import type { RateLimit, RateLimitsConfig } from '../config/index.ts';
import type { OperationId, Principal } from '../api/types.ts';
import { ApiError } from '../errors/catalogue.ts';
import { normalizeAddress } from '../security/clientAddress.ts';
import { countRateLimitRefusal } from '../observability/metrics.ts';

export type LimitName = keyof RateLimitsConfig;

/** The key prefix of each limit in `rate_limits` (password_change predates this module). */
const PREFIXES: Record<LimitName, string> = {
  start: 'auth_start',
  callback: 'auth_callback',
  failedExchange: 'exchange_failure',
  passwordChange: 'password_change',
  adminWrite: 'admin_write',
};

/** What a refused caller is told (the 429 problem's detail). */
const WHAT: Record<LimitName, string> = {
  start: 'Too many logins started from this address.',
  callback: 'Too many login callbacks from this address.',
  failedExchange: 'Too many failed exchanges for this client id.',
  passwordChange: 'Too many password change attempts.',
  adminWrite: 'Too many administrative changes by this caller.',
};

type Deps = Pick<AppDeps, 'db' | 'config'>;

const limiters = new WeakMap<Db, Map<string, RateLimiterPostgres>>();

function limiterOf(deps: Deps, name: LimitName): { limiter: RateLimiterPostgres; limit: RateLimit } {
  const limit = deps.config.rateLimits[name];
  let byLimit = limiters.get(deps.db);
  if (!byLimit) {
    byLimit = new Map();
    limiters.set(deps.db, byLimit);
  }
  const id = `${name}:${limit.points}/${limit.durationSeconds}`;
  let limiter = byLimit.get(id);
  if (!limiter) {
    limiter = new RateLimiterPostgres({
      storeClient: deps.db,
      storeType: 'knex',
      tableName: 'rate_limits',
      tableCreated: true, // the migration creates it; the service never runs DDL at request time
      keyPrefix: PREFIXES[name],
      points: limit.points,
      duration: limit.durationSeconds,
    });
    byLimit.set(id, limiter);
  }
  return { limiter, limit };
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
  try {
    await limiterOf(deps, name).limiter.consume(digest(subject), 1);
  } catch (rejection) {
    if (!(rejection instanceof RateLimiterRes)) throw rejection; // the store failed: the database error handling applies
    throw refusal(deps, name, rejection.msBeforeNext);
  }
}

/** Refuses (429) a subject whose budget is spent, without counting anything. */
export async function refuseIfRateLimited(deps: Deps, name: LimitName, subject: string): Promise<void> {
  const { limiter, limit } = limiterOf(deps, name);
  const state = await limiter.get(digest(subject));
  if (state && state.consumedPoints >= limit.points && state.msBeforeNext > 0) throw refusal(deps, name, state.msBeforeNext);
}

/** Counts one failure of a subject (for limits that count only failures), never refusing. */
export async function recordRateLimitedFailure(deps: Deps, name: LimitName, subject: string): Promise<void> {
  await limiterOf(deps, name).limiter.penalty(digest(subject), 1);
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
  'createOnboardingField',
  'updateOnboardingField',
  'archiveOnboardingField',
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
