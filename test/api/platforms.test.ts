import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { sha256 } from '../../src/security/crypto.ts';
import {
  ACCOUNT_CENTER_ORIGIN,
  FOREIGN_ORIGIN,
  newPlatformKey,
  platformBody,
  seedPlatform,
  startRegistryTestContext,
  type Caller,
  type RegistryTestContext,
} from './registryHelpers.ts';

const PLATFORM_FIELDS = [
  'active',
  'allowedReturnUrls',
  'callbackUrl',
  'centralOnboardingEnabled',
  'clientId',
  'createdAt',
  'defaultOnboardingMode',
  'displayName',
  'metadata',
  'platformKey',
  'platformOnboardingPath',
  'requirementVersion',
  'updatedAt',
];

describe('platform registry API', () => {
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
  const as = (caller: Caller, test: request.Test) => caller.apply(test);
  const digestOf = async (key: string): Promise<Buffer | null> =>
    (await database.db.raw('SELECT client_secret_digest FROM platforms WHERE platform_key = ?', [key])).rows[0].client_secret_digest;

  // ------------------------------------------------------------------ permissions

  describe('permissions: platforms:admin by cookie or Bearer', () => {
    type Operation = {
      operationId: string;
      ok: number;
      send: (key: string) => request.Test;
    };
    const operations: Operation[] = [
      { operationId: 'listPlatforms', ok: 200, send: () => api().get('/v1/platforms') },
      { operationId: 'createPlatform', ok: 201, send: () => api().post('/v1/platforms').send(platformBody()) },
      { operationId: 'getPlatform', ok: 200, send: (key) => api().get(`/v1/platforms/${key}`) },
      { operationId: 'updatePlatform', ok: 200, send: (key) => api().patch(`/v1/platforms/${key}`).send({ displayName: 'Renamed' }) },
      { operationId: 'deactivatePlatform', ok: 200, send: (key) => api().delete(`/v1/platforms/${key}`) },
      { operationId: 'activatePlatform', ok: 200, send: (key) => api().post(`/v1/platforms/${key}/activate`) },
      { operationId: 'rotatePlatformCredentials', ok: 200, send: (key) => api().post(`/v1/platforms/${key}/credentials/rotate`) },
      { operationId: 'listAuditEvents', ok: 200, send: () => api().get('/v1/audit-events') },
    ];
    const writes = new Set(['createPlatform', 'updatePlatform', 'deactivatePlatform', 'activatePlatform', 'rotatePlatformCredentials']);

    it.each(operations)('$operationId: 401 without credentials', async ({ send }) => {
      const { key } = await seedPlatform(database.db);
      const res = await send(key).expect(401);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.body.code).toBe('UNAUTHENTICATED');
    });

    it.each(operations)('$operationId: 403 FORBIDDEN for callers without platforms:admin (Bearer and cookie)', async ({ send }) => {
      const { key } = await seedPlatform(database.db);
      for (const caller of [ctx.bearerAlice, ctx.cookieAlice]) {
        const res = await as(caller, send(key));
        expect(res.status, caller.name).toBe(403);
        expect(res.body.code, caller.name).toBe('FORBIDDEN');
      }
    });

    it.each(operations)('$operationId: allowed with platforms:admin (Bearer and cookie)', async ({ send, ok }) => {
      for (const caller of [ctx.bearerAdmin, ctx.cookieAdmin]) {
        const { key } = await seedPlatform(database.db);
        const res = await as(caller, send(key));
        expect(res.status, `${caller.name}: ${JSON.stringify(res.body)}`).toBe(ok);
      }
    });

    it.each(operations.filter((op) => writes.has(op.operationId)))(
      '$operationId: a cookie-authenticated write from a foreign origin is 403 ORIGIN_NOT_ALLOWED',
      async ({ send }) => {
        const { key } = await seedPlatform(database.db);
        const before = (await database.db.raw('SELECT updated_at FROM platforms WHERE platform_key = ?', [key])).rows[0];
        const res = await as(ctx.cookieAdminForeignOrigin, send(key)).expect(403);
        expect(res.body.code).toBe('ORIGIN_NOT_ALLOWED');
        const after = (await database.db.raw('SELECT updated_at FROM platforms WHERE platform_key = ?', [key])).rows[0];
        expect(after).toEqual(before);
      },
    );

    it('a cookie write without Origin (a server-side client) passes; a Bearer write is never origin checked', async () => {
      const { key } = await seedPlatform(database.db);
      const cookieHeader = (await as(ctx.cookieAdmin, api().get('/'))).request.getHeader('Cookie') as string;
      await api().patch(`/v1/platforms/${key}`).set('Cookie', cookieHeader).send({ displayName: 'No origin' }).expect(200);
      await as(ctx.bearerAdmin, api().patch(`/v1/platforms/${key}`)).set('Origin', FOREIGN_ORIGIN).send({ displayName: 'Bearer' }).expect(200);
    });

    it('an invalid Bearer token is 401, not 403', async () => {
      const res = await api().get('/v1/platforms').set('Authorization', 'Bearer not-a-token').expect(401);
      expect(['ACCESS_TOKEN_INVALID', 'UNAUTHENTICATED']).toContain(res.body.code);
    });

    it('CORS answers the exact allowed origin with credentials, never *', async () => {
      const allowed = await api()
        .options('/v1/platforms')
        .set('Origin', ACCOUNT_CENTER_ORIGIN)
        .set('Access-Control-Request-Method', 'POST')
        .set('Access-Control-Request-Headers', 'content-type');
      expect(allowed.status).toBeLessThan(300);
      expect(allowed.headers['access-control-allow-origin']).toBe(ACCOUNT_CENTER_ORIGIN);
      expect(allowed.headers['access-control-allow-credentials']).toBe('true');

      const foreign = await api().options('/v1/platforms').set('Origin', FOREIGN_ORIGIN).set('Access-Control-Request-Method', 'POST');
      expect(foreign.headers['access-control-allow-origin']).toBeUndefined();

      const read = await as(ctx.cookieAdmin, api().get('/v1/platforms')).expect(200);
      expect(read.headers['access-control-allow-origin']).toBe(ACCOUNT_CENTER_ORIGIN);
      expect(read.headers['access-control-allow-credentials']).toBe('true');
    });
  });

  // ------------------------------------------------------------------ create

  describe('create', () => {
    it('201 with the whole representation, the secret once, Location and no-store; defaults applied', async () => {
      const key = newPlatformKey('CREATE');
      const res = await as(ctx.bearerAdmin, api().post('/v1/platforms'))
        .send({
          platformKey: key,
          displayName: 'Created platform',
          callbackUrl: 'https://bff.example.test/auth/callback?tenant=1',
          allowedReturnUrls: ['https://bff.example.test/'],
        })
        .expect(201);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers.location).toBe(`/v1/platforms/${key}`);
      expect(Object.keys(res.body).sort()).toEqual([...PLATFORM_FIELDS, 'clientSecret'].sort());
      expect(res.body).toMatchObject({
        platformKey: key,
        displayName: 'Created platform',
        callbackUrl: 'https://bff.example.test/auth/callback?tenant=1',
        allowedReturnUrls: ['https://bff.example.test/'],
        defaultOnboardingMode: 'central',
        centralOnboardingEnabled: true,
        platformOnboardingPath: null,
        metadata: {},
        active: true,
        requirementVersion: 1,
      });
      expect(res.body.clientId).toMatch(/^pc_[A-Za-z0-9_-]{22}$/);
      // 256 random bits, base64url: 43 characters after the prefix.
      expect(res.body.clientSecret).toMatch(/^pcs_[A-Za-z0-9_-]{43}$/);
      expect(res.body.createdAt).toBe(res.body.updatedAt);

      // Stored only as its SHA-256 digest; nothing else in the row holds it.
      expect(await digestOf(key)).toEqual(sha256(res.body.clientSecret));
      const { rows } = await database.db.raw('SELECT row_to_json(p)::text AS row FROM platforms p WHERE platform_key = ?', [key]);
      expect(rows[0].row).not.toContain(res.body.clientSecret);
    });

    it('two platforms never share a client id or secret', async () => {
      const a = await as(ctx.bearerAdmin, api().post('/v1/platforms')).send(platformBody()).expect(201);
      const b = await as(ctx.bearerAdmin, api().post('/v1/platforms')).send(platformBody()).expect(201);
      expect(a.body.clientId).not.toBe(b.body.clientId);
      expect(a.body.clientSecret).not.toBe(b.body.clientSecret);
    });

    it('a duplicate key is 409 CONFLICT and changes nothing', async () => {
      const { key, platform } = await seedPlatform(database.db);
      const res = await as(ctx.cookieAdmin, api().post('/v1/platforms')).send(platformBody({ platformKey: key, displayName: 'Other' })).expect(409);
      expect(res.body.code).toBe('CONFLICT');
      const read = await as(ctx.bearerAdmin, api().get(`/v1/platforms/${key}`)).expect(200);
      expect(read.body).toEqual(platform);
    });

    it('stores all optional properties as sent', async () => {
      const body = platformBody({
        defaultOnboardingMode: 'platform',
        centralOnboardingEnabled: false,
        platformOnboardingPath: '/onboarding?step=1',
        metadata: { team: 'identity', nested: { list: [1, 2, 3] } },
      });
      const res = await as(ctx.bearerAdmin, api().post('/v1/platforms')).send(body).expect(201);
      expect(res.body).toMatchObject({
        defaultOnboardingMode: 'platform',
        centralOnboardingEnabled: false,
        platformOnboardingPath: '/onboarding?step=1',
        metadata: { team: 'identity', nested: { list: [1, 2, 3] } },
      });
    });

    it('normalizes URLs and de-duplicates equivalent return roots, keeping their order (a trailing slash makes another root)', async () => {
      const res = await as(ctx.bearerAdmin, api().post('/v1/platforms'))
        .send(
          platformBody({
            callbackUrl: 'HTTPS://BFF.Example.TEST:443/auth/callback',
            allowedReturnUrls: ['https://App.example.test:443/app/', 'https://other.example.test/', 'https://app.example.test/app', 'HTTPS://APP.EXAMPLE.TEST/app/'],
          }),
        )
        .expect(201);
      expect(res.body.callbackUrl).toBe('https://bff.example.test/auth/callback');
      // `/app/` admits only paths below it, `/app` also `/app` itself: two different roots.
      expect(res.body.allowedReturnUrls).toEqual(['https://app.example.test/app/', 'https://other.example.test/', 'https://app.example.test/app']);
    });

    it('an inactive platform may be created without callback and return URLs', async () => {
      const res = await as(ctx.bearerAdmin, api().post('/v1/platforms'))
        .send({ platformKey: newPlatformKey('DRAFT'), displayName: 'Draft', active: false })
        .expect(201);
      expect(res.body).toMatchObject({ active: false, callbackUrl: null, allowedReturnUrls: [] });
      expect(res.body.clientSecret).toEqual(expect.any(String));
    });

    const invalid: { name: string; body: Record<string, unknown>; pointer: string }[] = [
      { name: 'platformKey in lower case (never uppercased for the caller)', body: { platformKey: 'demo_platform' }, pointer: '/body/platformKey' },
      { name: 'platformKey too short', body: { platformKey: 'A' }, pointer: '/body/platformKey' },
      { name: 'platformKey starting with a digit', body: { platformKey: '1ABC' }, pointer: '/body/platformKey' },
      { name: 'platformKey missing', body: { platformKey: undefined }, pointer: '/body/platformKey' },
      { name: 'displayName empty', body: { displayName: '' }, pointer: '/body/displayName' },
      { name: 'displayName blank', body: { displayName: '   ' }, pointer: '/body/displayName' },
      { name: 'displayName too long', body: { displayName: 'x'.repeat(201) }, pointer: '/body/displayName' },
      { name: 'callbackUrl relative', body: { callbackUrl: '/auth/callback' }, pointer: '/body/callbackUrl' },
      { name: 'callbackUrl with userinfo', body: { callbackUrl: 'https://user:pw@bff.example.test/cb' }, pointer: '/body/callbackUrl' },
      { name: 'callbackUrl with a fragment', body: { callbackUrl: 'https://bff.example.test/cb#x' }, pointer: '/body/callbackUrl' },
      { name: 'callbackUrl with another scheme', body: { callbackUrl: 'ftp://bff.example.test/cb' }, pointer: '/body/callbackUrl' },
      { name: 'callbackUrl javascript:', body: { callbackUrl: 'javascript:alert(1)' }, pointer: '/body/callbackUrl' },
      { name: 'callbackUrl with a backslash', body: { callbackUrl: 'https://bff.example.test\\@evil.test/' }, pointer: '/body/callbackUrl' },
      { name: 'callbackUrl carrying a code parameter', body: { callbackUrl: 'https://bff.example.test/cb?code=x' }, pointer: '/body/callbackUrl' },
      { name: 'allowedReturnUrls item with a query', body: { allowedReturnUrls: ['https://bff.example.test/?a=1'] }, pointer: '/body/allowedReturnUrls/0' },
      { name: 'allowedReturnUrls item with a fragment', body: { allowedReturnUrls: ['https://bff.example.test/#x'] }, pointer: '/body/allowedReturnUrls/0' },
      { name: 'allowedReturnUrls item with userinfo', body: { allowedReturnUrls: ['https://ok.test/', 'https://u@bff.example.test/'] }, pointer: '/body/allowedReturnUrls/1' },
      { name: 'allowedReturnUrls item not a URL', body: { allowedReturnUrls: ['not a url'] }, pointer: '/body/allowedReturnUrls/0' },
      { name: 'allowedReturnUrls not an array', body: { allowedReturnUrls: 'https://bff.example.test/' }, pointer: '/body/allowedReturnUrls' },
      {
        name: 'allowedReturnUrls with more than 50 roots',
        body: { allowedReturnUrls: Array.from({ length: 51 }, (_, i) => `https://r${i}.example.test/`) },
        pointer: '/body/allowedReturnUrls',
      },
      { name: 'allowedReturnUrls empty on an active platform', body: { allowedReturnUrls: [] }, pointer: '/body/allowedReturnUrls' },
      { name: 'callbackUrl missing on an active platform', body: { callbackUrl: undefined }, pointer: '/body/callbackUrl' },
      { name: 'callbackUrl null on an active platform', body: { callbackUrl: null }, pointer: '/body/callbackUrl' },
      { name: 'defaultOnboardingMode outside the enum', body: { defaultOnboardingMode: 'sometimes' }, pointer: '/body/defaultOnboardingMode' },
      {
        name: 'central mode with central onboarding disabled',
        body: { defaultOnboardingMode: 'central', centralOnboardingEnabled: false },
        pointer: '/body/centralOnboardingEnabled',
      },
      {
        name: 'central onboarding disabled under the default (central) mode',
        body: { defaultOnboardingMode: undefined, centralOnboardingEnabled: false },
        pointer: '/body/centralOnboardingEnabled',
      },
      { name: 'centralOnboardingEnabled not a boolean', body: { centralOnboardingEnabled: 'yes' }, pointer: '/body/centralOnboardingEnabled' },
      { name: 'platformOnboardingPath not a path', body: { platformOnboardingPath: 'onboarding' }, pointer: '/body/platformOnboardingPath' },
      { name: 'platformOnboardingPath protocol-relative', body: { platformOnboardingPath: '//evil.test/x' }, pointer: '/body/platformOnboardingPath' },
      { name: 'metadata an array', body: { metadata: [1, 2] }, pointer: '/body/metadata' },
      { name: 'metadata null', body: { metadata: null }, pointer: '/body/metadata' },
      { name: 'metadata a string', body: { metadata: 'team=identity' }, pointer: '/body/metadata' },
      { name: 'metadata over 16 KiB', body: { metadata: { blob: 'x'.repeat(16 * 1024) } }, pointer: '/body/metadata' },
      {
        name: 'metadata with more than 100 properties',
        body: { metadata: Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`k${i}`, i])) },
        pointer: '/body/metadata',
      },
      { name: 'active not a boolean', body: { active: 'no' }, pointer: '/body/active' },
      { name: 'an unknown property', body: { colour: 'blue' }, pointer: '/body/colour' },
      { name: 'clientId (generated, never sent)', body: { clientId: 'pc_mine' }, pointer: '/body/clientId' },
    ];

    it.each(invalid)('400 VALIDATION_FAILED naming the field: $name', async ({ body, pointer }) => {
      const sent = platformBody(body as never);
      for (const [name, value] of Object.entries(body)) if (value === undefined) delete (sent as Record<string, unknown>)[name];
      const res = await as(ctx.bearerAdmin, api().post('/v1/platforms')).send(sent).expect(400);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.body.code).toBe('VALIDATION_FAILED');
      expect(res.body.errors.map((error: { pointer: string }) => error.pointer)).toContain(pointer);
      if (typeof sent.platformKey === 'string') {
        const { rows } = await database.db.raw('SELECT 1 FROM platforms WHERE platform_key = ?', [sent.platformKey]);
        expect(rows).toHaveLength(0);
      }
    });

    it('reports every invalid field at once', async () => {
      const res = await as(ctx.bearerAdmin, api().post('/v1/platforms'))
        .send(platformBody({ callbackUrl: 'https://u@x.test/', allowedReturnUrls: ['https://x.test/?q'], defaultOnboardingMode: 'central', centralOnboardingEnabled: false }))
        .expect(400);
      const pointers = res.body.errors.map((error: { pointer: string }) => error.pointer);
      expect(pointers).toEqual(expect.arrayContaining(['/body/callbackUrl', '/body/allowedReturnUrls/0']));
    });

    it('a body that is not JSON is 415; malformed JSON is 400', async () => {
      await as(ctx.bearerAdmin, api().post('/v1/platforms')).set('Content-Type', 'text/plain').send('platformKey=X').expect(415);
      const res = await as(ctx.bearerAdmin, api().post('/v1/platforms')).set('Content-Type', 'application/json').send('{"platformKey":');
      expect(res.status).toBe(400);
    });
  });

  // ------------------------------------------------------------------ read and list

  describe('read and list', () => {
    it('get returns the read representation, never a secret or its digest', async () => {
      const { key, platform, clientSecret } = await seedPlatform(database.db, { metadata: { team: 'x' } });
      const res = await as(ctx.cookieAdmin, api().get(`/v1/platforms/${key}`)).expect(200);
      expect(Object.keys(res.body).sort()).toEqual(PLATFORM_FIELDS);
      expect(res.body).toEqual(platform);
      const text = JSON.stringify(res.body);
      expect(text).not.toContain(clientSecret);
      expect(text).not.toContain(sha256(clientSecret).toString('hex'));
      expect(text).not.toContain(sha256(clientSecret).toString('base64'));
    });

    it('an unknown key is 404 PLATFORM_NOT_FOUND; a malformed key is 400', async () => {
      const res = await as(ctx.bearerAdmin, api().get('/v1/platforms/NO_SUCH_PLATFORM')).expect(404);
      expect(res.body.code).toBe('PLATFORM_NOT_FOUND');
      const bad = await as(ctx.bearerAdmin, api().get('/v1/platforms/lowercase')).expect(400);
      expect(bad.body.errors[0].pointer).toBe('/path/platformKey');
    });

    it('an inactive platform is still readable', async () => {
      const { key } = await seedPlatform(database.db, { active: false });
      const res = await as(ctx.bearerAdmin, api().get(`/v1/platforms/${key}`)).expect(200);
      expect(res.body.active).toBe(false);
    });

    it('lists every platform once, ordered by key, over cursor pages; filters by active', async () => {
      const prefix = newPlatformKey('LIST');
      const keys = [`${prefix}_B`, `${prefix}_A`, `${prefix}_C`, `${prefix}_A_1`, `${prefix}_D`];
      for (const [index, key] of keys.entries()) await seedPlatform(database.db, { platformKey: key, active: index % 2 === 0 });

      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const res: request.Response = await as(ctx.bearerAdmin, api().get('/v1/platforms').query({ limit: 2, ...(cursor ? { cursor } : {}) }));
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        expect(res.body.items.length).toBeLessThanOrEqual(2);
        for (const item of res.body.items) expect(Object.keys(item).sort()).toEqual(PLATFORM_FIELDS);
        seen.push(...res.body.items.map((item: { platformKey: string }) => item.platformKey));
        cursor = res.body.nextCursor;
        pages++;
      } while (cursor && pages < 500);
      expect(cursor).toBeNull();
      expect(new Set(seen).size).toBe(seen.length);
      expect(seen).toEqual([...seen].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
      expect(seen).toEqual(expect.arrayContaining(keys));
      const all = (await database.db.raw('SELECT count(*) AS n FROM platforms')).rows[0].n;
      expect(seen).toHaveLength(all);

      const inactive = await as(ctx.bearerAdmin, api().get('/v1/platforms').query({ active: false, limit: 100 })).expect(200);
      expect(inactive.body.items.every((item: { active: boolean }) => !item.active)).toBe(true);
      expect(inactive.body.items.map((item: { platformKey: string }) => item.platformKey)).toEqual(expect.arrayContaining([`${prefix}_A`, `${prefix}_A_1`]));
      const active = await as(ctx.bearerAdmin, api().get('/v1/platforms').query({ active: true, limit: 100 })).expect(200);
      expect(active.body.items.every((item: { active: boolean }) => item.active)).toBe(true);
      expect(active.body.items.map((item: { platformKey: string }) => item.platformKey)).toEqual(expect.arrayContaining([`${prefix}_B`, `${prefix}_C`, `${prefix}_D`]));
    });

    it('refuses a forged cursor and an out-of-range limit with 400', async () => {
      for (const cursor of ['not-a-cursor', Buffer.from('{"k":"lower"}').toString('base64url'), Buffer.from('[]').toString('base64url')]) {
        const res = await as(ctx.bearerAdmin, api().get('/v1/platforms').query({ cursor })).expect(400);
        expect(res.body.errors).toEqual([{ pointer: '/query/cursor', message: expect.any(String) }]);
      }
      for (const limit of [0, 101, 'x']) {
        const res = await as(ctx.bearerAdmin, api().get('/v1/platforms').query({ limit })).expect(400);
        expect(res.body.errors[0].pointer).toBe('/query/limit');
      }
    });
  });

  // ------------------------------------------------------------------ update

  describe('update (PATCH)', () => {
    it('changes only the properties sent, and updatedAt', async () => {
      const { key, platform } = await seedPlatform(database.db, { metadata: { a: 1 }, platformOnboardingPath: '/onboard' });
      const res = await as(ctx.bearerAdmin, api().patch(`/v1/platforms/${key}`))
        .send({ displayName: 'Renamed', allowedReturnUrls: ['https://bff.example.test/', 'https://staging.example.test/app'] })
        .expect(200);
      expect(res.body).toEqual({
        ...platform,
        displayName: 'Renamed',
        allowedReturnUrls: ['https://bff.example.test/', 'https://staging.example.test/app'],
        updatedAt: expect.any(String),
      });
      expect(Date.parse(res.body.updatedAt)).toBeGreaterThanOrEqual(Date.parse(platform.updatedAt));
      expect(res.body.clientId).toBe(platform.clientId);
      const read = await as(ctx.bearerAdmin, api().get(`/v1/platforms/${key}`)).expect(200);
      expect(read.body).toEqual(res.body);
    });

    it('null clears a nullable property; metadata is replaced as a whole', async () => {
      const { key } = await seedPlatform(database.db, { metadata: { a: 1, b: 2 }, platformOnboardingPath: '/onboard' });
      const res = await as(ctx.cookieAdmin, api().patch(`/v1/platforms/${key}`)).send({ platformOnboardingPath: null, metadata: { c: 3 } }).expect(200);
      expect(res.body.platformOnboardingPath).toBeNull();
      expect(res.body.metadata).toEqual({ c: 3 });
    });

    it('switching mode and central onboarding together is accepted', async () => {
      const { key } = await seedPlatform(database.db, { defaultOnboardingMode: 'central', centralOnboardingEnabled: true });
      const res = await as(ctx.bearerAdmin, api().patch(`/v1/platforms/${key}`)).send({ defaultOnboardingMode: 'none', centralOnboardingEnabled: false }).expect(200);
      expect(res.body).toMatchObject({ defaultOnboardingMode: 'none', centralOnboardingEnabled: false });
    });

    it('a patch that changes nothing leaves updatedAt alone', async () => {
      const { key, platform } = await seedPlatform(database.db);
      const res = await as(ctx.bearerAdmin, api().patch(`/v1/platforms/${key}`)).send({ displayName: platform.displayName }).expect(200);
      expect(res.body).toEqual(platform);
    });

    const invalidPatches: { name: string; patch: Record<string, unknown>; pointer: string; seed?: Record<string, unknown> }[] = [
      { name: 'platformKey is immutable', patch: { platformKey: 'OTHER_KEY' }, pointer: '/body/platformKey' },
      { name: 'clientId is immutable', patch: { clientId: 'pc_other' }, pointer: '/body/clientId' },
      { name: 'active has its own operations', patch: { active: false }, pointer: '/body/active' },
      { name: 'an empty patch', patch: {}, pointer: '/body' },
      { name: 'clearing callbackUrl of an active platform', patch: { callbackUrl: null }, pointer: '/body/callbackUrl' },
      { name: 'emptying allowedReturnUrls of an active platform', patch: { allowedReturnUrls: [] }, pointer: '/body/allowedReturnUrls' },
      {
        name: 'disabling central onboarding in central mode',
        patch: { centralOnboardingEnabled: false },
        pointer: '/body/centralOnboardingEnabled',
        seed: { defaultOnboardingMode: 'central' },
      },
      {
        name: 'switching to central mode while central onboarding is disabled',
        patch: { defaultOnboardingMode: 'central' },
        pointer: '/body/defaultOnboardingMode',
        seed: { defaultOnboardingMode: 'none', centralOnboardingEnabled: false },
      },
      { name: 'callbackUrl with userinfo', patch: { callbackUrl: 'https://a:b@x.test/' }, pointer: '/body/callbackUrl' },
      { name: 'allowedReturnUrls with a fragment', patch: { allowedReturnUrls: ['https://x.test/#f'] }, pointer: '/body/allowedReturnUrls/0' },
      { name: 'metadata an array', patch: { metadata: [] }, pointer: '/body/metadata' },
      { name: 'displayName empty', patch: { displayName: '' }, pointer: '/body/displayName' },
    ];

    it.each(invalidPatches)('400 naming the field: $name (nothing changes)', async ({ patch, pointer, seed }) => {
      const { key, platform } = await seedPlatform(database.db, seed as never);
      const res = await as(ctx.bearerAdmin, api().patch(`/v1/platforms/${key}`)).send(patch).expect(400);
      expect(res.body.code).toBe('VALIDATION_FAILED');
      expect(res.body.errors.map((error: { pointer: string }) => error.pointer)).toContain(pointer);
      const read = await as(ctx.bearerAdmin, api().get(`/v1/platforms/${key}`)).expect(200);
      expect(read.body).toEqual(platform);
    });

    it('an inactive platform may lose its callback and return URLs', async () => {
      const { key } = await seedPlatform(database.db, { active: false });
      const res = await as(ctx.bearerAdmin, api().patch(`/v1/platforms/${key}`)).send({ callbackUrl: null, allowedReturnUrls: [] }).expect(200);
      expect(res.body).toMatchObject({ callbackUrl: null, allowedReturnUrls: [], active: false });
    });

    it('an unknown key is 404', async () => {
      const res = await as(ctx.bearerAdmin, api().patch('/v1/platforms/NO_SUCH_PLATFORM')).send({ displayName: 'x' }).expect(404);
      expect(res.body.code).toBe('PLATFORM_NOT_FOUND');
    });
  });

  // ------------------------------------------------------------------ activation

  describe('deactivate and activate', () => {
    it('deactivation is soft and idempotent; logins stop (start 404) and resume after activation', async () => {
      const { key, platform } = await seedPlatform(database.db);
      const start = () => api().get('/v1/auth/start').query({ platformKey: key, returnTo: 'https://bff.example.test/home' });
      await start().expect(302);

      const off = await as(ctx.bearerAdmin, api().delete(`/v1/platforms/${key}`)).expect(200);
      expect(off.body).toEqual({ ...platform, active: false, updatedAt: expect.any(String) });
      const again = await as(ctx.bearerAdmin, api().delete(`/v1/platforms/${key}`)).expect(200);
      expect(again.body).toEqual(off.body);
      const res = await start().expect(404);
      expect(res.body.code).toBe('PLATFORM_NOT_FOUND');

      const on = await as(ctx.cookieAdmin, api().post(`/v1/platforms/${key}/activate`)).expect(200);
      expect(on.body.active).toBe(true);
      expect(on.body.clientId).toBe(platform.clientId);
      await as(ctx.cookieAdmin, api().post(`/v1/platforms/${key}/activate`)).expect(200);
      await start().expect(302);
    });

    it('activation names what is missing: callback URL, then return URLs, then credentials', async () => {
      const key = newPlatformKey('INCOMPLETE');
      await as(ctx.bearerAdmin, api().post('/v1/platforms')).send({ platformKey: key, displayName: 'Incomplete', active: false }).expect(201);
      const activate = () => as(ctx.bearerAdmin, api().post(`/v1/platforms/${key}/activate`));

      expect((await activate().expect(409)).body.code).toBe('PLATFORM_MISSING_CALLBACK_URL');
      await as(ctx.bearerAdmin, api().patch(`/v1/platforms/${key}`)).send({ callbackUrl: 'https://bff.example.test/cb' }).expect(200);
      expect((await activate().expect(409)).body.code).toBe('PLATFORM_MISSING_RETURN_URLS');
      await as(ctx.bearerAdmin, api().patch(`/v1/platforms/${key}`)).send({ allowedReturnUrls: ['https://bff.example.test/'] }).expect(200);

      // A record without credentials (for example from an import): only rotation gives it some.
      await database.db.raw('UPDATE platforms SET client_id = NULL, client_secret_digest = NULL WHERE platform_key = ?', [key]);
      const read = await as(ctx.bearerAdmin, api().get(`/v1/platforms/${key}`)).expect(200);
      expect(read.body.clientId).toBeNull();
      const missing = await activate().expect(409);
      expect(missing.body.code).toBe('PLATFORM_MISSING_CREDENTIALS');
      expect(missing.headers['content-type']).toMatch(/^application\/problem\+json/);

      const rotated = await as(ctx.bearerAdmin, api().post(`/v1/platforms/${key}/credentials/rotate`)).expect(200);
      expect(rotated.body.clientId).toMatch(/^pc_/);
      const active = await activate().expect(200);
      expect(active.body).toMatchObject({ active: true, clientId: rotated.body.clientId });
    });

    it('an unknown key is 404 for deactivate, activate and rotate', async () => {
      for (const send of [
        () => api().delete('/v1/platforms/NO_SUCH_PLATFORM'),
        () => api().post('/v1/platforms/NO_SUCH_PLATFORM/activate'),
        () => api().post('/v1/platforms/NO_SUCH_PLATFORM/credentials/rotate'),
      ]) {
        const res = await as(ctx.bearerAdmin, send()).expect(404);
        expect(res.body.code).toBe('PLATFORM_NOT_FOUND');
      }
    });
  });

  // ------------------------------------------------------------------ rotation

  describe('rotate credentials', () => {
    it('returns a new secret once (no-store), keeps the client id, stores only the new digest', async () => {
      const { key, clientId, clientSecret } = await seedPlatform(database.db);
      const res = await as(ctx.cookieAdmin, api().post(`/v1/platforms/${key}/credentials/rotate`)).expect(200);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(Object.keys(res.body).sort()).toEqual(['clientId', 'clientSecret', 'platformKey', 'rotatedAt']);
      expect(res.body).toEqual({ platformKey: key, clientId, clientSecret: expect.stringMatching(/^pcs_[A-Za-z0-9_-]{43}$/), rotatedAt: expect.any(String) });
      expect(res.body.clientSecret).not.toBe(clientSecret);
      expect(await digestOf(key)).toEqual(sha256(res.body.clientSecret));
      const read = await as(ctx.bearerAdmin, api().get(`/v1/platforms/${key}`)).expect(200);
      expect(JSON.stringify(read.body)).not.toContain(res.body.clientSecret);
    });

    it('an inactive platform can be rotated and stays inactive', async () => {
      const { key } = await seedPlatform(database.db, { active: false });
      await as(ctx.bearerAdmin, api().post(`/v1/platforms/${key}/credentials/rotate`)).expect(200);
      expect((await as(ctx.bearerAdmin, api().get(`/v1/platforms/${key}`)).expect(200)).body.active).toBe(false);
    });
  });
});
