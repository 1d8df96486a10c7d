import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createDb, type Db } from '../../src/db/knex.ts';
import { basic, issueTestHandoff, seedPlatform, startRegistryTestContext, type RegistryTestContext } from './registryHelpers.ts';

// What rotation and deactivation do to platforms already integrated: the exchange
// checks the secret digest and the active flag against the committed registry row
// in its one SQL statement, so both take effect at once.

describe('registry changes take effect on the handoff exchange at once', () => {
  let database: TestDatabase;
  let ctx: RegistryTestContext;

  beforeAll(async () => {
    database = await createTestDatabase();
    ctx = await startRegistryTestContext(database.db);
  });
  afterAll(async () => {
    await ctx?.close();
    await database?.drop();
  });

  const exchange = (app: TestApp['app'], authorization: string, code: string) =>
    request(app).post('/v1/auth/exchange').set('Authorization', authorization).set('Content-Type', 'application/json').send({ code });
  const rotate = async (key: string) =>
    (await ctx.bearerAdmin.apply(request(ctx.gateway.app).post(`/v1/platforms/${key}/credentials/rotate`)).expect(200)).body as {
      clientId: string;
      clientSecret: string;
    };

  it('after a rotation the old secret is refused (401) and the new one redeems the outstanding code', async () => {
    const platform = await seedPlatform(database.db);
    const code = await issueTestHandoff(ctx.gateway, platform.key);
    const rotated = await rotate(platform.key);
    expect(rotated.clientId).toBe(platform.clientId);

    const old = await exchange(ctx.gateway.app, basic(platform.clientId, platform.clientSecret), code).expect(401);
    expect(old.body.code).toBe('INVALID_CLIENT_CREDENTIALS');
    // The refused attempt did not consume the code.
    const ok = await exchange(ctx.gateway.app, basic(rotated.clientId, rotated.clientSecret), code).expect(200);
    expect(ok.body.platform).toEqual({ key: platform.key });
  });

  it('an exchange already in flight when the rotation commits is refused', async () => {
    // The in-flight exchange runs on its own app whose pool has a single
    // connection, held by the test: the request is received, its Basic
    // credentials parsed, and it waits for the database while the rotation
    // commits on another connection. Nothing about the credentials may have been
    // decided (or cached) before its SQL runs.
    const platform = await seedPlatform(database.db);
    const code = await issueTestHandoff(ctx.gateway, platform.key);
    const pool: Db = createDb(database.url, { poolMax: 1 });
    try {
      const inFlightApp = (await createTestApp({ db: pool })).app;
      const holder = await pool.transaction();
      const inFlight = exchange(inFlightApp, basic(platform.clientId, platform.clientSecret), code).then((res) => res);
      await waitFor(() => pendingAcquires(pool) >= 1);

      const rotated = await rotate(platform.key);
      await holder.commit();

      const refused = await inFlight;
      expect(refused.status).toBe(401);
      expect(refused.body.code).toBe('INVALID_CLIENT_CREDENTIALS');
      await exchange(ctx.gateway.app, basic(rotated.clientId, rotated.clientSecret), code).expect(200);
    } finally {
      await pool.destroy();
    }
  });

  it('racing rotations and exchanges: once a rotation has returned, only its secret works; the code is redeemed at most once', async () => {
    const platform = await seedPlatform(database.db);
    const codes = await Promise.all(Array.from({ length: 6 }, () => issueTestHandoff(ctx.gateway, platform.key)));
    let secret = platform.clientSecret;
    const attempts: Promise<request.Response>[] = [];
    for (let round = 0; round < 5; round++) {
      // Exchanges with the current secret race the next rotation.
      for (const code of codes) attempts.push(exchange(ctx.gateway.app, basic(platform.clientId, secret), code).then((res) => res));
      const previous = secret;
      secret = (await rotate(platform.key)).clientSecret;
      // The rotation has committed: the previous secret is refused from now on, every time.
      const late = await Promise.all(codes.map((code) => exchange(ctx.gateway.app, basic(platform.clientId, previous), code)));
      for (const res of late) expect(res.status).toBe(401);
    }
    const results = await Promise.all(attempts);
    for (const res of results) expect([200, 401, 404]).toContain(res.status);
    const redeemed = results.filter((res) => res.status === 200).map((res) => res.body.session.id as string);
    expect(new Set(redeemed).size).toBe(redeemed.length);
    expect(redeemed.length).toBeLessThanOrEqual(codes.length);
    // Whatever is left is redeemable with the newest secret only.
    const { rows } = await database.db.raw(
      `SELECT count(*) AS n FROM handoff_codes h JOIN platforms p ON p.id = h.platform_id WHERE p.platform_key = ? AND h.consumed_at IS NULL`,
      [platform.key],
    );
    expect(rows[0].n).toBe(codes.length - redeemed.length);
  });

  it('deactivation: start gives 404 and the exchange refuses the valid credentials with 401 (as the event poll does), leaving an outstanding code unspent', async () => {
    const platform = await seedPlatform(database.db);
    const code = await issueTestHandoff(ctx.gateway, platform.key);
    await ctx.cookieAdmin.apply(request(ctx.gateway.app).delete(`/v1/platforms/${platform.key}`)).expect(200);

    const start = await request(ctx.gateway.app).get('/v1/auth/start').query({ platformKey: platform.key, returnTo: 'https://bff.example.test/' }).expect(404);
    expect(start.body.code).toBe('PLATFORM_NOT_FOUND');
    const res = await exchange(ctx.gateway.app, basic(platform.clientId, platform.clientSecret), code).expect(401);
    expect(res.body.code).toBe('INVALID_CLIENT_CREDENTIALS');
    expect(res.body.detail).toContain('deactivated');
    // Wrong credentials say 401 without the reason, so a deactivated platform does not become a secret oracle.
    const wrong = await exchange(ctx.gateway.app, basic(platform.clientId, 'pcs_wrong-secret-wrong-secret-wrong-secret-xx'), code).expect(401);
    expect(wrong.body.detail).not.toContain('deactivated');
    // Nothing was consumed: reactivated within the code's lifetime, the same code redeems.
    await ctx.cookieAdmin.apply(request(ctx.gateway.app).post(`/v1/platforms/${platform.key}/activate`)).expect(200);
    await exchange(ctx.gateway.app, basic(platform.clientId, platform.clientSecret), code).expect(200);
  });
});

function pendingAcquires(db: Db): number {
  const pool = (db.client as { pool?: { numPendingAcquires(): number } }).pool;
  return pool?.numPendingAcquires() ?? 0;
}

async function waitFor(condition: () => boolean, timeoutMs = 3000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > until) throw new Error('condition not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
