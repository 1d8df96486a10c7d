// Issue 13 §1: with PostgreSQL frozen (its connections open, nothing answered) a request
// must get 503 DATABASE_UNAVAILABLE within seconds instead of hanging, and the service must
// recover without a restart once the database answers again.
//
// The freeze is a TCP relay in front of the test database (test/helpers/tcpRelay.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import net from 'node:net';
import { pino } from 'pino';
import { openDatabase } from '../../src/db/open.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { CHECK_IDLE_CONNECTION_AFTER_MS, createDb, type Db } from '../../src/db/knex.ts';
import { freezableRelay, type FreezableRelay } from '../helpers/tcpRelay.ts';

describe('a frozen database', () => {
  let database: TestDatabase;
  let relay: FreezableRelay;
  let db: Db;
  let gateway: TestApp;

  beforeAll(async () => {
    database = await createTestDatabase();
    relay = await freezableRelay(database.url);
    db = createDb(relay.url, { poolMax: 2, statementTimeoutMs: 500 });
    gateway = await createTestApp({ db });
  });
  afterAll(async () => {
    relay?.thaw();
    await db?.destroy();
    await relay?.close();
    await database?.drop();
  });

  const me = () => request(gateway.app).get('/v1/me').set('Cookie', `gw_session=gws_${'A'.repeat(43)}`);

  it('answers 503 within seconds while frozen, and recovers without a restart', async () => {
    // Open pooled connections first: the freeze catches them established, as in the fault run.
    expect((await me()).status).toBe(401);

    relay.freeze();
    const started = Date.now();
    const frozen = await me();
    const waitedMs = Date.now() - started;
    expect(frozen.status).toBe(503);
    expect(frozen.body.code).toBe('DATABASE_UNAVAILABLE');
    // Without query timeouts this request waits for as long as the database stays frozen.
    expect(waitedMs).toBeLessThan(5000);

    relay.thaw();
    await expect.poll(async () => (await me()).status, { timeout: 10_000, interval: 200 }).toBe(401);
  });

  it('answers 503, not 500, when the pool is empty and connecting times out (pg: "timeout expired")', async () => {
    // A pool with no connection yet: the freeze catches the connection handshake instead.
    const empty = createDb(relay.url, { poolMax: 1, statementTimeoutMs: 500 });
    const fresh = await createTestApp({ db: empty });
    relay.freeze();
    try {
      // The first request's wait for the pool and the connection attempt end together (5 s each);
      // the failed attempt's error goes to the request waiting behind it (knex propagates it).
      const ask = () => request(fresh.app).get('/v1/me').set('Cookie', `gw_session=gws_${'A'.repeat(43)}`);
      const first = ask();
      await new Promise((resolve) => setTimeout(resolve, 300));
      const answers = await Promise.all([first, ask()]);
      expect(answers.map((res) => `${res.status} ${res.body.code}`)).toEqual(['503 DATABASE_UNAVAILABLE', '503 DATABASE_UNAVAILABLE']);
    } finally {
      relay.thaw();
      await empty.destroy();
    }
  });

  it('retires pooled connections whose database side is gone before a request gets them (each failed requests before)', async () => {
    const pooled = createDb(relay.url, { poolMax: 3, statementTimeoutMs: 500 });
    const fresh = await createTestApp({ db: pooled });
    try {
      await Promise.all(Array.from({ length: 3 }, () => pooled.raw('SELECT pg_sleep(0.05)')));
      // Their server side goes away unnoticed (a proxy that lost its backend); new connections work.
      relay.dropUpstreamsSilently();
      await new Promise((resolve) => setTimeout(resolve, CHECK_IDLE_CONNECTION_AFTER_MS + 200));
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) statuses.push((await request(fresh.app).get('/v1/me').set('Cookie', `gw_session=gws_${'A'.repeat(43)}`)).status);
      expect(statuses).toEqual([401, 401, 401, 401, 401, 401]);

      // Used again at once (no idle time to check): the first request meets the dead connection
      // and gets its 503 when the client gives up; the connection, still waiting for that answer,
      // is retired instead of failing every request after it.
      relay.dropUpstreamsSilently();
      const again: number[] = [];
      for (let i = 0; i < 4; i++) again.push((await request(fresh.app).get('/v1/me').set('Cookie', `gw_session=gws_${'A'.repeat(43)}`)).status);
      expect(again).toEqual([503, 401, 401, 401]);
    } finally {
      await pooled.destroy();
    }
  });

  it('a statement that runs too long is cancelled by the server (SQLSTATE 57014)', async () => {
    const direct = createDb(database.url, { poolMax: 1, statementTimeoutMs: 500 });
    try {
      const slow = await direct.raw('SELECT pg_sleep(2)').then(() => 'finished', (error: { code?: string }) => error.code);
      expect(slow).toBe('57014');
    } finally {
      await direct.destroy();
    }
  });
});

describe('a database that is not up yet at boot (issue 13 §5)', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase({ migrate: false });
  });
  afterAll(async () => {
    await database?.drop();
  });

  it('is waited for with a readable line per attempt, then migrated', async () => {
    // A port nothing listens on yet; the "database" appears there a moment later.
    const probe = net.createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as net.AddressInfo).port;
    await new Promise((resolve) => probe.close(resolve));
    const lateUrl = new URL(database.url);
    lateUrl.hostname = '127.0.0.1';
    lateUrl.port = String(port);

    const lines: { obj: Record<string, unknown>; msg: string }[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push({ obj: JSON.parse(line), msg: JSON.parse(line).msg }) });
    const opening = openDatabase(lateUrl.href, logger, { migrate: true });
    await expect.poll(() => lines.some((line) => /not answering yet/.test(line.msg)), { timeout: 5000 }).toBe(true);
    const relay = await freezableRelay(database.url, port);
    try {
      const opened = await opening;
      expect((await opened.db.raw(`SELECT count(*)::int AS n FROM knex_migrations`)).rows[0].n).toBeGreaterThan(0);
      const waiting = lines.find((line) => /not answering yet/.test(line.msg))!;
      expect(waiting.obj).toMatchObject({ level: 40, port: String(port), reason: 'ECONNREFUSED' });
      expect(JSON.stringify(lines)).not.toContain(new URL(database.url).password || 'no password in the URL');
      await opened.close();
    } finally {
      await relay.close();
    }
  });
});
