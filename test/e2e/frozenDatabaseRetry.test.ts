// A 503 means "nothing happened, try again" (GUIDE §5): PostgreSQL frozen with SIGSTOP (a stalled
// disk, a paused VM) while callbacks and exchanges are in flight. Each gets its 503 when the
// client gives up (query_timeout), but its statement is already in the server's socket and runs
// when the server is continued. It must then change nothing (the statement's own deadline,
// src/db/knex.ts STATEMENT_DEADLINE), so that every request answered 503 succeeds when sent
// again. Before the deadline, every one of them was spent by its late statement and its retry
// got 404 TRANSACTION_NOT_FOUND / HANDOFF_CODE_INVALID.
//
// A PostgreSQL server of its own (the suite's shared one must not be frozen under other files);
// the postmaster and every backend (its children) are stopped, as a paused machine would be.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import { chmod, mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startEmbeddedDatabase, type EmbeddedDatabase } from '../../src/db/embedded.ts';
import { createDb, migrateLatest, type Db } from '../../src/db/knex.ts';
import { addPlatform, browserLogin, startHarness, type Harness, type TestPlatform } from '../helpers/flowHarness.ts';
import { OidcBrowser } from '../helpers/oidcBrowser.ts';
import { DEV_USERS } from '../../src/devidp/users.ts';

/** Small, so the test runs in seconds: each statement's deadline is 300 ms after it is sent, the client gives up at 1.3 s. */
const STATEMENT_TIMEOUT_MS = 300;
/** Logins of each kind in flight when the server stops. */
const IN_FLIGHT = 6;
/** Frozen this long: well past every client's give-up (1.3 s), on a loaded machine too. */
const FROZEN_MS = 4000;

