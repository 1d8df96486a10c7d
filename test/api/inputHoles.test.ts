import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import { randomUUID } from 'node:crypto';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { createApp } from '../../src/app.ts';
import { CLI_ACTOR, activatePlatform, createPlatform, updatePlatform } from '../../src/services/registry/index.ts';
import { ApiError } from '../../src/errors/catalogue.ts';
import { logInsecurePlatforms } from '../../src/services/registry/platformUrls.ts';
import { loadConfig } from '../../src/config/index.ts';
import { upsertUserFromIdp } from '../../src/services/account/usersRepository.ts';
import { createSession } from '../../src/services/sessions/create.ts';
import { generateSigningKeySpec } from '../../src/security/signingKeys.ts';
import { newPlatformKey, platformBody, seedPlatform, startRegistryTestContext, type RegistryTestContext } from './registryHelpers.ts';

// Inputs that used to reach code unprepared for them and gave 500 (or were silently
// accepted): cookie values, path escapes, cursors, metadata keys, request ids, and
// plain-http URLs in production. Each answer must be a documented 4xx.

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('input holes', () => {
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

  describe('cookies are plain strings', () => {
    // cookie-parser turned `j:`-prefixed values into objects (GUIDE §9): the session lookup then hashed an object.
    it.each(['j:{}', 'j:{"a":1}', 'j:[1,2]', 'j:null', 's:value.signature'])('gw_session=%s gives 401 UNAUTHENTICATED on cookie routes', async (value) => {
      for (const path of ['/v1/me', '/v1/platforms']) {
        const res = await api().get(path).set('Cookie', `gw_session=${value}`);
        expect({ path, status: res.status, code: res.body.code }).toEqual({ path, status: 401, code: 'UNAUTHENTICATED' });
      }
    });
  });

  describe('cookie tossing: the session cookie twice', () => {
    // A sibling subdomain can set gw_session for the parent domain; the browser then sends both,
    // and whichever came first won. Neither is guessed: 400 SESSION_COOKIE_AMBIGUOUS.
    /** A browser session of a platforms:admin user, as the callback would set it. */
    async function adminSessionToken(): Promise<string> {
      const user = await upsertUserFromIdp(database.db, { sub: `tossing-${randomUUID()}`, email: null, emailVerified: false, displayName: null, givenName: null, familyName: null });
      return (await createSession(database.db, { userId: user.id, permissions: ['platforms:admin'], ttlSeconds: 3600 })).token;
    }

    it('is refused with 400 SESSION_COOKIE_AMBIGUOUS, whichever comes first', async () => {
      const real = await adminSessionToken();
      for (const header of [`gw_session=${real}; gw_session=gws_tossed`, `gw_session=gws_tossed; other=1; gw_session=${real}`, `gw_session=${real};gw_session=${real}`]) {
        const res = await api().get('/v1/platforms').set('Cookie', header);
        expect({ header, status: res.status, code: res.body.code }).toEqual({ header, status: 400, code: 'SESSION_COOKIE_AMBIGUOUS' });
      }
      // One value, beside cookies of other names (the login binding's among them), is fine.
      await api().get('/v1/platforms').set('Cookie', `gw_session_login_x=1; gw_session=${real}; gw_session_x=2`).expect(200);
    });

    it('in production the session and binding cookies are __Host- prefixed (Secure, Path=/, no Domain)', async () => {
      const deps = ctx.gateway.deps;
      const config = loadConfig({ NODE_ENV: 'production', DATABASE_URL: 'postgres://db.test/x', ENCRYPTION_KEYS: 'k1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', PUBLIC_BASE_URL: 'https://gateway.test', ACCOUNT_CENTER_URL: 'https://account.test', GATEWAY_SIGNING_KEYS: generateSigningKeySpec('s1') });
      expect(config.gatewayCookieName).toBe('__Host-gw_session');
      const production = await createApp({ ...deps, config: { ...deps.config, isProduction: true, secureCookies: true, gatewayCookieName: config.gatewayCookieName } }, { validateResponses: true });
      const { key } = await seedPlatform(database.db, { callbackUrl: 'https://bff.example.test/cb', allowedReturnUrls: ['https://bff.example.test/'] });
      const started = await request(production).get('/v1/auth/start').query({ platformKey: key, returnTo: 'https://bff.example.test/' }).expect(302);
      const binding = String(started.headers['set-cookie']);
      expect(binding).toMatch(/^__Host-gw_session_login_[0-9a-f-]{36}=/);
      expect(binding).toMatch(/; Path=\/;/);
      expect(binding).toMatch(/; Secure/);
      expect(binding).not.toMatch(/Domain=/i);
      // The unprefixed name is not the session cookie there: a tossed gw_session is ignored.
      const token = await adminSessionToken();
      await request(production).get('/v1/platforms').set('Cookie', `gw_session=${token}`).expect(401);
      await request(production).get('/v1/platforms').set('Cookie', `__Host-gw_session=${token}`).expect(200);
    });
  });

  describe('ill-formed Unicode in JSON bodies', () => {
    // `{"metadata":{"a":"\ud800"}}` is valid JSON (RFC 8259 §8.2 leaves lone surrogates to the
    // reader) but no UTF-8 text: PostgreSQL refused it with a 500. Refused at the body parser.
    it.each([
      ['a value', '{"a":"\\ud800"}', '/body/metadata/a'],
      ['a low surrogate alone', '{"a":"x\\udfffy"}', '/body/metadata/a'],
      ['a key', '{"\\ud800":"v"}', '/body/metadata/\ud800'],
      ['a value inside an array', '{"list":["ok","\\udc00"]}', '/body/metadata/list/1'],
    ])('in %s: 400 VALIDATION_FAILED with its pointer, on every route', async (_name, metadata, pointer) => {
      const body = `{"platformKey":"${newPlatformKey()}","displayName":"Surrogates","callbackUrl":"https://bff.example.test/cb","allowedReturnUrls":["https://bff.example.test/"],"defaultOnboardingMode":"none","metadata":${metadata}}`;
      const res = await ctx.bearerAdmin.apply(api().post('/v1/platforms').set('Content-Type', 'application/json').send(body));
      expect({ status: res.status, code: res.body.code }).toEqual({ status: 400, code: 'VALIDATION_FAILED' });
      expect(res.body.errors).toEqual([{ pointer, reason: 'ILL_FORMED_UNICODE', message: expect.any(String) }]);
      // Even before authentication: the exchange (Basic) and an unauthenticated call alike.
      const exchange = await api().post('/v1/auth/exchange').set('Content-Type', 'application/json').send('{"code":"handoff_\\ud800"}');
      expect({ status: exchange.status, code: exchange.body.code }).toEqual({ status: 400, code: 'VALIDATION_FAILED' });
    });
  });

  describe('malformed percent escapes in path parameters', () => {
    it.each(['%ff', '%zz', '%', 'A%E0%A4%A'])('GET /v1/platforms/%s gives 400 VALIDATION_FAILED at /path/platformKey', async (segment) => {
      const res = await ctx.bearerAdmin.apply(api().get(`/v1/platforms/${segment}`));
      expect({ status: res.status, code: res.body.code }).toEqual({ status: 400, code: 'VALIDATION_FAILED' });
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.body.errors).toEqual([{ pointer: '/path/platformKey', reason: 'ILL_FORMED_UNICODE', message: expect.any(String) }]);
    });

    it('every operation with a path parameter answers 400, not 500', async () => {
      const sends = [
        api().patch('/v1/platforms/%ff').send({ displayName: 'x' }),
        api().delete('/v1/platforms/%ff'),
        api().post('/v1/platforms/%ff/activate'),
        api().post('/v1/platforms/%ff/credentials/rotate'),
      ];
      for (const send of sends) {
        const res = await ctx.bearerAdmin.apply(send);
        expect({ status: res.status, pointer: res.body.errors?.[0]?.pointer }).toEqual({ status: 400, pointer: '/path/platformKey' });
      }
    });

    it('authentication still answers first: 401 without credentials, 403 without the permission', async () => {
      expect((await api().get('/v1/platforms/%ff')).status).toBe(401);
      expect((await ctx.bearerAlice.apply(api().get('/v1/platforms/%ff'))).status).toBe(403);
    });

    it('a well-formed escape still decodes', async () => {
      const { key } = await seedPlatform(database.db);
      const encoded = [...key].map((char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`).join('');
      const res = await ctx.bearerAdmin.apply(api().get(`/v1/platforms/${encoded}`)).expect(200);
      expect(res.body.platformKey).toBe(key);
    });
  });

  describe('audit cursors with impossible timestamps', () => {
    const cursorOf = (o: string) => Buffer.from(JSON.stringify({ o, i: randomUUID() })).toString('base64url');

    it.each([
      '2026-13-45T99:99:99.000000Z',
      '2026-02-30T00:00:00.000000Z',
      '2026-01-01T24:00:00.000000Z',
      '2026-01-01T23:59:60.000000Z',
      '0000-01-01T00:00:00.000000Z',
    ])('%s gives 400 VALIDATION_FAILED at /query/cursor', async (timestamp) => {
      const res = await ctx.bearerAdmin.apply(api().get('/v1/audit-events').query({ cursor: cursorOf(timestamp) }));
      expect({ status: res.status, code: res.body.code }).toEqual({ status: 400, code: 'VALIDATION_FAILED' });
      expect(res.body.errors).toEqual([{ pointer: '/query/cursor', reason: 'INVALID', message: expect.any(String) }]);
    });

    it('a real instant (leap day) is accepted', async () => {
      await ctx.bearerAdmin.apply(api().get('/v1/audit-events').query({ cursor: cursorOf('2028-02-29T23:59:59.999999Z') })).expect(200);
    });
  });

  describe('reserved metadata keys', () => {
    const RESERVED = ['__proto__', 'constructor', 'prototype'];
    const createBody = (metadataJson: string) => {
      const body = JSON.stringify(platformBody({ metadata: {} }));
      return body.replace('"metadata":{}', `"metadata":${metadataJson}`);
    };
    const sendCreate = (raw: string) => ctx.bearerAdmin.apply(api().post('/v1/platforms').set('Content-Type', 'application/json').send(raw));

    it.each(RESERVED)('create: a top-level %s key is 400 at /body/metadata/<key>', async (key) => {
      const raw = createBody(`{"team":"x","${key}":{"isAdmin":true}}`);
      expect(raw).toContain(`"${key}":{"isAdmin":true}`);
      const res = await sendCreate(raw);
      expect({ status: res.status, code: res.body.code }).toEqual({ status: 400, code: 'VALIDATION_FAILED' });
      expect(res.body.errors).toEqual([{ pointer: `/body/metadata/${key}`, reason: 'INVALID', message: expect.any(String) }]);
    });

    it.each(RESERVED)('create: a nested %s key (in objects and arrays) is 400 with its full pointer', async (key) => {
      const res = await sendCreate(createBody(`{"a":{"b":[1,{"${key}":{"polluted":true}}]}}`));
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual([{ pointer: `/body/metadata/a/b/1/${key}`, reason: 'INVALID', message: expect.any(String) }]);
    });

    it.each(RESERVED)('update: %s at any depth is 400 and changes nothing', async (key) => {
      const { key: platformKey } = await seedPlatform(database.db, { metadata: { team: 'kept' } });
      for (const [metadata, pointer] of [
        [`{"${key}":1}`, `/body/metadata/${key}`],
        [`{"deep":{"er":{"${key}":{}}}}`, `/body/metadata/deep/er/${key}`],
      ] as const) {
        const res = await ctx.bearerAdmin.apply(
          api().patch(`/v1/platforms/${platformKey}`).set('Content-Type', 'application/json').send(`{"metadata":${metadata}}`),
        );
        expect({ status: res.status, errors: res.body.errors }).toEqual({ status: 400, errors: [{ pointer, reason: 'INVALID', message: expect.any(String) }] });
      }
      const after = await ctx.bearerAdmin.apply(api().get(`/v1/platforms/${platformKey}`)).expect(200);
      expect(after.body.metadata).toEqual({ team: 'kept' });
    });

    it('the service refuses them from any caller (the CLI parses --metadata with JSON.parse too)', async () => {
      const metadata = JSON.parse('{"ok":{"__proto__":{"x":1}}}') as Record<string, unknown>;
      const error = await createPlatform(database.db, platformBody({ metadata }), CLI_ACTOR).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).errors).toEqual([{ pointer: '/body/metadata/ok/__proto__', message: expect.any(String) }]);
    });

    it('a key that escapes a pointer character is reported escaped (RFC 6901)', async () => {
      const res = await sendCreate(createBody('{"a/b":{"c~d":{"constructor":1}}}'));
      expect(res.body.errors).toEqual([{ pointer: '/body/metadata/a~1b/c~0d/constructor', reason: 'INVALID', message: expect.any(String) }]);
    });

    it('deeply nested metadata is a 400, never a 500 (the key walk does not recurse)', async () => {
      const depth = 20_000;
      const res = await sendCreate(createBody(`{"deep":${'['.repeat(depth)}${']'.repeat(depth)}}`));
      expect({ status: res.status, code: res.body.code }).toEqual({ status: 400, code: 'VALIDATION_FAILED' });
    });

    it('ordinary keys that merely contain the words are fine', async () => {
      const res = await sendCreate(createBody('{"constructorName":"x","my_prototype":1,"proto":2}'));
      expect(res.status).toBe(201);
    });
  });

  describe('request ids are the gateway\'s own', () => {
    it('an admin write with a client X-Request-Id is audited under the gateway\'s id, not the client\'s', async () => {
      const key = newPlatformKey('RID');
      const res = await ctx.bearerAdmin.apply(api().post('/v1/platforms').set('X-Request-Id', 'attacker-chosen-1234').send(platformBody({ platformKey: key }))).expect(201);
      const requestId = String(res.headers['x-request-id']);
      expect(requestId).toMatch(UUID);
      const { rows } = await database.db.raw('SELECT request_id FROM audit_events WHERE platform_key = ?', [key]);
      expect(rows).toEqual([{ request_id: requestId }]);
      const listed = await ctx.bearerAdmin.apply(api().get('/v1/audit-events').query({ platformKey: key })).expect(200);
      expect(listed.body.items[0].requestId).toBe(requestId);
      expect(JSON.stringify(listed.body)).not.toContain('attacker-chosen-1234');
    });
  });

  describe('https in production', () => {
    let production: Awaited<ReturnType<typeof createApp>>;
    const prod = () => request(production);

    beforeAll(async () => {
      const deps = ctx.gateway.deps;
      production = await createApp({ ...deps, config: { ...deps.config, isProduction: true } }, { validateResponses: true });
    });

    it('create: an http callbackUrl and http return URLs are 400 VALIDATION_FAILED naming each', async () => {
      const body = platformBody({ callbackUrl: 'http://bff.example.test/auth/callback', allowedReturnUrls: ['https://bff.example.test/', 'http://bff.example.test/'] });
      const res = await ctx.bearerAdmin.apply(prod().post('/v1/platforms').send(body));
      expect({ status: res.status, code: res.body.code }).toEqual({ status: 400, code: 'VALIDATION_FAILED' });
      expect(res.body.errors.map((error: { pointer: string }) => error.pointer).sort()).toEqual(['/body/allowedReturnUrls/1', '/body/callbackUrl']);
      expect(res.body.errors[0].message).toMatch(/https/);
      // Inactive platforms too: the rule is about every stored URL.
      const inactive = await ctx.bearerAdmin.apply(prod().post('/v1/platforms').send({ ...body, active: false }));
      expect(inactive.status).toBe(400);
    });

    it('create with https URLs passes', async () => {
      await ctx.bearerAdmin.apply(prod().post('/v1/platforms').send(platformBody())).expect(201);
    });

    it('update: an http callbackUrl or return URL is 400 naming the field', async () => {
      const { key } = await seedPlatform(database.db);
      const callback = await ctx.bearerAdmin.apply(prod().patch(`/v1/platforms/${key}`).send({ callbackUrl: 'http://bff.example.test/cb' }));
      expect({ status: callback.status, pointer: callback.body.errors?.[0]?.pointer }).toEqual({ status: 400, pointer: '/body/callbackUrl' });
      const roots = await ctx.bearerAdmin.apply(prod().patch(`/v1/platforms/${key}`).send({ allowedReturnUrls: ['http://bff.example.test/'] }));
      expect({ status: roots.status, pointer: roots.body.errors?.[0]?.pointer }).toEqual({ status: 400, pointer: '/body/allowedReturnUrls/0' });
    });

    it('outside production, http stays allowed (development and tests)', async () => {
      await ctx.bearerAdmin.apply(api().post('/v1/platforms').send(platformBody({ callbackUrl: 'http://localhost:3001/cb', allowedReturnUrls: ['http://localhost:3001/'] }))).expect(201);
    });

    it('activate: a stored http URL (from before production) is refused with 409 CONFLICT naming it', async () => {
      const { key } = await seedPlatform(database.db, { active: false, callbackUrl: 'http://bff.example.test/cb', allowedReturnUrls: ['http://bff.example.test/'] });
      const res = await ctx.bearerAdmin.apply(prod().post(`/v1/platforms/${key}/activate`));
      expect({ status: res.status, code: res.body.code }).toEqual({ status: 409, code: 'CONFLICT' });
      expect(res.body.detail).toMatch(/callbackUrl/);
      expect(res.body.detail).toMatch(/allowedReturnUrls/);
      const still = await ctx.bearerAdmin.apply(prod().get(`/v1/platforms/${key}`)).expect(200);
      expect(still.body.active).toBe(false);
      // Outside production the same record activates.
      await ctx.bearerAdmin.apply(api().post(`/v1/platforms/${key}/activate`)).expect(200);
    });

    it('start: an active platform stored with http URLs (from before the rule) cannot start a login: 409 naming the URL', async () => {
      const { key } = await seedPlatform(database.db, { callbackUrl: 'http://old-bff.example.test/cb', allowedReturnUrls: ['https://old-bff.example.test/'] });
      const res = await prod().get('/v1/auth/start').query({ platformKey: key, returnTo: 'https://old-bff.example.test/' });
      expect({ status: res.status, code: res.body.code }).toEqual({ status: 409, code: 'CONFLICT' });
      expect(res.body.detail).toContain('callbackUrl http://old-bff.example.test/cb');
      expect(res.headers['set-cookie']).toBeUndefined();
      // Outside production the same platform starts.
      await api().get('/v1/auth/start').query({ platformKey: key, returnTo: 'https://old-bff.example.test/' }).expect(302);
    });

    it('boot: every active platform with an http URL is listed in the log, with the fields to change', async () => {
      const { key } = await seedPlatform(database.db, { callbackUrl: 'https://bff.example.test/cb', allowedReturnUrls: ['http://listed.example.test/'] });
      const lines: { obj: { platformKey?: string; insecureUrls?: unknown }; msg: string }[] = [];
      await logInsecurePlatforms(database.db, { warn: ((obj: never, msg: string) => void lines.push({ obj, msg })) as never });
      const line = lines.find((entry) => entry.obj.platformKey === key);
      expect(line?.obj.insecureUrls).toEqual([{ field: 'allowedReturnUrls', url: 'http://listed.example.test/' }]);
      expect(line?.msg).toMatch(/allowedReturnUrls.*https/);
    });

    it('the service functions take the rule as an option (the CLI passes it from its own config)', async () => {
      const { key } = await seedPlatform(database.db, { active: false });
      const refused = await updatePlatform(database.db, key, { callbackUrl: 'http://x.test/cb' }, CLI_ACTOR, { requireHttps: true }).catch((e: unknown) => e);
      expect((refused as ApiError).code).toBe('VALIDATION_FAILED');
      await updatePlatform(database.db, key, { callbackUrl: 'http://x.test/cb' }, CLI_ACTOR, { requireHttps: false });
      const notActivated = await activatePlatform(database.db, key, CLI_ACTOR, { requireHttps: true }).catch((e: unknown) => e);
      expect((notActivated as ApiError).code).toBe('CONFLICT');
    });
  });
});
