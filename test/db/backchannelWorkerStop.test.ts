import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import pg from 'pg';
import { startEmbeddedDatabase, type EmbeddedDatabase } from '../../src/db/embedded.ts';
import { createDb, migrateLatest, type Db } from '../../src/db/knex.ts';
import { startBackchannelWorker } from '../../src/services/backchannel/worker.ts';
import { generateSigningKeySpec } from '../../src/services/backchannel/signingKeys.ts';

// Shutdown stops the back-channel worker, then PostgreSQL (the dev stack's embedded one). The
// worker's pool used to be graphile-worker's own, ended without waiting and its error handlers
// already gone: a server stopping meanwhile sent "terminating connection" (57P01) to a client
// still in it, and the pool's unhandled 'error' event crashed the process (once in CI, in the dev
// stack's stop test; here every time before the fix).
describe('the back-channel worker, stopped right before its PostgreSQL', () => {
  let folder: string;
  let postgres: EmbeddedDatabase | null = null;
  let db: Db | null = null;
  const unhandled: unknown[] = [];
  const onUncaught = (error: unknown) => void unhandled.push(error);

  beforeAll(async () => {
    folder = await mkdtemp(path.join(tmpdir(), 'auth-gateway-worker-stop-'));
    await chmod(folder, 0o755); // as root, PostgreSQL runs as `postgres` and must get in
    postgres = await startEmbeddedDatabase({ dataDir: path.join(folder, 'data'), port: 0, persistent: false });
    const admin = createDb(postgres.adminUrl, { poolMax: 1 });
    await admin.raw('CREATE DATABASE gateway');
    await admin.destroy();
    db = createDb(postgres.urlFor('gateway'), { poolMax: 2, statementTimeoutMs: 0 });
    await migrateLatest(db);
    process.prependListener('uncaughtException', onUncaught);
  });
  afterAll(async () => {
    process.off('uncaughtException', onUncaught);
    await db?.destroy().catch(() => undefined);
    await postgres?.stop().catch(() => undefined);
    if (folder) await rm(folder, { recursive: true, force: true });
  });

  it('the server stopping while the worker stops does not crash the process', async () => {
    const config = { publicBaseUrl: 'https://auth.example.test', gatewaySigningKeys: generateSigningKeySpec(), isProduction: false };
    const lines: { msg?: string }[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => void lines.push(JSON.parse(line) as { msg?: string }) });
    const worker = await startBackchannelWorker({ config, db: db!, logger }, { pollIntervalMs: 50 });
    // Let it take its connections (the listener, and the polls).
    await new Promise((resolve) => setTimeout(resolve, 500));
    const workerConnections = async () => {
      const client = new pg.Client({ connectionString: postgres!.urlFor('gateway') });
      await client.connect();
      try {
        const { rows } = await client.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'auth-gateway-worker'",
        );
        return rows[0]!.n;
      } finally {
        await client.end();
      }
    };
    const connections = await workerConnections();
    expect(connections).toBeGreaterThan(0);
    // The server stopping while the worker stops (fast shutdown terminates every backend): the
    // tightest form of main.ts's order, where it stops a few milliseconds after the worker.
    await Promise.all([worker.stop(), postgres!.stop()]);
    postgres = null;
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(unhandled).toEqual([]);
    // Each connection the server ended is logged once (an idle one used to be logged twice: by
    // its own listener and by the pool's).
    const failures = lines.filter((line) => line.msg === 'back-channel worker: a database connection failed').length;
    expect(failures).toBeGreaterThan(0);
    expect(failures).toBeLessThanOrEqual(connections);
  });
});
