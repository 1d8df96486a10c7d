// Back-channel logout in (OpenID Connect Back-Channel Logout 1.0): POST /v1/auth/backchannel-logout
// with a logout token from the scriptable fake provider. Every §2.6 check is refused with 400
// invalid_request and ends nothing; a good token ends the sessions of its `sid` (and `sub`) or of
// its `sub`; a `jti` is spent once; an unreachable provider is a 503 that the retry gets past; the
// token never reaches the log.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import type { Express } from 'express';
import type { DestinationStream } from 'pino';
import { randomBytes } from 'node:crypto';

import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { startFakeIdp, type ClaimOverrides, type FakeIdp, type JwtScript } from '../helpers/fakeIdp.ts';
import { createApp } from '../../src/app.ts';
import { createLogger } from '../../src/logger.ts';
import { relyingPartyFromConfig } from '../../src/oidc/relyingParty.ts';
import { BACKCHANNEL_LOGOUT_EVENT, LOGOUT_TOKEN_MAX_AGE_SECONDS, logoutTokenJtiDigest } from '../../src/oidc/logoutTokens.ts';
import { CLOCK_TOLERANCE_SECONDS } from '../../src/oidc/accessTokens.ts';
import { createSession } from '../../src/services/sessions/create.ts';
import { upsertUserFromIdp } from '../../src/services/account/usersRepository.ts';
import { purgeExpiredLogoutTokenJtis } from '../../src/services/backchannel/logoutIn.ts';

const PATH = '/v1/auth/backchannel-logout';
const CLIENT_ID = 'bcl-gateway';
const REFUSED = { error: 'invalid_request', error_description: 'The logout token was refused.' };
const now = () => Math.floor(Date.now() / 1000);

/** A pino destination that keeps every line in memory (as test/unit/logger.test.ts does). */
function memory(): { stream: DestinationStream; text(): string } {
  const lines: string[] = [];
  return { stream: { write: (line: string) => void lines.push(line) }, text: () => lines.join('') };
}

