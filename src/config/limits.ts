// The rate limits (RATE_LIMIT_*_PER_MINUTE), where their counters live (REDIS_URL) and whom they
// count (TRUSTED_PROXIES: the client address behind a proxy).

import { parseProxyEntry } from '../security/clientAddress.ts';
import type { Reader } from './reader.ts';

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

/**
 * The default of the per-address start and callback limits. A budget per address is shared by
 * everyone behind that address, so it is sized for the largest population that honestly shares
 * one, not for one person: 20,000 people behind one egress address (a large company, a campus, a
 * mobile carrier's NAT) all signing in to three platforms within the first ten minutes of a
 * working day make 6,000 starts (and callbacks) a minute. What the limit still does: a single
 * runaway source (a script in a loop, a redirect loop in a broken back end) writes at most 100
 * login transactions a second. docs/operations.md#rate-limits.
 */
export const START_CALLBACK_PER_MINUTE = 6000;

/** Variables that no longer do anything: set, they are reported at boot (Config.warnings), never refused. */
export const RETIRED: Record<string, string> = {
  RATE_LIMIT_EXCHANGE_FAILURES_PER_MINUTE:
    'RATE_LIMIT_EXCHANGE_FAILURES_PER_MINUTE is no longer used and is ignored: failed exchanges are not rate limited (a stranger could spend the budget of the platform back end that relays them); they are counted in gateway_handoffs_invalid_total and gateway_handoffs_refused_total. Remove the variable',
};

/** One limit a minute: RATE_LIMIT_<NAME>_PER_MINUTE, 1..100000. */
export function perMinute(reader: Reader, name: string, fallback: number): RateLimit {
  return { points: reader.integer(`RATE_LIMIT_${name}_PER_MINUTE`, fallback, 1, 100_000), durationSeconds: 60 };
}

/** TRUSTED_PROXIES: IP addresses and CIDR ranges, comma separated; unset or empty trusts none. */
export function readTrustedProxies(reader: Reader): string[] {
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
export function readRedisUrl(reader: Reader): string | null {
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

export function configWarnings(reader: Reader, isProduction: boolean): string[] {
  const warnings = Object.entries(RETIRED).filter(([name]) => reader.raw(name) !== undefined).map(([, warning]) => warning);
  // Behind a load balancer every request's peer is the balancer: without TRUSTED_PROXIES all
  // clients share one address's start and callback budget, and the session list shows the balancer.
  if (isProduction && reader.raw('TRUSTED_PROXIES') === undefined) {
    warnings.push('TRUSTED_PROXIES is unset: every client is counted by the address of its TCP peer. Behind a load balancer or reverse proxy that is the proxy, so all clients share one start and callback budget (RATE_LIMIT_START_PER_MINUTE, RATE_LIMIT_CALLBACK_PER_MINUTE) and the session list shows the proxy\'s address. List the proxies in TRUSTED_PROXIES (IP addresses or CIDR ranges)');
  }
  return warnings;
}
