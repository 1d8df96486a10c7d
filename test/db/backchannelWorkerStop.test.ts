import { afterEach, describe, expect, it } from 'vitest';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import pg from 'pg';
import { startEmbeddedDatabase, type EmbeddedDatabase } from '../../src/db/embedded.ts';
import { createDb, migrateLatest, type Db } from '../../src/db/knex.ts';
import { startBackchannelWorker } from '../../src/services/backchannel/worker.ts';
import { generateSigningKeySpec } from '../../src/security/signingKeys.ts';
import { Lifecycle } from '../../src/server.ts';

// Shutdown stops the back-channel worker, then PostgreSQL (the dev stack's embedded one). The
// worker's pool used to be graphile-worker's own, ended without waiting and its error handlers
// already gone: a server stopping meanwhile sent "terminating connection" (57P01) to a client
// still in it, and the pool's unhandled 'error' event crashed the process (once in CI, in the dev
// stack's stop test; here every time before the fix).
//
// With Ctrl-C the embedded PostgreSQL gets the signal too and may go first: the worker then
// loses its connections while the service stops. That is expected, and was logged as errors with
// stack traces ("Error with notify listener", "Worker exited with error"), which send a person at
// the terminal looking for a bug.

interface Line { msg?: string; level: number; err?: { stack?: string } }

const CLOSED = 'back-channel worker: a database connection closed while the service stops';
const FAILED = 'back-channel worker: a database connection failed';

describe('the back-channel worker, stopped with its PostgreSQL', () => {
  let folder: string | null = null;
  let postgres: EmbeddedDatabase | null = null;
  let db: Db | null = null;
  const unhandled: unknown[] = [];
  const onUncaught = (error: unknown) => void unhandled.push(error);

  async function start() {
    folder = await mkdtemp(path.join(tmpdir(), 'auth-gateway-worker-stop-'));
    await chmod(folder, 0o755); // as root, PostgreSQL runs as `postgres` and must get in
    postgres = await startEmbeddedDatabase({ dataDir: path.join(folder, 'data'), port: 0, persistent: false });
    const admin = createDb(postgres.adminUrl, { poolMax: 1 });
    await admin.raw('CREATE DATABASE gateway');
    await admin.destroy();
    db = createDb(postgres.urlFor('gateway'), { poolMax: 2, statementTimeoutMs: 0 });
    await migrateLatest(db);
    process.prependListener('uncaughtException', onUncaught);
    const config = { publicBaseUrl: 'https://auth.example.test', gatewaySigningKeys: generateSigningKeySpec(), isProduction: false };
    const lines: Line[] = [];
    const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line) as Line) });
    const lifecycle = new Lifecycle();
    const worker = await startBackchannelWorker({ config, db, logger, lifecycle }, { pollIntervalMs: 50 });
    // Let it take its connections (the listener, and the polls).
    await new Promise((resolve) => setTimeout(resolve, 500));
    const client = new pg.Client({ connectionString: postgres.urlFor('gateway') });
    await client.connect();
    const { rows } = await client.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'auth-gateway-worker'");
    await client.end();
    return { worker, lines, lifecycle, connections: rows[0]!.n };
  }

  /** Lines a person would take for a fault: warnings and errors, and anything with a stack. */
  const alarming = (lines: Line[]) => lines.filter((line) => line.level >= 40 || line.err?.stack !== undefined);

  afterEach(async () => {
    process.off('uncaughtException', onUncaught);
    await db?.destroy().catch(() => undefined);
    await postgres?.stop().catch(() => undefined);
    if (folder) await rm(folder, { recursive: true, force: true });
    folder = null;
    postgres = null;
    db = null;
    unhandled.length = 0;
  });

  it('the server stopping while the worker stops does not crash the process, and is told calmly', async () => {
    const { worker, lines, connections } = await start();
    expect(connections).toBeGreaterThan(0);
    // The server stopping while the worker stops (fast shutdown terminates every backend): the
    // tightest form of main.ts's order, where it stops a few milliseconds after the worker.
    await Promise.all([worker.stop(), postgres!.stop()]);
    postgres = null;
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(unhandled).toEqual([]);
    // Each connection the server ended is logged once (an idle one used to be logged twice: by
    // its own listener and by the pool's). Whether the server ends any before the pool closes
    // them is a race; the next test makes the server go first.
    const closed = lines.filter((line) => line.msg === CLOSED).length;
    expect(closed).toBeLessThanOrEqual(connections);
    expect(alarming(lines)).toEqual([]);
  });

  it('the server going first while the service stops (Ctrl-C reaches both): info lines, no error, no stack', async () => {
    const { worker, lines, lifecycle } = await start();
    lifecycle.startDraining();
    await postgres!.stop();
    postgres = null;
    // The worker's listener retries and its pollers fail meanwhile, as before main.ts reaches stop().
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await worker.stop();
    expect(unhandled).toEqual([]);
    expect(lines.some((line) => line.msg === CLOSED)).toBe(true);
    expect(alarming(lines)).toEqual([]);
  });

  it('a connection lost while the service runs is still a warning', async () => {
    const { worker, lines } = await start();
    await postgres!.stop();
    postgres = null;
    await new Promise((resolve) => setTimeout(resolve, 500));
    await worker.stop();
    expect(lines.some((line) => line.msg === FAILED && line.level === 40)).toBe(true);
  });
});
