// The bounds that keep token introspection cheap under a flood of made-up tokens
// (src/oidc/introspectionCache.ts): a size-bounded cache with expiry, and a concurrency bound
// with a bounded, timed wait.

import { describe, expect, it } from 'vitest';
import { BoundedTtlCache, ConcurrencyLimit, ConcurrencyLimitExceeded } from '../../src/oidc/introspectionCache.ts';

describe('BoundedTtlCache', () => {
  it('never holds more than its bound, however many distinct keys arrive', () => {
    const cache = new BoundedTtlCache<string>(1_000);
    const now = Date.now();
    for (let i = 0; i < 100_000; i++) cache.set(`junk-${i}`, 'refused', now + 5_000, now);
    expect(cache.size).toBe(1_000);
    // The oldest went first; the youngest are kept.
    expect(cache.get('junk-0', now)).toBeUndefined();
    expect(cache.get('junk-99999', now)).toBe('refused');
  });

  it('forgets an entry at its expiry, and does not store one already expired', () => {
    const cache = new BoundedTtlCache<number>(10);
    const now = 1_000_000;
    cache.set('a', 1, now + 100, now);
    expect(cache.get('a', now + 99)).toBe(1);
    expect(cache.get('a', now + 100)).toBeUndefined();
    expect(cache.size).toBe(0);
    cache.set('b', 2, now, now);
    expect(cache.size).toBe(0);
  });

  it('moves a re-inserted key to the young end', () => {
    const cache = new BoundedTtlCache<number>(2);
    const now = Date.now();
    cache.set('a', 1, now + 1_000, now);
    cache.set('b', 2, now + 1_000, now);
    cache.set('a', 3, now + 1_000, now);
    cache.set('c', 4, now + 1_000, now);
    expect(cache.get('a', now)).toBe(3);
    expect(cache.get('b', now)).toBeUndefined();
  });
});

describe('ConcurrencyLimit', () => {
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it('runs at most maxActive tasks at once and serves the waiting ones in turn', async () => {
    const limit = new ConcurrencyLimit(3, 100);
    let active = 0;
    let most = 0;
    const task = async (i: number) => {
      active++;
      most = Math.max(most, active);
      await sleep(5);
      active--;
      return i;
    };
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => limit.run(() => task(i), 5_000)));
    expect(results).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(most).toBe(3);
  });

  it('refuses at once beyond maxWaiting', async () => {
    const limit = new ConcurrencyLimit(1, 2);
    const slow = () => sleep(50);
    const runs = Array.from({ length: 5 }, () => limit.run(slow, 5_000));
    const settled = await Promise.allSettled(runs);
    expect(settled.filter((s) => s.status === 'fulfilled')).toHaveLength(3);
    for (const s of settled.filter((s) => s.status === 'rejected')) {
      expect((s as PromiseRejectedResult).reason).toBeInstanceOf(ConcurrencyLimitExceeded);
    }
  });

  it('gives up a wait after waitTimeoutMs, and the slot still passes on', async () => {
    const limit = new ConcurrencyLimit(1, 10);
    const first = limit.run(() => sleep(80), 5_000);
    await expect(limit.run(async () => 'late', 10)).rejects.toBeInstanceOf(ConcurrencyLimitExceeded);
    await first;
    await expect(limit.run(async () => 'next', 10)).resolves.toBe('next');
  });

  it('frees the slot when a task fails', async () => {
    const limit = new ConcurrencyLimit(1, 0);
    await expect(limit.run(() => Promise.reject(new Error('boom')), 10)).rejects.toThrow('boom');
    await expect(limit.run(async () => 'ok', 10)).resolves.toBe('ok');
  });
});
