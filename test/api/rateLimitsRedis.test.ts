// Issue 13 §6: the rate limits counted in Redis when REDIS_URL is set, against a real
// redis-server (one per file) and real PostgreSQL. Two app instances with their own Redis
// clients share one budget; a refusal is 429 RATE_LIMITED with Retry-After; nothing is written
// to the PostgreSQL table `rate_limits` while Redis answers. Redis stopped or frozen: the same
// limits are counted in PostgreSQL (never unlimited, never a 5xx), readiness reports Redis down
// and stays 200, and counting returns to Redis once it is back.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import request from 'supertest';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import type { Express } from 'express';
import type { Redis } from 'ioredis';

import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { startFakeIdp, type FakeIdp } from '../helpers/fakeIdp.ts';
import { REDIS_SKIP_REASON, redisServerPath, startRedisServer, type RedisServer } from '../helpers/redisServer.ts';
import { basic, issueTestHandoff, seedPlatform } from './registryHelpers.ts';
import { loadConfig } from '../../src/config/index.ts';
import { createLogger } from '../../src/logger.ts';
import { createApp } from '../../src/app.ts';
import { generateKeyRingSpec, parseKeyRing } from '../../src/security/crypto.ts';
import { relyingPartyFromConfig } from '../../src/oidc/relyingParty.ts';
import { closeRateLimitRedis, openRateLimitRedis, REDIS_COMMAND_TIMEOUT_MS } from '../../src/services/rateLimits/rateLimits.ts';
import { REDIS_BREAKER_FAILURES } from '../../src/services/rateLimits/redisBreaker.ts';
import type { AppDeps } from '../../src/deps.ts';
import type { Metrics } from '../../src/observability/metrics.ts';

const CLIENT_ID = 'gateway-redis-rate-limit-test';
const CLIENT_SECRET = randomBytes(32).toString('base64url');
const KEY_RING = generateKeyRingSpec('test');
const SLOW = { timeout: 120_000 };

function expectRateLimited(res: request.Response): void {
  expect(res.status, res.text).toBe(429);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(res.body.code).toBe('RATE_LIMITED');
  expect(res.headers['retry-after']).toMatch(/^\d+$/);
  expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  expect(Number(res.headers['retry-after'])).toBeLessThanOrEqual(60);
}

interface Instance {
  app: Express;
  deps: AppDeps;
  redis: Redis;
}