describe('PostgreSQL frozen (SIGSTOP) with callbacks and exchanges in flight', () => {
  let folder: string;
  let postgres: EmbeddedDatabase;
  let db: Db;
  let harness: Harness;
  let platform: TestPlatform;
  let frozen: number[] = [];

  /** The postmaster (first line of postmaster.pid) and its children, the backends and background workers. */
  async function serverProcesses(): Promise<number[]> {
    const postmaster = Number((await readFile(path.join(folder, 'data', 'postmaster.pid'), 'utf8')).split('\n')[0]);
    const children: number[] = [];
    for (const entry of await readdir('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
      // pid (comm) state ppid …: comm may hold spaces and parentheses, so read after the last ')'.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === postmaster) children.push(Number(entry));
    }
    return [postmaster, ...children];
  }

  function signal(pids: number[], name: 'SIGSTOP' | 'SIGCONT'): void {
    for (const pid of pids) {
      try {
        process.kill(pid, name);
      } catch {
        // gone meanwhile
      }
    }
  }

  beforeAll(async () => {
    folder = await mkdtemp(path.join(tmpdir(), 'auth-gateway-pg-frozen-'));
    await chmod(folder, 0o755); // as root, PostgreSQL runs as `postgres` and must get in
    postgres = await startEmbeddedDatabase({ dataDir: path.join(folder, 'data'), port: 0, persistent: false });
    const admin = createDb(postgres.adminUrl, { poolMax: 1 });
    await admin.raw('CREATE DATABASE gateway');
    await admin.destroy();
    const url = postgres.urlFor('gateway');
    const migrator = createDb(url, { poolMax: 1, statementTimeoutMs: 0 });
    await migrateLatest(migrator);
    await migrator.destroy();
    db = createDb(url, { poolMax: 4 * IN_FLIGHT, statementTimeoutMs: STATEMENT_TIMEOUT_MS });
    harness = await startHarness({}, {}, { database: { db, url, name: 'gateway', drop: () => db.destroy() } });
    platform = await addPlatform(harness);
  });
  afterAll(async () => {
    signal(frozen, 'SIGCONT');
    await harness?.close();
    await postgres?.stop();
    if (folder) await rm(folder, { recursive: true, force: true });
  });

  const exchange = (code: string) =>
    request(harness.baseUrl).post('/v1/auth/exchange').set('Authorization', platform.basic).set('Accept', 'application/json').send({ code });

  /** A person signed in at the provider, whose browser is about to follow the redirect to the gateway's callback. */
  async function upToCallback(): Promise<{ browser: OidcBrowser; callbackUrl: string }> {
    const browser = new OidcBrowser();
    const start = await browser.get(`${harness.baseUrl}/v1/auth/start?platformKey=${platform.key}&returnTo=${encodeURIComponent('https://bff.example.test/home')}`);
    expect(start.status).toBe(302);
    const toLoginPage = await browser.followRedirects(start, { maxHops: 10 });
    const afterLogin = await browser.loginAtDevIdp(toLoginPage.response, DEV_USERS[0]!.username, DEV_USERS[0]!.password);
    const followed = await browser.followRedirects(afterLogin, { stopWhen: (url) => url.startsWith(`${harness.baseUrl}/v1/auth/callback`), maxHops: 10 });
    return { browser, callbackUrl: followed.stoppedAt! };
  }

  it('every request answered 503 while frozen succeeds when sent again after the thaw', async () => {
    const callbacks = await Promise.all(Array.from({ length: IN_FLIGHT }, upToCallback));
    const codes = await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => (await browserLogin(harness, platform.key, DEV_USERS[0]!)).location.searchParams.get('code')!),
    );
    // A pooled connection for every request, opened before the freeze (a connection opened
    // during it is another fault: the connect timeout).
    const warm = () => Promise.all(Array.from({ length: 2 * IN_FLIGHT + 2 }, () => db.raw('SELECT pg_sleep(0.1)')));
    await warm();
    const server = await serverProcesses();
    // Used again just now: the pool checks a connection idle for a second before handing it out
    // (src/db/knex.ts), and that check, not the requests' statements, would meet the freeze.
    await warm();

    const sent = [
      ...callbacks.map(async ({ browser, callbackUrl }) => ({ kind: 'callback' as const, status: (await browser.get(callbackUrl)).status, retry: () => browser.get(callbackUrl) })),
      ...codes.map(async (code) => ({ kind: 'exchange' as const, status: (await exchange(code)).status, retry: () => exchange(code) })),
    ];
    // Requests are on their way (their statements are sent a few ticks later, into the stopped
    // server's socket): freeze the server now.
    frozen = server;
    signal(frozen, 'SIGSTOP');
    const stoppedAt = Date.now();
    const answered = await Promise.all(sent);
    const waitedMs = Date.now() - stoppedAt;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, FROZEN_MS - waitedMs)));
    signal(frozen, 'SIGCONT');
    frozen = [];

    // Every request met the frozen server: each is a 503 (not a 500, not a hang).
    expect(answered.map((one) => `${one.kind} ${one.status}`)).toEqual([
      ...Array<string>(IN_FLIGHT).fill('callback 503'),
      ...Array<string>(IN_FLIGHT).fill('exchange 503'),
    ]);
    expect(waitedMs).toBeLessThan(FROZEN_MS);

    // The late statements run now; give them a moment, then send every 503 again.
    await expect.poll(async () => (await db.raw('SELECT 1 AS up')).rows[0].up, { timeout: 10_000 }).toBe(1);
    const retried = await Promise.all(answered.map(async (one) => `${one.kind} ${(await one.retry()).status}`));
    expect(retried).toEqual([...Array<string>(IN_FLIGHT).fill('callback 302'), ...Array<string>(IN_FLIGHT).fill('exchange 200')]);
    // The callbacks' retries went on to the platform with a handoff code.
    const { rows } = await db.raw<{ rows: { issued: number }[] }>('SELECT count(*)::int AS issued FROM handoff_codes');
    expect(rows[0]!.issued).toBe(2 * IN_FLIGHT);
  }, 90_000);
});
