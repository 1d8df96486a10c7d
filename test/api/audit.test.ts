import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { sha256 } from '../../src/security/crypto.ts';
import { CLI_ACTOR, rotatePlatformCredentials, updatePlatform } from '../../src/services/registry/index.ts';
import { newPlatformKey, platformBody, seedPlatform, startRegistryTestContext, type Caller, type RegistryTestContext } from './registryHelpers.ts';

interface AuditRow {
  action: string;
  platform_key: string;
  actor_type: string;
  actor_user_id: string | null;
  actor_sub: string | null;
  changed_fields: string[];
  request_id: string | null;
}

describe('audit log', () => {
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

  const api = () => request(ctx.gateway.app);
  const rowsOf = async (key: string): Promise<AuditRow[]> =>
    (await database.db.raw('SELECT * FROM audit_events WHERE platform_key = ? ORDER BY occurred_at, id', [key])).rows;

  describe('every registry change appends one row: who, what, when, which request', () => {
    it.each([['Bearer admin'], ['cookie admin']])('%s: create, update, deactivate, activate, rotate', async (which) => {
      const caller: Caller = which === 'Bearer admin' ? ctx.bearerAdmin : ctx.cookieAdmin;
      const key = newPlatformKey('AUDIT');
      const secrets: string[] = [];
      const requestIds: string[] = [];
      const send = async (test: request.Test, status: number) => {
        const res = await caller.apply(test).expect(status);
        requestIds.push(String(res.headers['x-request-id']));
        return res;
      };

      const created = await send(api().post('/v1/platforms').send(platformBody({ platformKey: key, metadata: { team: 'x' } })), 201);
      secrets.push(created.body.clientSecret);
      await send(api().patch(`/v1/platforms/${key}`).send({ displayName: 'Renamed', allowedReturnUrls: ['https://bff.example.test/', 'https://b.example.test/'] }), 200);
      await send(api().delete(`/v1/platforms/${key}`), 200);
      await send(api().post(`/v1/platforms/${key}/activate`), 200);
      const rotated = await send(api().post(`/v1/platforms/${key}/credentials/rotate`), 200);
      secrets.push(rotated.body.clientSecret);

      const rows = await rowsOf(key);
      expect(rows.map((row) => row.action)).toEqual([
        'platform.create',
        'platform.update',
        'platform.deactivate',
        'platform.activate',
        'platform.rotate_credentials',
      ]);
      for (const [index, row] of rows.entries()) {
        expect(row).toMatchObject({ actor_type: 'user', actor_user_id: caller.userId, actor_sub: caller.sub, request_id: requestIds[index] });
      }
      expect(rows[0]!.changed_fields).toEqual([
        'platformKey',
        'displayName',
        'callbackUrl',
        'allowedReturnUrls',
        'defaultOnboardingMode',
        'centralOnboardingEnabled',
        'metadata',
        'clientId',
        'clientSecret',
      ]);
      expect(rows[1]!.changed_fields).toEqual(['displayName', 'allowedReturnUrls']);
      expect(rows[2]!.changed_fields).toEqual(['active']);
      expect(rows[3]!.changed_fields).toEqual(['active']);
      expect(rows[4]!.changed_fields).toEqual(['clientSecret']);

      // Never a secret, its digest, or any changed value.
      const text = JSON.stringify((await database.db.raw('SELECT row_to_json(a)::text AS row FROM audit_events a WHERE platform_key = ?', [key])).rows);
      for (const secret of secrets) {
        expect(text).not.toContain(secret);
        expect(text).not.toContain(sha256(secret).toString('hex'));
        expect(text).not.toContain(sha256(secret).toString('base64'));
      }
      expect(text).not.toContain('Renamed');
      expect(text).not.toContain('b.example.test');
    });

    it('the command line is recorded as actor cli with no user and no request', async () => {
      const { key } = await seedPlatform(database.db);
      await updatePlatform(database.db, key, { displayName: 'From the CLI' }, CLI_ACTOR);
      await rotatePlatformCredentials(database.db, key, CLI_ACTOR);
      const rows = await rowsOf(key);
      expect(rows.map((row) => row.action)).toEqual(['platform.create', 'platform.update', 'platform.rotate_credentials']);
      for (const row of rows) expect(row).toMatchObject({ actor_type: 'cli', actor_user_id: null, actor_sub: null, request_id: null });
    });

    it('refused and no-op requests write nothing', async () => {
      const { key, platform } = await seedPlatform(database.db, { defaultOnboardingMode: 'none' });
      const before = await rowsOf(key);
      // validation failure, duplicate, no-op patch, idempotent activate, forbidden
      await ctx.bearerAdmin.apply(api().patch(`/v1/platforms/${key}`).send({ callbackUrl: null })).expect(400);
      await ctx.bearerAdmin.apply(api().post('/v1/platforms').send(platformBody({ platformKey: key }))).expect(409);
      await ctx.bearerAdmin.apply(api().patch(`/v1/platforms/${key}`).send({ displayName: platform.displayName, defaultOnboardingMode: 'none' })).expect(200);
      await ctx.bearerAdmin.apply(api().post(`/v1/platforms/${key}/activate`)).expect(200);
      await ctx.bearerAlice.apply(api().post(`/v1/platforms/${key}/credentials/rotate`)).expect(403);
      await ctx.cookieAdminForeignOrigin.apply(api().delete(`/v1/platforms/${key}`)).expect(403);
      expect(await rowsOf(key)).toEqual(before);
      // A second deactivation changes nothing and is not audited twice.
      await ctx.bearerAdmin.apply(api().delete(`/v1/platforms/${key}`)).expect(200);
      await ctx.bearerAdmin.apply(api().delete(`/v1/platforms/${key}`)).expect(200);
      expect((await rowsOf(key)).map((row) => row.action)).toEqual(['platform.create', 'platform.deactivate']);
    });

    it('a failed activation (409) writes nothing', async () => {
      const key = newPlatformKey('NOCB');
      await ctx.bearerAdmin.apply(api().post('/v1/platforms').send({ platformKey: key, displayName: 'No callback', active: false })).expect(201);
      await ctx.bearerAdmin.apply(api().post(`/v1/platforms/${key}/activate`)).expect(409);
      expect((await rowsOf(key)).map((row) => row.action)).toEqual(['platform.create']);
    });
  });

  describe('GET /v1/audit-events', () => {
    it('needs platforms:admin (401 / 403, cookie and Bearer)', async () => {
      expect((await api().get('/v1/audit-events').expect(401)).body.code).toBe('UNAUTHENTICATED');
      expect((await ctx.bearerAlice.apply(api().get('/v1/audit-events')).expect(403)).body.code).toBe('FORBIDDEN');
      expect((await ctx.cookieAlice.apply(api().get('/v1/audit-events')).expect(403)).body.code).toBe('FORBIDDEN');
      await ctx.cookieAdmin.apply(api().get('/v1/audit-events')).expect(200);
      await ctx.bearerAdmin.apply(api().get('/v1/audit-events')).expect(200);
    });

    it('lists events newest first, in the contract shape, filtered by platform and action', async () => {
      const { key } = await seedPlatform(database.db);
      const patched = await ctx.bearerAdmin.apply(api().patch(`/v1/platforms/${key}`).send({ displayName: 'One' })).expect(200);
      await ctx.cookieAdmin.apply(api().post(`/v1/platforms/${key}/credentials/rotate`)).expect(200);

      const res = await ctx.bearerAdmin.apply(api().get('/v1/audit-events').query({ platformKey: key })).expect(200);
      expect(res.body.nextCursor).toBeNull();
      expect(res.body.items.map((item: { action: string }) => item.action)).toEqual(['platform.rotate_credentials', 'platform.update', 'platform.create']);
      const [rotation, update, creation] = res.body.items;
      expect(rotation).toEqual({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        occurredAt: expect.any(String),
        action: 'platform.rotate_credentials',
        platformKey: key,
        fieldKey: null,
        sessionId: null, // set only on session.revoke
        actor: { type: 'user', userId: ctx.cookieAdmin.userId, sub: 'cookie-admin', via: 'session', platformKey: null },
        changedFields: ['clientSecret'],
        requestId: expect.any(String),
      });
      expect(update).toMatchObject({ actor: { type: 'user', userId: null, sub: 'dev-user-admin', via: 'bearer', platformKey: null }, changedFields: ['displayName'], requestId: patched.headers['x-request-id'] });
      expect(creation).toMatchObject({ actor: { type: 'cli', userId: null, sub: null, via: null, platformKey: null }, requestId: null });
      expect(Date.parse(rotation.occurredAt)).toBeGreaterThanOrEqual(Date.parse(update.occurredAt));

      const onlyUpdates = await ctx.bearerAdmin.apply(api().get('/v1/audit-events').query({ platformKey: key, action: 'platform.update' })).expect(200);
      expect(onlyUpdates.body.items).toHaveLength(1);
      expect(onlyUpdates.body.items[0].id).toBe(update.id);

      const anyPlatform = await ctx.bearerAdmin.apply(api().get('/v1/audit-events').query({ action: 'platform.rotate_credentials', limit: 100 })).expect(200);
      expect(anyPlatform.body.items.every((item: { action: string }) => item.action === 'platform.rotate_credentials')).toBe(true);
    });

    it('pages with a cursor without gaps or repeats, even among events of the same instant', async () => {
      const key = newPlatformKey('PAGES');
      // Twelve events sharing one timestamp, and a few at other times: the cursor must order by (time, id).
      await database.db.raw(
        `INSERT INTO audit_events (occurred_at, action, platform_key, actor_type, changed_fields)
         SELECT CASE WHEN n <= 12 THEN timestamptz '2030-01-01 00:00:00.123456+00' ELSE timestamptz '2030-01-01 00:00:00+00' + n * interval '1 microsecond' END,
                'platform.update', ?, 'cli', ARRAY['displayName']
           FROM generate_series(1, 17) AS n`,
        [key],
      );
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const res: request.Response = await ctx.bearerAdmin
          .apply(api().get('/v1/audit-events').query({ platformKey: key, limit: 5, ...(cursor ? { cursor } : {}) }))
          .expect(200);
        seen.push(...res.body.items.map((item: { id: string }) => item.id));
        cursor = res.body.nextCursor;
        pages++;
      } while (cursor && pages < 20);
      expect(pages).toBe(4);
      expect(seen).toHaveLength(17);
      expect(new Set(seen).size).toBe(17);
      const { rows } = await database.db.raw('SELECT id FROM audit_events WHERE platform_key = ? ORDER BY occurred_at DESC, id DESC', [key]);
      expect(seen).toEqual(rows.map((row: { id: string }) => row.id));
    });

    it('refuses a forged cursor and unknown filters with 400', async () => {
      for (const cursor of ['%%%', Buffer.from('{"o":"yesterday","i":"x"}').toString('base64url')]) {
        const res = await ctx.bearerAdmin.apply(api().get('/v1/audit-events').query({ cursor })).expect(400);
        expect(res.body.errors[0].pointer).toBe('/query/cursor');
      }
      const action = await ctx.bearerAdmin.apply(api().get('/v1/audit-events').query({ action: 'platform.explode' })).expect(400);
      expect(action.body.errors[0].pointer).toBe('/query/action');
      const key = await ctx.bearerAdmin.apply(api().get('/v1/audit-events').query({ platformKey: 'lower' })).expect(400);
      expect(key.body.errors[0].pointer).toBe('/query/platformKey');
    });
  });
});
