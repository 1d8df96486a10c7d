import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { sha256 } from '../../src/security/crypto.ts';
import { createApp } from '../../src/app.ts';
import { CLI_ACTOR, updatePlatform as updatePlatformService } from '../../src/services/registry/index.ts';
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
  'backchannelLogoutUrl',
  'callbackUrl',
  'centralOnboardingEnabled',
  'clientId',
  'createdAt',
  'defaultLanguage',
  'defaultOnboardingMode',
  'displayName',
  'eventDelivery',
  'eventReceiverUrl',
  'handoffChallengeRequired',
  'metadata',
  'platformKey',
  'platformOnboardingPath',
  'requirementVersion',
  'sensitive',
  'supportAccess',
  'supportSignInUrl',
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
        expect(res.body.errors).toEqual([{ pointer: '/query/cursor', reason: 'INVALID', message: expect.any(String) }]);
      }
      for (const limit of [0, 101, 'x']) {
        const res = await as(ctx.bearerAdmin, api().get('/v1/platforms').query({ limit })).expect(400);
        expect(res.body.errors[0].pointer).toBe('/query/limit');
      }
    });
  });

  // ------------------------------------------------------------------ search

  describe('list with search', () => {
    type Page = { items: { platformKey: string; displayName: string; active: boolean }[]; nextCursor: string | null };
    const list = async (query: Record<string, string | number | boolean>): Promise<Page> => {
      const res = await as(ctx.cookieAdmin, api().get('/v1/platforms').query(query));
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body as Page;
    };
    const keysOf = (page: Page) => page.items.map((item) => item.platformKey);
    /** A token found in no other test's keys or names. */
    const token = () => `q${randomBytes(5).toString('hex')}`;

    it('matches a substring of the key or of the display name, case-insensitively, in key order', async () => {
      const prefix = newPlatformKey('SRCH');
      const a = await seedPlatform(database.db, { platformKey: `${prefix}_A`, displayName: 'First' });
      const b = await seedPlatform(database.db, { platformKey: `${prefix}_B`, displayName: 'Second', active: false });
      const byName = await seedPlatform(database.db, { platformKey: newPlatformKey('ZNAME'), displayName: `Mentions ${prefix.toLowerCase()} in its name` });
      const unrelated = await seedPlatform(database.db, { platformKey: newPlatformKey('UNRELATED'), displayName: 'Nothing to see' });

      const expected = [a.key, b.key, byName.key].sort();
      expect(keysOf(await list({ search: prefix }))).toEqual(expected);
      expect(keysOf(await list({ search: prefix.toLowerCase() }))).toEqual(expected);
      const mixed = [...prefix].map((c, i) => (i % 2 ? c.toLowerCase() : c)).join('');
      expect(keysOf(await list({ search: mixed }))).toEqual(expected);
      expect(keysOf(await list({ search: `${prefix}_b` }))).toEqual([b.key]);
      // a name matched in upper case too
      expect(keysOf(await list({ search: `MENTIONS ${prefix}` }))).toEqual([byName.key]);
      // combines with active
      expect(keysOf(await list({ search: prefix, active: false }))).toEqual([b.key]);
      expect(keysOf(await list({ search: prefix, active: true }))).toEqual([a.key, byName.key].sort());
      expect(keysOf(await list({ search: prefix }))).not.toContain(unrelated.key);
      expect(await list({ search: token() })).toEqual({ items: [], nextCursor: null });
    });

    it('treats %, _ and \\ as literal characters, never as wildcards or SQL', async () => {
      const t = token();
      const percent = await seedPlatform(database.db, { displayName: `${t} 100% sure` });
      await seedPlatform(database.db, { displayName: `${t} 100x sure` });
      const underscore = await seedPlatform(database.db, { displayName: `${t} a_b` });
      await seedPlatform(database.db, { displayName: `${t} axb` });
      const backslash = await seedPlatform(database.db, { displayName: `${t} back\\slash` });
      await seedPlatform(database.db, { displayName: `${t} backslash` });
      const quote = await seedPlatform(database.db, { displayName: `${t} it's` });

      expect(keysOf(await list({ search: `${t} 100%` }))).toEqual([percent.key]);
      expect(keysOf(await list({ search: `${t} a_b` }))).toEqual([underscore.key]);
      expect(keysOf(await list({ search: `${t} back\\` }))).toEqual([backslash.key]);
      expect(keysOf(await list({ search: `${t} it's` }))).toEqual([quote.key]);
      // a lone % or _ matches only names and keys that contain it
      for (const item of (await list({ search: '%', limit: 100 })).items) expect(`${item.platformKey}${item.displayName}`).toContain('%');
      expect(keysOf(await list({ search: '%', limit: 100 }))).toContain(percent.key);
      // SQL in the text is only text
      expect(await list({ search: "' OR '1'='1" })).toEqual({ items: [], nextCursor: null });
      expect(await list({ search: `${t}%' OR true --` })).toEqual({ items: [], nextCursor: null });
      const all = (await database.db.raw('SELECT count(*)::int AS n FROM platforms')).rows[0].n;
      expect(all).toBeGreaterThan(7);
    });

    it('pages a search by key with the cursor: every match once, in order, nothing else', async () => {
      const t = token();
      const prefix = newPlatformKey('SPAGE');
      const matching: string[] = [];
      for (const suffix of ['E', 'A', 'C', 'B_1', 'D', 'B']) {
        matching.push((await seedPlatform(database.db, { platformKey: `${prefix}_${suffix}`, displayName: `Paged ${t} ${suffix}` })).key);
        // interleaved non-matching keys, so a page boundary falls among them
        await seedPlatform(database.db, { platformKey: `${prefix}_${suffix}X`, displayName: 'Not paged' });
      }
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const page: Page = await list({ search: t.toUpperCase(), limit: 2, ...(cursor ? { cursor } : {}) });
        expect(page.items.length).toBeLessThanOrEqual(2);
        seen.push(...keysOf(page));
        cursor = page.nextCursor;
        pages++;
      } while (cursor && pages < 20);
      expect(seen).toEqual([...matching].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0)));
      expect(pages).toBe(3);
      // a page that holds exactly every match says there is no next page
      const exact = await list({ search: t, limit: 6 });
      expect(exact.items).toHaveLength(6);
      expect(exact.nextCursor).toBeNull();
    });

    it('refuses an empty or over-long search (1..100 characters) with 400 at /query/search', async () => {
      for (const search of ['', 'x'.repeat(101)]) {
        const res = await as(ctx.cookieAdmin, api().get('/v1/platforms').query({ search })).expect(400);
        expect(res.body.code).toBe('VALIDATION_FAILED');
        expect(res.body.errors[0].pointer).toBe('/query/search');
      }
      expect(await list({ search: 'x'.repeat(100) })).toEqual({ items: [], nextCursor: null });
    });

    it('a search with a NUL character matches nothing (no key or name can hold one)', async () => {
      expect(await list({ search: 'a\u0000b' })).toEqual({ items: [], nextCursor: null });
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

  // ------------------------------------------------------------------ handoffChallengeRequired

  describe('handoffChallengeRequired (login CSRF through an unbound handoff code)', () => {
    it('is true unless the create says otherwise, and the read carries it', async () => {
      const { platformKey } = platformBody();
      const created = await as(ctx.bearerAdmin, api().post('/v1/platforms')).send(platformBody({ platformKey })).expect(201);
      expect(created.body.handoffChallengeRequired).toBe(true);
      expect((await as(ctx.bearerAdmin, api().get(`/v1/platforms/${platformKey}`)).expect(200)).body.handoffChallengeRequired).toBe(true);
      const off = await as(ctx.cookieAdmin, api().post('/v1/platforms')).send(platformBody({ handoffChallengeRequired: false })).expect(201);
      expect(off.body.handoffChallengeRequired).toBe(false);
    });

    it('PATCH turns it off and on again, audited by name; a non-boolean is 400', async () => {
      const { platformKey } = platformBody();
      await as(ctx.bearerAdmin, api().post('/v1/platforms')).send(platformBody({ platformKey })).expect(201);
      const off = await as(ctx.bearerAdmin, api().patch(`/v1/platforms/${platformKey}`)).send({ handoffChallengeRequired: false }).expect(200);
      expect(off.body.handoffChallengeRequired).toBe(false);
      const audit = await as(ctx.bearerAdmin, api().get(`/v1/audit-events?platformKey=${platformKey}`)).expect(200);
      expect(audit.body.items[0].changedFields).toEqual(['handoffChallengeRequired']);
      const on = await as(ctx.cookieAdmin, api().patch(`/v1/platforms/${platformKey}`)).send({ handoffChallengeRequired: true }).expect(200);
      expect(on.body.handoffChallengeRequired).toBe(true);
      const bad = await as(ctx.bearerAdmin, api().patch(`/v1/platforms/${platformKey}`)).send({ handoffChallengeRequired: 'no' }).expect(400);
      expect(bad.body.errors.map((error: { pointer: string }) => error.pointer)).toEqual(['/body/handoffChallengeRequired']);
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
  // ------------------------------------------------------------------ back-channel logout URL

  describe('backchannelLogoutUrl', () => {
    const pointersOf = (res: request.Response) => res.body.errors.map((error: { pointer: string }) => error.pointer);

    it('is null unless registered; stored normalized on create (a query is allowed) and read back', async () => {
      const plain = await as(ctx.bearerAdmin, api().post('/v1/platforms')).send(platformBody()).expect(201);
      expect(plain.body.backchannelLogoutUrl).toBeNull();
      const body = platformBody({ backchannelLogoutUrl: 'HTTPS://BFF.Example.TEST:443/auth/backchannel-logout?tenant=1' });
      const created = await as(ctx.bearerAdmin, api().post('/v1/platforms')).send(body).expect(201);
      expect(created.body.backchannelLogoutUrl).toBe('https://bff.example.test/auth/backchannel-logout?tenant=1');
      const read = await as(ctx.cookieAdmin, api().get(`/v1/platforms/${body.platformKey}`)).expect(200);
      expect(read.body.backchannelLogoutUrl).toBe('https://bff.example.test/auth/backchannel-logout?tenant=1');
      const { rows } = await database.db.raw('SELECT backchannel_logout_url FROM platforms WHERE platform_key = ?', [body.platformKey]);
      expect(rows[0].backchannel_logout_url).toBe('https://bff.example.test/auth/backchannel-logout?tenant=1');
      const audit = await as(ctx.bearerAdmin, api().get(`/v1/audit-events?platformKey=${body.platformKey}`)).expect(200);
      expect(audit.body.items[0].changedFields).toContain('backchannelLogoutUrl');
      expect(JSON.stringify(audit.body)).not.toContain('backchannel-logout?tenant');
    });

    it('is set, changed and cleared (null) by PATCH, audited by name only', async () => {
      const { key, platform } = await seedPlatform(database.db);
      const set = await as(ctx.bearerAdmin, api().patch(`/v1/platforms/${key}`)).send({ backchannelLogoutUrl: 'https://bff.example.test/bc' }).expect(200);
      expect(set.body).toEqual({ ...platform, backchannelLogoutUrl: 'https://bff.example.test/bc', updatedAt: expect.any(String) });
      const same = await as(ctx.bearerAdmin, api().patch(`/v1/platforms/${key}`)).send({ backchannelLogoutUrl: 'https://BFF.example.test/bc' }).expect(200);
      expect(same.body.updatedAt).toBe(set.body.updatedAt); // the same URL, normalized: nothing changes
      const cleared = await as(ctx.cookieAdmin, api().patch(`/v1/platforms/${key}`)).send({ backchannelLogoutUrl: null }).expect(200);
      expect(cleared.body.backchannelLogoutUrl).toBeNull();
      const audit = await as(ctx.bearerAdmin, api().get(`/v1/audit-events?platformKey=${key}&action=platform.update`)).expect(200);
      expect(audit.body.items.map((item: { changedFields: string[] }) => item.changedFields)).toEqual([['backchannelLogoutUrl'], ['backchannelLogoutUrl']]);
    });

    const invalid: { name: string; url: unknown }[] = [
      { name: 'a fragment', url: 'https://bff.example.test/bc#x' },
      { name: 'an empty fragment', url: 'https://bff.example.test/bc#' },
      { name: 'userinfo', url: 'https://user:pw@bff.example.test/bc' },
      { name: 'an empty userinfo', url: 'https://@bff.example.test/bc' },
      { name: 'a host in hex IPv4', url: 'https://0x7f.0.0.1/bc' },
      { name: 'a percent-encoded host', url: 'https://bff%2Eexample.test/bc' },
      { name: 'a host with a trailing dot', url: 'https://bff.example.test./bc' },
      { name: 'a relative URL', url: '/backchannel-logout' },
      { name: 'another scheme', url: 'ftp://bff.example.test/bc' },
      { name: 'a backslash', url: 'https://bff.example.test\\@evil.test/' },
      { name: 'not a string', url: 42 },
      { name: 'over 2048 characters', url: `https://bff.example.test/${'a'.repeat(2048)}` },
    ];

    it.each(invalid)('400 VALIDATION_FAILED at /body/backchannelLogoutUrl on create and update: $name', async ({ url }) => {
      const body = platformBody({ backchannelLogoutUrl: url as string });
      const refused = await as(ctx.bearerAdmin, api().post('/v1/platforms')).send(body).expect(400);
      expect(refused.body.code).toBe('VALIDATION_FAILED');
      expect(pointersOf(refused)).toContain('/body/backchannelLogoutUrl');
      expect((await database.db.raw('SELECT 1 FROM platforms WHERE platform_key = ?', [body.platformKey])).rows).toHaveLength(0);
      const { key, platform } = await seedPlatform(database.db);
      const patched = await as(ctx.bearerAdmin, api().patch(`/v1/platforms/${key}`)).send({ backchannelLogoutUrl: url }).expect(400);
      expect(pointersOf(patched)).toContain('/body/backchannelLogoutUrl');
      expect((await as(ctx.bearerAdmin, api().get(`/v1/platforms/${key}`)).expect(200)).body).toEqual(platform);
    });

    it('the service refuses the same without the contract (the CLI and the dev stack call it directly)', async () => {
      const { key } = await seedPlatform(database.db);
      for (const url of ['https://bff.example.test/#x', 'https://u@bff.example.test/', 'https://0x7f.0.0.1/']) {
        const refused = await updatePlatformService(database.db, key, { backchannelLogoutUrl: url }, CLI_ACTOR).catch((error: unknown) => error);
        expect(refused).toMatchObject({ code: 'VALIDATION_FAILED' });
      }
    });

    describe('in production', () => {
      let production: Awaited<ReturnType<typeof createApp>>;
      const prod = () => request(production);

      beforeAll(async () => {
        const deps = ctx.gateway.deps;
        production = await createApp({ ...deps, config: { ...deps.config, isProduction: true } }, { validateResponses: true });
      });

      it('http is refused on create and update, https is accepted; outside production http is fine', async () => {
        const refused = await as(ctx.bearerAdmin, prod().post('/v1/platforms')).send(platformBody({ backchannelLogoutUrl: 'http://bff.example.test/bc' }));
        expect({ status: refused.status, pointers: pointersOf(refused) }).toEqual({ status: 400, pointers: ['/body/backchannelLogoutUrl'] });
        expect(refused.body.errors[0].message).toMatch(/https/);
        await as(ctx.bearerAdmin, prod().post('/v1/platforms')).send(platformBody({ backchannelLogoutUrl: 'https://bff.example.test/bc' })).expect(201);
        const { key } = await seedPlatform(database.db);
        const patched = await as(ctx.bearerAdmin, prod().patch(`/v1/platforms/${key}`)).send({ backchannelLogoutUrl: 'http://bff.example.test/bc' });
        expect({ status: patched.status, pointers: pointersOf(patched) }).toEqual({ status: 400, pointers: ['/body/backchannelLogoutUrl'] });
        await as(ctx.bearerAdmin, api().patch(`/v1/platforms/${key}`)).send({ backchannelLogoutUrl: 'http://bff.example.test/backchannel-logout' }).expect(200);
      });

      it('activation refuses a stored http backchannelLogoutUrl with 409 naming it', async () => {
        const { key } = await seedPlatform(database.db, { active: false, backchannelLogoutUrl: 'http://bff.example.test/bc' });
        const res = await as(ctx.bearerAdmin, prod().post(`/v1/platforms/${key}/activate`));
        expect({ status: res.status, code: res.body.code }).toEqual({ status: 409, code: 'CONFLICT' });
        expect(res.body.detail).toMatch(/backchannelLogoutUrl/);
        expect(res.body.detail).not.toMatch(/callbackUrl/);
      });
    });
  });
});
