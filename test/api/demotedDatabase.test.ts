// Issue: PostgreSQL failover (docs/operations.md, "PostgreSQL failover"). Behind HAProxy and
// Patroni, the gateway's pooled connections can end up on a server that is no longer the
// primary: a demoted primary or a standby answers every write with SQLSTATE 25006
// (read_only_sql_transaction), and a server being stopped or a backend being terminated
// answers 57P01 (admin_shutdown). Either is an outage like any other: 503 DATABASE_UNAVAILABLE,
// never 500, and the connection is dropped, so that the next request opens a new one (which
// HAProxy sends to the new primary) instead of failing on the old server for ever.
//
// A real PostgreSQL stands in for the demoted server: `ALTER DATABASE … SET
// default_transaction_read_only = on` makes every new session read-only, as on a standby.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import request from 'supertest';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { basicAuth } from '../helpers/oidcBrowser.ts';
import { createDb, type Db } from '../../src/db/knex.ts';
import { createPlatform } from '../../src/services/registry/index.ts';

const CLI_ACTOR = { type: 'cli', userId: null, sub: null, requestId: null } as const;

describe('a pooled connection on a demoted or terminated server', () => {
  let database: TestDatabase;
  // One connection, so the test knows which one each request gets.
  let db: Db;
  let gateway: TestApp;
  let basic: string;
  // The test's own statements, from the server's maintenance database (never one of the pool's).
  let admin: Db;

  beforeAll(async () => {
    admin = createDb(inject('databaseAdminUrl'), { poolMax: 1 });
    database = await createTestDatabase();
    const { platform, clientSecret } = await createPlatform(
      database.db,
      { platformKey: 'DEMOTED_DB', displayName: 'Demoted', callbackUrl: 'https://p.example/cb', allowedReturnUrls: ['https://p.example/'] },
      CLI_ACTOR,
    );
    basic = basicAuth(platform.clientId!, clientSecret);
    db = createDb(database.url, { poolMax: 1 });
    gateway = await createTestApp({ db });
  });
  afterAll(async () => {
    await admin?.raw(`ALTER DATABASE ${database.name} RESET default_transaction_read_only`).catch(() => undefined);
    await admin?.destroy();
    await db?.destroy();
    await database?.drop();
  });

  // A write: the exchange redeems the code in one UPDATE (an unknown code: 404 when it can write).
  const exchange = () => request(gateway.app).post('/v1/auth/exchange').set('Authorization', basic).send({ code: `handoff_${'A'.repeat(43)}` });
  const readOnly = (on: boolean) =>
    admin.raw(on ? `ALTER DATABASE ${database.name} SET default_transaction_read_only = on` : `ALTER DATABASE ${database.name} RESET default_transaction_read_only`);

  /** pg_terminate_backend on every connection to the test database (the pool's), but `except`. */
  const terminateConnections = (except = 0) =>
    admin.raw('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = ? AND pid <> ?', [database.name, except]);

  it('a write refused with 25006 (read-only server) answers 503, and the connection is dropped', async () => {
    expect((await exchange()).status).toBe(404);
    // The next connection the pool opens lands on a "standby".
    await terminateConnections();
    await readOnly(true);
    try {
      const onStandby = await exchange();
      expect([onStandby.status, onStandby.body.code]).toEqual([503, 'DATABASE_UNAVAILABLE']);
      expect(onStandby.headers['content-type']).toMatch(/^application\/problem\+json/);
    } finally {
      await readOnly(false);
    }
    // HAProxy now sends new connections to the primary: the first request after the switch
    // succeeds, because the read-only connection was not given back to the pool.
    const afterSwitch = await exchange();
    expect([afterSwitch.status, afterSwitch.body.code]).toEqual([404, 'HANDOFF_CODE_INVALID']);
  });

  it('a statement whose backend is terminated (57P01) answers 503, and the next request succeeds', async () => {
    expect((await exchange()).status).toBe(404);
    // The exchange's statement waits on a lock the test holds; its backend is terminated meanwhile.
    const holder = await database.db.transaction();
    try {
      await holder.raw('LOCK TABLE handoff_codes IN ACCESS EXCLUSIVE MODE');
      const pending = exchange().then((res) => res);
      await expect
        .poll(async () => (await holder.raw(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = ? AND application_name = 'auth-gateway' AND wait_event_type = 'Lock'`, [database.name])).rows[0].n, { timeout: 4000, interval: 50 })
        .toBe(1);
      await terminateConnections((await holder.raw('SELECT pg_backend_pid() AS pid')).rows[0].pid);
      // The gateway then asks whether its statement committed (it did not: 503, nothing spent).
      await holder.rollback();
      const terminated = await pending;
      expect([terminated.status, terminated.body.code]).toEqual([503, 'DATABASE_UNAVAILABLE']);
    } finally {
      if (!holder.isCompleted()) await holder.rollback();
    }
    const next = await exchange();
    expect([next.status, next.body.code]).toEqual([404, 'HANDOFF_CODE_INVALID']);
  });

  it('an idle pooled connection terminated (57P01) is replaced: never a 500, and a 503 at most once', async () => {
    for (let round = 0; round < 5; round++) {
      expect((await exchange()).status).toBe(404);
      await terminateConnections();
      // Whether the request is sent before or after pg has read the server's FATAL message is a
      // race: before, it fails like any outage (503); after, the pool has already replaced it.
      const first = await exchange();
      expect([[404, 'HANDOFF_CODE_INVALID'], [503, 'DATABASE_UNAVAILABLE']]).toContainEqual([first.status, first.body.code]);
      const next = await exchange();
      expect([next.status, next.body.code]).toEqual([404, 'HANDOFF_CODE_INVALID']);
    }
  });
});
