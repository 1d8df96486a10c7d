// While the gateway waits for PostgreSQL at boot, its probes answer: liveness 200 (an
// orchestrator must not restart a pod whose only problem is the database), readiness 503
// `starting` with what it waits for; and the app takes the same listener over once the database
// is there. Before, nothing listened until then: every probe failed for as long as the database
// was away. The service itself (`node src/main.ts`), on a database port nothing listens on yet.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../src/db/embedded.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { freezableRelay, type FreezableRelay } from '../helpers/tcpRelay.ts';
import { generateKeyRingSpec } from '../../src/security/crypto.ts';
import { generateSigningKeySpec } from '../../src/security/signingKeys.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

describe('the probes while the gateway boots', () => {
  let database: TestDatabase;
  let child: ChildProcess | null = null;
  let relay: FreezableRelay | null = null;
  let output = '';

  beforeAll(async () => {
    database = await createTestDatabase({ migrate: false });
  });
  afterAll(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((resolve) => child!.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    }
    await relay?.close();
    await database?.drop();
  });

  const get = (port: number, route: string) =>
    fetch(`http://127.0.0.1:${port}${route}`).then(
      async (res) => ({ status: res.status, body: (await res.json()) as Record<string, unknown> }),
      () => null,
    );

  it('answer from the first second, before the database is there, and the app takes over once it is', async () => {
    const [port, databasePort] = [await freePort(), await freePort()];
    const lateUrl = new URL(database.url);
    lateUrl.hostname = '127.0.0.1';
    lateUrl.port = String(databasePort);
    child = spawn(process.execPath, ['src/main.ts'], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        NODE_COMPILE_CACHE: path.join(tmpdir(), 'auth-gateway-test-node-compile-cache'),
        NODE_ENV: 'development',
        LOG_LEVEL: 'info',
        PORT: String(port),
        DATABASE_URL: lateUrl.href,
        // An issuer of its own: no dev stack (nothing is fetched from it while booting).
        OIDC_ISSUER: 'http://127.0.0.1:9/issuer',
        OIDC_CLIENT_ID: 'boot-probes',
        OIDC_CLIENT_SECRET: 'boot-probes-secret',
        ENCRYPTION_KEYS: generateKeyRingSpec('boot'),
        GATEWAY_SIGNING_KEYS: generateSigningKeySpec('boot'),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));

    // The boot waits for PostgreSQL (its log says so) …
    await expect.poll(() => /not answering yet/.test(output), { timeout: 30_000, interval: 200 }).toBe(true).catch((error: Error) => {
      throw new Error(`${error.message}\n${output}`);
    });
    // … and meanwhile liveness is 200 and readiness 503 with the reason.
    const live = await get(port, '/health/live');
    expect(live).toMatchObject({ status: 200, body: { status: 'ok' } });
    const ready = await get(port, '/health/ready');
    expect(ready?.status).toBe(503);
    expect(ready?.body).toMatchObject({ status: 'starting', checks: { database: { status: 'down', latencyMs: null, reason: 'waiting for PostgreSQL (ECONNREFUSED)' } } });
    expect(JSON.stringify(ready?.body)).not.toContain(lateUrl.password || 'no password in the URL');
    const other = await get(port, '/v1/me');
    expect(other).toMatchObject({ status: 503, body: { code: 'DATABASE_UNAVAILABLE' } });

    // The database appears: the same listener now serves the app.
    relay = await freezableRelay(database.url, databasePort);
    await expect.poll(async () => (await get(port, '/health/ready'))?.status, { timeout: 30_000, interval: 200 }).toBe(200);
    expect(await get(port, '/v1/me')).toMatchObject({ status: 401 });
  }, 90_000);
});
