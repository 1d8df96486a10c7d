import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createDb } from '../../src/db/knex.ts';

describe('health', () => {
  let database: TestDatabase;
  let gateway: TestApp;

  beforeAll(async () => {
    database = await createTestDatabase();
    gateway = await createTestApp({ db: database.db });
  });
  afterAll(async () => {
    await database.drop();
  });

  it('live answers without touching dependencies', async () => {
    const res = await request(gateway.app).get('/health/live').expect(200);
    expect(res.body).toMatchObject({ status: 'ok', version: expect.any(String) });
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('ready checks PostgreSQL', async () => {
    const res = await request(gateway.app).get('/health/ready').expect(200);
    expect(res.body).toMatchObject({ status: 'ready', checks: { database: { status: 'up', reason: null } } });
    expect(res.body.checks.database.latencyMs).toBeGreaterThanOrEqual(0);
  });

  it('ready answers 503 with a reason while the database is down, and 200 again once it is back', async () => {
    // A pool of its own whose connections the test kills from the server side,
    // and whose database refuses new connections meanwhile: a real outage.
    const pool = createDb(database.url, { poolMax: 2 });
    const app = (await createTestApp({ db: pool })).app;
    await request(app).get('/health/ready').expect(200);

    const admin = createDb(database.url.replace(/\/[^/]+$/, '/postgres'), { poolMax: 1 });
    await admin.raw(`ALTER DATABASE ${database.name} WITH ALLOW_CONNECTIONS false`);
    await admin.raw('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = ? AND pid <> pg_backend_pid()', [database.name]);
    try {
      const down = await request(app).get('/health/ready').expect(503);
      expect(down.body.status).toBe('unavailable');
      expect(down.body.checks.database.status).toBe('down');
      expect(down.body.checks.database.reason).toEqual(expect.any(String));
      expect(JSON.stringify(down.body)).not.toMatch(/postgres:\/\//);

      // The operations answer 503 DATABASE_UNAVAILABLE (retry later), not 500.
      // (resume: the session cookie is looked up while authenticating)
      const resume = await request(app)
        .get('/v1/auth/resume')
        .query({ transaction: '00000000-0000-4000-8000-000000000000' })
        .set('Cookie', `${gateway.config.gatewayCookieName}=gwt_some_session_token`)
        .expect(503);
      expect(resume.body).toMatchObject({ status: 503, code: 'DATABASE_UNAVAILABLE' });
      const exchange = await request(app)
        .post('/v1/auth/exchange')
        .auth('client_demo', 'secret')
        .send({ code: 'handoff_abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG' })
        .expect(503);
      expect(exchange.body).toMatchObject({ status: 503, code: 'DATABASE_UNAVAILABLE' });
      expect(JSON.stringify([resume.body, exchange.body])).not.toMatch(/ECONNREFUSED|accepting connections|postgres/i);
    } finally {
      await admin.raw(`ALTER DATABASE ${database.name} WITH ALLOW_CONNECTIONS true`);
      await admin.destroy();
    }
    const back = await request(app).get('/health/ready').expect(200);
    expect(back.body.status).toBe('ready');
    await pool.destroy();
    // the shared pool lost its connections too; it must recover by itself
    await request(gateway.app).get('/health/ready').expect(200);
  });
});