describe.skipIf(!redisServerPath)(`rate limits in Redis (REDIS_URL)${REDIS_SKIP_REASON}`, SLOW, () => {
  let database: TestDatabase;
  let fake: FakeIdp;
  let server: RedisServer;
  let platform: Awaited<ReturnType<typeof seedPlatform>>;
  /** A plain client of the test itself, to look into Redis. */
  let inspector: Redis;
  const instances: Instance[] = [];

  /** One gateway instance: its own app and its own Redis client, on the shared database and Redis. */
  async function instance(env: Record<string, string> = {}): Promise<Instance> {
    const config = loadConfig({
      NODE_ENV: 'test',
      PUBLIC_BASE_URL: 'http://gateway.test',
      ACCOUNT_CENTER_URL: 'http://account.test',
      ENCRYPTION_KEYS: KEY_RING,
      OIDC_ISSUER: fake.issuer,
      OIDC_CLIENT_ID: CLIENT_ID,
      OIDC_CLIENT_SECRET: CLIENT_SECRET,
      RATE_LIMIT_CALLBACK_PER_MINUTE: '100000',
      REDIS_URL: server.url,
      ...env,
    });
    const logger = createLogger(process.env.TEST_LOG_LEVEL ?? 'silent');
    const redis = await openRateLimitRedis(config.redisUrl!, logger);
    const deps: AppDeps = {
      config,
      db: database.db,
      logger,
      keyRing: parseKeyRing(KEY_RING),
      oidc: relyingPartyFromConfig(config, logger, { timeoutMs: 2000 }),
      idpAccounts: null,
      redis,
    };
    const app = await createApp(deps, { validateResponses: true });
    const made = { app, deps, redis };
    instances.push(made);
    return made;
  }

  const start = (gateway: Instance, headers: Record<string, string> = {}) =>
    request(gateway.app).get(`/v1/auth/start?platformKey=${platform.key}&returnTo=${encodeURIComponent('https://bff.example.test/home')}`).set(headers);
  const pgRows = async (prefix: string) =>
    (await database.db.raw(`SELECT key, points FROM rate_limits WHERE key LIKE ? ORDER BY key`, [`${prefix}:%`])).rows as { key: string; points: number }[];
  const ready = async (redis: Redis) => {
    if (redis.status !== 'ready') await once(redis, 'ready');
  };
  /** The metrics of every instance (a counter lands on the Metrics registered last for the database). */
  const scrape = async () => (await Promise.all(instances.map(async (made) => (await (made.app.locals.metrics as Metrics).scrape()).body))).join('\n');

  beforeAll(async () => {
    [database, fake, server] = await Promise.all([createTestDatabase(), startFakeIdp({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET }), startRedisServer()]);
    platform = await seedPlatform(database.db);
    const { Redis } = await import('ioredis');
    inspector = new Redis(server.url, { maxRetriesPerRequest: null });
    inspector.on('error', () => {});
  }, 120_000);
  afterAll(async () => {
    inspector?.disconnect();
    for (const made of instances) await closeRateLimitRedis(made.redis);
    await server?.stop();
    await fake?.close();
    await database?.drop();
  });
  beforeEach(async () => {
    await database.db.raw('DELETE FROM rate_limits');
    await inspector.flushall();
  });

  it('two instances share one budget in Redis; the refusal is 429 with Retry-After; nothing goes to PostgreSQL', async () => {
    const a = await instance({ RATE_LIMIT_START_PER_MINUTE: '3' });
    const b = await instance({ RATE_LIMIT_START_PER_MINUTE: '3' });
    expect(a.redis).not.toBe(b.redis);
    const statuses: number[] = [];
    let last: request.Response | undefined;
    for (let i = 0; i < 8; i++) {
      last = await start(i % 2 === 0 ? a : b);
      statuses.push(last.status);
    }
    expect(statuses).toEqual([302, 302, 302, 429, 429, 429, 429, 429]);
    expectRateLimited(last!);

    // One counter in Redis, under the gateway's namespace, keyed by a digest (not the address), expiring.
    const keys = await inspector.keys('auth-gateway:auth_start:*');
    expect(keys).toHaveLength(1);
    expect(keys[0]).not.toContain('127.0.0.1');
    expect(await inspector.get(keys[0]!)).toBe('8');
    const ttl = await inspector.pttl(keys[0]!);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(60_000);
    // Nothing in PostgreSQL's table, and no fallback counted.
    expect(await pgRows('%')).toEqual([]);
    expect(await scrape()).not.toMatch(/gateway_rate_limit_store_fallbacks_total\{/);
    expect(await scrape()).toMatch(/gateway_rate_limit_refusals_total\{limiter="auth_start"\} [1-9]/);
  });

  it('exchanges, refused or not, count nothing in Redis or PostgreSQL and are never refused with 429', async () => {
    const gateway = await instance();
    const own = await seedPlatform(database.db);
    const exchange = (authorization: string, code: string) => request(gateway.app).post('/v1/auth/exchange').set('Authorization', authorization).send({ code });
    const testApp = { app: gateway.app, deps: gateway.deps, config: gateway.deps.config };
    for (let i = 0; i < 12; i++) {
      expect((await exchange(basic(own.clientId, 'wrong-secret'), 'handoff_unknown')).body.code).toBe('INVALID_CLIENT_CREDENTIALS');
      expect((await exchange(basic(own.clientId, own.clientSecret), 'handoff_unknown')).body.code).toBe('HANDOFF_CODE_INVALID');
    }
    expect((await exchange(basic(own.clientId, own.clientSecret), await issueTestHandoff(testApp, own.key))).status).toBe(200);
    expect(await inspector.keys('auth-gateway:*')).toEqual([]);
    expect(await pgRows('%')).toEqual([]);
  });

  it('readiness reports Redis', async () => {
    const gateway = await instance();
    const res = await request(gateway.app).get('/health/ready');
    expect(res.status).toBe(200);
    expect(res.body.checks.redis).toMatchObject({ status: 'up', reason: null });
    expect(res.body.checks.redis.latencyMs).toBeGreaterThanOrEqual(0);
  });

  it('Redis stopped: the same limits are counted in PostgreSQL (no 5xx, never unlimited); readiness stays 200 and says so; Redis back: counted there again', async () => {
    const a = await instance({ RATE_LIMIT_START_PER_MINUTE: '2' });
    const b = await instance({ RATE_LIMIT_START_PER_MINUTE: '2' });
    await server.stop();
    try {
      const statuses = [];
      for (let i = 0; i < 5; i++) statuses.push((await start(i % 2 === 0 ? a : b)).status);
      expect(statuses).toEqual([302, 302, 429, 429, 429]);
      const rows = await pgRows('auth_start');
      expect(rows).toHaveLength(1);
      expect(rows[0]!.points).toBe(5);
      expect(await scrape()).toMatch(/gateway_rate_limit_store_fallbacks_total\{limiter="auth_start"\} [1-9]/);

      const ready = await request(a.app).get('/health/ready');
      expect(ready.status).toBe(200);
      expect(ready.body.status).toBe('ready');
      expect(ready.body.checks.redis).toMatchObject({ status: 'down', latencyMs: null });
      expect(ready.body.checks.redis.reason).toMatch(/not connected/);
    } finally {
      await server.restart();
    }
    await Promise.all([ready(a.redis), ready(b.redis)]);
    expect((await request(a.app).get('/health/ready')).body.checks.redis.status).toBe('up');
    // The restarted Redis is empty: a fresh budget there, and PostgreSQL's counter no longer moves.
    expect((await start(a)).status).toBe(302);
    expect((await pgRows('auth_start'))[0]!.points).toBe(5);
    expect(await inspector.keys('auth-gateway:auth_start:*')).toHaveLength(1);
  });

  it('Redis frozen: after a few timeouts the checks stop waiting for it (circuit breaker), and go back to it once it answers', async () => {
    const gateway = await instance({ RATE_LIMIT_START_PER_MINUTE: '1000' });
    await ready(gateway.redis);
    server.freeze();
    try {
      // The first checks each wait the command timeout (500 ms), then open the breaker.
      for (let i = 0; i < REDIS_BREAKER_FAILURES; i++) expect((await start(gateway)).status).toBe(302);
      // Then PostgreSQL at once: five starts together took 5 × 500 ms and more before the breaker.
      const began = Date.now();
      for (let i = 0; i < 5; i++) expect((await start(gateway)).status).toBe(302);
      expect(Date.now() - began).toBeLessThan(5 * REDIS_COMMAND_TIMEOUT_MS);
      expect((await pgRows('auth_start'))[0]!.points).toBe(REDIS_BREAKER_FAILURES + 5);
    } finally {
      server.thaw();
    }
    // The background PING finds Redis again: counted there, PostgreSQL's counter stays.
    await expect.poll(async () => {
      await start(gateway);
      return (await inspector.keys('auth-gateway:auth_start:*')).length;
    }, { timeout: 10_000, interval: 300 }).toBe(1);
  });

  it('Redis frozen (connections open, no answers): after the command timeout the attempt is counted in PostgreSQL', async () => {
    const gateway = await instance({ RATE_LIMIT_START_PER_MINUTE: '1' });
    await ready(gateway.redis);
    server.freeze();
    try {
      expect((await start(gateway)).status).toBe(302);
      expectRateLimited(await start(gateway));
      expect((await pgRows('auth_start'))[0]!.points).toBe(2);
    } finally {
      server.thaw();
    }
  });
});
