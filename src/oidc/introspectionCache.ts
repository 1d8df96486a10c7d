// The small pieces that keep token introspection (RFC 7662) cheap and bounded: a size-bounded
// cache with per-entry expiry, and a bound on concurrent calls with a bounded wait. Used by
// accessTokens.ts, which explains the numbers.

/** A map with a size bound and an expiry per entry. When full, the oldest insertion goes first. */
export class BoundedTtlCache<V> {
  readonly #entries = new Map<string, { value: V; expiresAt: number }>();
  readonly #maxEntries: number;

  constructor(maxEntries: number) {
    if (!Number.isInteger(maxEntries) || maxEntries < 1) throw new Error('BoundedTtlCache: maxEntries must be a positive integer');
    this.#maxEntries = maxEntries;
  }

  get size(): number {
    return this.#entries.size;
  }

  get(key: string, now = Date.now()): V | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAt <= now) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  /** Keeps `value` until `expiresAt` (epoch ms); an entry already expired is not stored. */
  set(key: string, value: V, expiresAt: number, now = Date.now()): void {
    if (expiresAt <= now) return;
    this.#entries.delete(key); // re-inserting moves the key to the young end
    if (this.#entries.size >= this.#maxEntries) {
      // Map iteration is insertion order: the first key is the oldest.
      const oldest = this.#entries.keys().next();
      if (!oldest.done) this.#entries.delete(oldest.value);
    }
    this.#entries.set(key, { value, expiresAt });
  }
}

/** Thrown when the bound is reached: too many calls waiting, or a wait that lasted too long. */
export class ConcurrencyLimitExceeded extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'ConcurrencyLimitExceeded';
  }
}

/**
 * At most `maxActive` tasks at once; up to `maxWaiting` more wait their turn (first come, first
 * served) for at most `waitTimeoutMs`. Beyond that a task is refused at once rather than queued,
 * so memory and latency stay bounded whatever arrives.
 */
export class ConcurrencyLimit {
  #active = 0;
  readonly #waiting: Array<() => void> = [];
  readonly #maxActive: number;
  readonly #maxWaiting: number;

  constructor(maxActive: number, maxWaiting: number) {
    this.#maxActive = maxActive;
    this.#maxWaiting = maxWaiting;
  }

  async run<T>(task: () => Promise<T>, waitTimeoutMs: number): Promise<T> {
    if (this.#active >= this.#maxActive) await this.#waitForTurn(waitTimeoutMs);
    else this.#active++;
    try {
      return await task();
    } finally {
      const next = this.#waiting.shift();
      if (next) next(); // the slot passes straight to the next waiter
      else this.#active--;
    }
  }

  #waitForTurn(waitTimeoutMs: number): Promise<void> {
    if (this.#waiting.length >= this.#maxWaiting) {
      return Promise.reject(new ConcurrencyLimitExceeded('too many calls waiting'));
    }
    return new Promise<void>((resolve, reject) => {
      const turn = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        const index = this.#waiting.indexOf(turn);
        if (index >= 0) this.#waiting.splice(index, 1);
        reject(new ConcurrencyLimitExceeded('waited too long for a free slot'));
      }, waitTimeoutMs);
      this.#waiting.push(turn);
    });
  }
}