describe('back-channel logout in (POST /v1/auth/backchannel-logout)', () => {
  let database: TestDatabase;
  let idp: FakeIdp;
  let gateway: TestApp;
  let app: Express;
  const log = memory();
  /** Every logout token this file posts: none may appear in the log. */
  const posted: string[] = [];

  /** The gateway app, its relying party and its log writing into `log` (trace level: everything). */
  async function appWithLog(): Promise<Express> {
    const logger = createLogger('trace', log.stream);
    const oidc = relyingPartyFromConfig(gateway.config, logger, { timeoutMs: 2000 });
    return createApp({ ...gateway.deps, logger, oidc }, { validateResponses: true });
  }

  beforeAll(async () => {
    database = await createTestDatabase();
    idp = await startFakeIdp({ clientId: CLIENT_ID, clientSecret: randomBytes(24).toString('base64url') });
    gateway = await createTestApp({ db: database.db, oidc: { issuer: idp.issuer, clientId: idp.clientId, clientSecret: idp.clientSecret } });
    app = await appWithLog();
  });
  afterAll(async () => {
    await idp?.close();
    await database?.drop();
  });

  const db = () => database.db;

  async function user(): Promise<{ id: string; sub: string }> {
    const sub = `user-${randomBytes(5).toString('hex')}`;
    const row = await upsertUserFromIdp(db(), { sub, email: null, emailVerified: false, displayName: null, givenName: null, familyName: null });
    return { id: row.id, sub };
  }

  /** A gateway session of the user, started from the provider session `idpSid`; its cookie. */
  async function session(userId: string, idpSid: string | null): Promise<{ id: string; cookie: string }> {
    const created = await createSession(db(), {
      userId,
      permissions: [],
      ttlSeconds: 3600,
      login: { userAgent: null, ipPrefix: null, idpSid, idToken: null, keyRing: gateway.deps.keyRing },
    });
    return { id: created.id, cookie: `gw_session=${created.token}` };
  }

  const sid = () => `sid-${randomBytes(6).toString('hex')}`;
  const me = (cookie: string) => request(app).get('/v1/me').set('Cookie', cookie);

  async function expectLive(...sessions: { cookie: string }[]): Promise<void> {
    for (const { cookie } of sessions) await me(cookie).expect(200);
  }
  async function expectEnded(...sessions: { id: string; cookie: string }[]): Promise<void> {
    for (const { id, cookie } of sessions) {
      await me(cookie).expect(401);
      const row = await db()('gateway_sessions').where({ id }).first('end_reason', 'ended_at');
      expect(row).toMatchObject({ end_reason: 'provider_logout', ended_at: expect.any(Date) });
    }
  }

  async function token(claims: ClaimOverrides, script?: JwtScript): Promise<string> {
    const signed = await idp.logoutToken(claims, script);
    posted.push(signed);
    return signed;
  }

  function post(logoutToken: string) {
    return request(app).post(PATH).type('form').send({ logout_token: logoutToken });
  }

  function expectOk(res: request.Response): void {
    expect(res.status, res.text).toBe(200);
    expect(res.text).toBe('');
    expect(res.headers['cache-control']).toBe('no-store');
  }

  function expectRefused(res: request.Response): void {
    expect({ status: res.status, body: res.body }).toEqual({ status: 400, body: REFUSED });
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['cache-control']).toBe('no-store');
  }

  describe('a good logout token', () => {
    it('with a sid ends every session of that provider session, and only those', async () => {
      const alice = await user();
      const bob = await user();
      const providerSession = sid();
      const first = await session(alice.id, providerSession);
      const second = await session(alice.id, providerSession);
      const otherOfAlice = await session(alice.id, sid());
      const withoutSid = await session(alice.id, null);
      const bobs = await session(bob.id, sid());
      await expectLive(first, second, otherOfAlice, withoutSid, bobs);

      expectOk(await post(await token({ sid: providerSession })));
      await expectEnded(first, second);
      await expectLive(otherOfAlice, withoutSid, bobs);
    });

    it('with a sid and a sub ends the sessions of that provider session that belong to that subject', async () => {
      const alice = await user();
      const bob = await user();
      const shared = sid();
      const alices = await session(alice.id, shared);
      const bobs = await session(bob.id, shared);
      expectOk(await post(await token({ sid: shared, sub: alice.sub })));
      await expectEnded(alices);
      await expectLive(bobs);
    });

    it('with only a sub ends every session of that subject', async () => {
      const alice = await user();
      const bob = await user();
      const alices = [await session(alice.id, sid()), await session(alice.id, sid()), await session(alice.id, null)];
      const bobs = await session(bob.id, sid());
      expectOk(await post(await token({ sub: alice.sub })));
      await expectEnded(...alices);
      await expectLive(bobs);
    });

    it('matching no session is still 200', async () => {
      expectOk(await post(await token({ sid: sid() })));
      expectOk(await post(await token({ sub: 'nobody-here' })));
    });

    it.each([
      ['logout+jwt', { typ: 'logout+jwt' }],
      ['application/logout+jwt', { typ: 'application/logout+jwt' }],
      ['JWT (Zitadel)', { typ: 'JWT' }],
      ['no typ', { header: { typ: undefined } }],
    ] as Array<[string, JwtScript]>)('typ %s is accepted', async (_name, script) => {
      const alice = await user();
      const own = await session(alice.id, sid());
      const providerSession = sid();
      const ending = await session(alice.id, providerSession);
      expectOk(await post(await token({ sid: providerSession }, script)));
      await expectEnded(ending);
      await expectLive(own);
    });

    it("Zitadel's shape is accepted: aud an array with the client id, exp 15 minutes on, typ JWT", async () => {
      const alice = await user();
      const providerSession = `V1_${randomBytes(8).toString('hex')}`;
      const ending = await session(alice.id, providerSession);
      const iat = now();
      expectOk(await post(await token({ aud: [CLIENT_ID], iat, exp: iat + 900, jti: String(Date.now()), sub: alice.sub, sid: providerSession }, { typ: 'JWT' })));
      await expectEnded(ending);
    });

    it('other form fields are ignored (§2.5)', async () => {
      const alice = await user();
      const providerSession = sid();
      const ending = await session(alice.id, providerSession);
      const res = await request(app).post(PATH).type('form').send({ logout_token: await token({ sid: providerSession }), state: 'x', extra: 'y' });
      expectOk(res);
      await expectEnded(ending);
    });
  });

  describe('every §2.6 check refuses the token with 400 invalid_request, and ends nothing', () => {
    const old = () => now() - LOGOUT_TOKEN_MAX_AGE_SECONDS - CLOCK_TOLERANCE_SECONDS - 60;
    const cases: Array<[string, ClaimOverrides, JwtScript?]> = [
      ['a bad signature', {}, { signing: 'bad-signature' }],
      ['an unknown kid', {}, { signing: 'unknown-kid' }],
      ['alg none', {}, { signing: 'none' }],
      ['HS256 (the client secret as key)', {}, { signing: 'hs256' }],
      ['another issuer', { iss: 'https://evil.example' }],
      ['another audience', { aud: 'another-client' }],
      ['an audience list without the gateway', { aud: ['another-client', 'a-third'] }],
      ['an azp naming another client', { azp: 'another-client' }],
      ['no iat', { iat: undefined }],
      ['an iat too old', { iat: old(), exp: now() + 3600 }],
      ['an iat in the future', { iat: now() + CLOCK_TOLERANCE_SECONDS + 60, exp: now() + 3600 }],
      ['an expired exp', { iat: now() - 300, exp: now() - CLOCK_TOLERANCE_SECONDS - 60 }],
      ['an nbf ahead', { nbf: now() + 600 }],
      ['no events', { events: undefined }],
      ['another event', { events: { 'http://schemas.openid.net/event/other': {} } }],
      ['events not an object', { events: BACKCHANNEL_LOGOUT_EVENT }],
      ['events an array', { events: [BACKCHANNEL_LOGOUT_EVENT] }],
      ['the logout event not an object', { events: { [BACKCHANNEL_LOGOUT_EVENT]: true } }],
      ['neither sid nor sub', { sid: undefined, sub: undefined }],
      ['a nonce', { nonce: 'n-0S6_WzA2Mj' }],
      ['no jti', { jti: undefined }],
      ['an empty jti', { jti: '' }],
      ['a sid that is not a string', { sid: 42 }],
      ['an empty sub', { sub: '' }],
      ['typ at+jwt', {}, { typ: 'at+jwt' }],
      ['typ secevent+jwt', {}, { typ: 'secevent+jwt' }],
    ];

    it.each(cases)('%s', async (_name, claims, script) => {
      const alice = await user();
      const providerSession = sid();
      const live = await session(alice.id, providerSession);
      // Every token names a live session (sid and sub), so a wrongly accepted one would end it.
      const res = await post(await token({ sid: providerSession, sub: alice.sub, ...claims }, script));
      expectRefused(res);
      await expectLive(live);
    });

    it('what is not a signed JWT at all (junk, an encrypted five-part token)', async () => {
      for (const junk of ['not-a-jwt', 'a.b', 'eyJhbGciOiJSU0EtT0FFUCJ9.a.b.c.d', 'a.b.c d']) expectRefused(await post(junk));
    });

    it('a refusal is logged at info with its reason, never told', async () => {
      const res = await post(await token({ sub: 'someone', iss: 'https://evil.example' }));
      expectRefused(res);
      const line = log.text().split('\n').filter(Boolean).map((entry) => JSON.parse(entry) as Record<string, unknown>)
        .find((entry) => entry.msg === 'back-channel logout: logout token refused' && String(entry.reason).includes('"iss"'));
      expect(line).toMatchObject({ level: 30, reason: expect.stringContaining('iss') });
    });
  });

  describe('replay (§2.6 step 7)', () => {
    it('a jti is spent once: the replay is 400 and ends nothing more', async () => {
      const alice = await user();
      const providerSession = sid();
      const first = await session(alice.id, providerSession);
      const replayed = await token({ sid: providerSession });
      expectOk(await post(replayed));
      await expectEnded(first);

      const later = await session(alice.id, providerSession);
      expectRefused(await post(replayed));
      await expectLive(later);
    });

    it('two deliveries of one token at once: one 200, one 400', async () => {
      const alice = await user();
      const providerSession = sid();
      const live = await session(alice.id, providerSession);
      const once = await token({ sid: providerSession });
      const answers = (await Promise.all([post(once), post(once), post(once)])).map((res) => res.status).sort();
      expect(answers).toEqual([200, 400, 400]);
      await expectEnded(live);
    });

    it('the same jti from the same issuer is a replay even with other claims; the digest, not the jti, is stored', async () => {
      const alice = await user();
      const jti = `jti-${randomBytes(6).toString('hex')}`;
      expectOk(await post(await token({ sid: sid(), jti })));
      const ending = await session(alice.id, sid());
      expectRefused(await post(await token({ sub: alice.sub, jti })));
      await expectLive(ending);
      const row = await db()('backchannel_logout_jtis').where({ jti_digest: logoutTokenJtiDigest(idp.issuer, jti) }).first();
      expect(row).toBeDefined();
    });

    it('the jti is kept until the token could no longer be accepted: exp, or iat + max age, plus the clock skew', async () => {
      const jtiShort = `jti-${randomBytes(6).toString('hex')}`;
      const iat = now();
      expectOk(await post(await token({ sid: sid(), jti: jtiShort, iat, exp: iat + 120 })));
      const jtiLong = `jti-${randomBytes(6).toString('hex')}`;
      expectOk(await post(await token({ sid: sid(), jti: jtiLong, iat, exp: undefined })));
      const expiry = async (jti: string) =>
        ((await db()('backchannel_logout_jtis').where({ jti_digest: logoutTokenJtiDigest(idp.issuer, jti) }).first()) as { expires_at: Date }).expires_at.getTime() / 1000;
      expect(await expiry(jtiShort)).toBe(iat + 120 + CLOCK_TOLERANCE_SECONDS);
      expect(await expiry(jtiLong)).toBe(iat + LOGOUT_TOKEN_MAX_AGE_SECONDS + CLOCK_TOLERANCE_SECONDS);
    });

    it('purgeExpiredLogoutTokenJtis forgets only the expired ones', async () => {
      const past = randomBytes(32);
      const future = randomBytes(32);
      await db()('backchannel_logout_jtis').insert([
        { jti_digest: past, expires_at: new Date(Date.now() - 1000) },
        { jti_digest: future, expires_at: new Date(Date.now() + 3600_000) },
      ]);
      expect(await purgeExpiredLogoutTokenJtis(db(), 1)).toBeGreaterThanOrEqual(1);
      expect(await db()('backchannel_logout_jtis').where({ jti_digest: past }).first()).toBeUndefined();
      expect(await db()('backchannel_logout_jtis').where({ jti_digest: future }).first()).toBeDefined();
      expect(await purgeExpiredLogoutTokenJtis(db())).toBe(0);
    });
  });

  describe('the request', () => {
    it('without a body, or a form without logout_token, is 400', async () => {
      for (const res of [await request(app).post(PATH), await request(app).post(PATH).type('form').send({ other: 'x' }), await request(app).post(PATH).type('form').send('logout_token=')]) {
        expect(res.status).toBe(400);
        expect(res.headers['cache-control']).toBe('no-store');
      }
    });

    it('a JSON body, even with a good token in it, is 400 invalid_request and ends nothing', async () => {
      const alice = await user();
      const providerSession = sid();
      const live = await session(alice.id, providerSession);
      const res = await request(app).post(PATH).set('Content-Type', 'application/json').send(JSON.stringify({ logout_token: await token({ sid: providerSession }) }));
      expect({ status: res.status, body: res.body }).toEqual({ status: 400, body: { error: 'invalid_request', error_description: expect.any(String) } });
      expect(res.headers['cache-control']).toBe('no-store');
      await expectLive(live);
    });

    it('a repeated or over-long logout_token is 400; a form of many repeated fields is cheap', async () => {
      const good = await token({ sid: sid() });
      expect((await request(app).post(PATH).type('form').send(`logout_token=${good}&logout_token=${good}`)).status).toBe(400);
      expect((await request(app).post(PATH).type('form').send({ logout_token: 'a'.repeat(16_385) })).status).toBe(400);
      const started = Date.now();
      const flood = await request(app).post(PATH).type('form').send(Array(21_000).fill('a=').join('&'));
      expect(flood.status).toBe(400);
      expect(Date.now() - started).toBeLessThan(1000);
      expect((await request(app).post(PATH).type('form').send(`logout_token=${'a'.repeat(70_000)}`)).status).toBe(413);
    });
  });

  describe('the provider unreachable', () => {
    it('is 503 (discovery, then keys), and the retry with the same token ends the session', async () => {
      const fresh = await appWithLog(); // a relying party that has not discovered the provider yet
      const alice = await user();
      const providerSession = sid();
      const live = await session(alice.id, providerSession);
      const retried = await token({ sid: providerSession });

      await idp.close();
      try {
        const res = await request(fresh).post(PATH).type('form').send({ logout_token: retried });
        expect({ status: res.status, code: res.body.code }).toEqual({ status: 503, code: 'IDP_UNAVAILABLE' });
        expect(res.headers['cache-control']).toBe('no-store');
      } finally {
        await idp.reopen();
      }
      // Discovered now (junk never makes it fetch keys), then the keys are out of reach.
      expectRefused(await request(fresh).post(PATH).type('form').send({ logout_token: 'a.b.c' }));
      await idp.close();
      try {
        const res = await request(fresh).post(PATH).type('form').send({ logout_token: retried });
        expect({ status: res.status, code: res.body.code }).toEqual({ status: 503, code: 'IDP_UNAVAILABLE' });
      } finally {
        await idp.reopen();
      }
      await expectLive(live);

      expectOk(await request(fresh).post(PATH).type('form').send({ logout_token: retried }));
      await expectEnded(live);
    }, 60_000); // a second app is built, and the provider closed and reopened twice
  });

  it('no logout token ever reaches the log', () => {
    expect(posted.length).toBeGreaterThan(40);
    const text = log.text();
    expect(text).toContain('back-channel logout');
    for (const logoutToken of posted) {
      expect(text).not.toContain(logoutToken);
      // nor its signature or its claims part alone
      const [, claims, signature] = logoutToken.split('.');
      if (signature) expect(text).not.toContain(signature);
      expect(text).not.toContain(claims);
    }
  });
});
