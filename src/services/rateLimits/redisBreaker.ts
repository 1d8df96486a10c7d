// The circuit breaker in front of the rate limits' Redis (src/services/rateLimits/rateLimits.ts).
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';

/** Redis failures (each a check counted in PostgreSQL) within REDIS_BREAKER_WINDOW_MS that open the breaker. */
export const REDIS_BREAKER_FAILURES = 3;
export const REDIS_BREAKER_WINDOW_MS = 10_000;
/** While the breaker is open, Redis is probed (PING) this often, in the background. */
export const REDIS_BREAKER_PROBE_MS = 1000;

/**
 * A circuit breaker in front of Redis. A frozen or partitioned Redis answers nothing, so every
 * check waited REDIS_COMMAND_TIMEOUT_MS before falling back: 500 ms more on every login step
 * (61 → 2.6 logins a second measured). After REDIS_BREAKER_FAILURES failures within
 * REDIS_BREAKER_WINDOW_MS the breaker opens: checks go to PostgreSQL at once, and one PING every
 * REDIS_BREAKER_PROBE_MS asks Redis in the background; the first answer closes it (so a breaker
 * opened by scattered failures of a healthy Redis costs at most a second of PostgreSQL counting).
 */
export class RedisBreaker {
  #failures = 0;
  #firstFailureAt = 0;
  #probe: NodeJS.Timeout | null = null;
  #redis: Redis;
  #log: Pick<Logger, 'info' | 'warn'> | null;

  constructor(redis: Redis, log: Pick<Logger, 'info' | 'warn'> | null) {
    this.#redis = redis;
    this.#log = log;
  }

  get open(): boolean {
    return this.#probe !== null;
  }

  failed(): void {
    if (this.open) return;
    const now = Date.now();
    if (now - this.#firstFailureAt > REDIS_BREAKER_WINDOW_MS) {
      this.#failures = 0;
      this.#firstFailureAt = now;
    }
    if (++this.#failures < REDIS_BREAKER_FAILURES) return;
    this.#log?.warn({ failures: this.#failures }, 'Redis does not answer: rate limits are counted in PostgreSQL without asking it, until a background PING answers');
    this.#probe = setInterval(() => {
      if (this.#redis.status === 'end') return this.close();
      this.#redis.ping().then(() => {
        if (!this.open) return;
        this.#log?.info('Redis answers again: rate limits are counted there');
        this.close();
      }, () => {});
    }, REDIS_BREAKER_PROBE_MS);
    this.#probe.unref();
  }

  close(): void {
    if (this.#probe) clearInterval(this.#probe);
    this.#probe = null;
    this.#failures = 0;
  }
}

const breakers = new WeakMap<Redis, RedisBreaker>();

export function breakerOf(redis: Redis, log: Pick<Logger, 'info' | 'warn'> | null = null): RedisBreaker {
  let breaker = breakers.get(redis);
  if (!breaker) {
    breaker = new RedisBreaker(redis, log);
    breakers.set(redis, breaker);
  }
  return breaker;
}

/** Shutdown: no probe left running. */
export function closeBreaker(redis: Redis): void {
  breakers.get(redis)?.close();
}
