// The service itself (`node src/main.ts`) with REDIS_URL and OTEL_EXPORTER_OTLP_ENDPOINT: main.ts
// opens the Redis client and starts tracing, the rate limits count in Redis (nothing in the
// PostgreSQL table), readiness reports Redis, and on SIGTERM the process quits its Redis
// connection and flushes its last spans to the collector before it exits 0.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { once } from 'node:events';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { AddressInfo } from 'node:net';
import type { Redis } from 'ioredis';

import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { REDIS_SKIP_REASON, redisServerPath, startRedisServer, type RedisServer } from '../helpers/redisServer.ts';
import { seedPlatform } from '../api/registryHelpers.ts';
import { startDevIdp, type DevIdp } from '../../src/devidp/index.ts';
import { freePort } from '../../src/db/embedded.ts';
import { generateKeyRingSpec } from '../../src/security/crypto.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

describe.skipIf(!redisServerPath)(`node src/main.ts with Redis and OTLP traces${REDIS_SKIP_REASON}`, { timeout: 120_000 }, () => {
  let database: TestDatabase;
  let idp: DevIdp;
  let redisServer: RedisServer;
  let inspector: Redis;
  let receiver: Server;
  const bodies: string[] = [];
  let child: ChildProcess | null = null;
  let output = '';
  let gateway = '';

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        if (req.url === '/v1/traces') bodies.push(Buffer.concat(chunks).toString('utf8'));
        res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
      });
    });
    receiver.listen(0, '127.0.0.1');
    await once(receiver, 'listening');
    [database, redisServer] = await Promise.all([createTestDatabase(), startRedisServer()]);
    const clientSecret = randomBytes(24).toString('base64url');
    idp = await startDevIdp({ port: 0, clients: [{ clientId: 'gateway-process', clientSecret, redirectUris: ['http://gateway.test/v1/auth/callback'] }] });
    const { Redis } = await import('ioredis');
    inspector = new Redis(redisServer.url, { connectionName: 'inspector' });
    inspector.on('error', () => {});

    const port = await freePort();
    child = spawn(process.execPath, ['src/main.ts'], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        NODE_ENV: 'development',
        LOG_LEVEL: 'warn',
        PORT: String(port),
        DATABASE_URL: database.url,
        PUBLIC_BASE_URL: 'http://gateway.test',
        ACCOUNT_CENTER_URL: 'http://account.test',
        ENCRYPTION_KEYS: generateKeyRingSpec('process'),
        OIDC_ISSUER: idp.issuer,
        OIDC_CLIENT_ID: 'gateway-process',
        OIDC_CLIENT_SECRET: clientSecret,
        RATE_LIMIT_START_PER_MINUTE: '2',
        REDIS_URL: redisServer.url,
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`,
        OTEL_SERVICE_NAME: 'gateway-process-test',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    for (;;) {
      if (child.exitCode !== null) throw new Error(`main.ts exited with ${child.exitCode} while booting:\n${output}`);
      const ready = await fetch(`http://127.0.0.1:${port}/health/ready`).then((res) => res.status === 200, () => false);
      if (ready) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    gateway = `http://127.0.0.1:${port}`;
  }, 120_000);

  afterAll(async () => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
    inspector?.disconnect();
    await redisServer?.stop();
    await idp?.close();
    await database?.drop();
    receiver?.closeAllConnections();
    await new Promise((resolve) => (receiver ? receiver.close(resolve) : resolve(undefined)));
  });

  it('counts in Redis, reports it in readiness; SIGTERM quits Redis and flushes the last spans', async () => {
    const ready = (await (await fetch(`${gateway}/health/ready`)).json()) as { checks: { redis?: unknown } };
    expect(ready.checks.redis).toMatchObject({ status: 'up', reason: null });

    const platform = await seedPlatform(database.db);
    const start = () => fetch(`${gateway}/v1/auth/start?platformKey=${platform.key}&returnTo=${encodeURIComponent('https://bff.example.test/home')}`, { redirect: 'manual' });
    const statuses = [(await start()).status, (await start()).status, (await start()).status];
    expect(statuses).toEqual([302, 302, 429]);
    expect(await inspector.keys('auth-gateway:auth_start:*')).toHaveLength(1);
    expect((await database.db.raw('SELECT count(*)::int AS n FROM rate_limits')).rows[0].n).toBe(0);
    const clients = async () => (await inspector.client('LIST') as string).split('\n').filter((line) => line.trim() && !line.includes('name=inspector'));
    expect(await clients()).toHaveLength(1); // the gateway's one connection

    const exited = once(child!, 'exit');
    child!.kill('SIGTERM');
    const [code] = await exited;
    expect(code, output).toBe(0);
    expect(await clients()).toEqual([]);
    const exported = bodies.join('\n');
    expect(exported).toContain('"gateway-process-test"');
    expect(exported).toContain('"startAuthentication"');
    expect(exported).toContain('"ratelimit auth_start"');
  });
});
