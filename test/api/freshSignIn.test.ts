// Fresh sign-in and step-up against a scriptable provider (test/helpers/fakeIdp.ts), which, like a
// provider that ignores them, records `max_age`, `prompt` and `acr_values` and issues whatever
// `auth_time` and `amr` a test scripts. The gateway must check the result itself: an old or
// missing `auth_time`, an `amr` without a second factor, or another person completing a step-up
// is refused, the login spent; a login that meets the request carries `authentication` to the
// exchange. Every login sends a handoff challenge and exchanges with its verifier (the secure
// pattern).

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import type { Express } from 'express';
import { randomBytes } from 'node:crypto';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { basicAuth } from '../helpers/oidcBrowser.ts';
import { startFakeIdp, type FakeIdp, type TokenScript } from '../helpers/fakeIdp.ts';
import { createPlatform } from '../../src/services/registry/index.ts';
import { randomToken, s256Challenge } from '../../src/security/crypto.ts';
import { MULTI_FACTOR_ACR } from '../../src/config/index.ts';

const CLIENT_ID = 'gateway-fresh-test';
const CLIENT_SECRET = randomBytes(32).toString('base64url');
const PLATFORM_CALLBACK = 'https://bff.example.test/auth/callback';
const PLATFORM_ROOT = 'https://bff.example.test/';
const SUB = 'fake-user-1';

const now = () => Math.floor(Date.now() / 1000);

interface Platform {
  key: string;
  basic: string;
}

async function addPlatform(database: TestDatabase): Promise<Platform> {
  const key = `FRESH_${randomBytes(3).toString('hex').toUpperCase()}`;
  const { platform, clientSecret } = await createPlatform(
    database.db,
    { platformKey: key, displayName: `Platform ${key}`, callbackUrl: PLATFORM_CALLBACK, allowedReturnUrls: [PLATFORM_ROOT], defaultOnboardingMode: 'none', centralOnboardingEnabled: true },
    { type: 'cli', userId: null, sub: null, requestId: null },
  );
  return { key, basic: basicAuth(platform.clientId!, clientSecret) };
}

interface Attempt {
  /** The start's redirect to the provider. */
  authorize: URL;
  /** The gateway's answer to the callback. */
  res: request.Response;
  /** The handoff verifier of this login (its challenge went to start). */
  verifier: string;
}

/**
 * One login through `startPath` (a start URL's path and query, without the handoff challenge):
 * start, the fake's /authorize (tokens scripted), the callback from the same browser.
 */
async function login(app: Express, fake: FakeIdp, startPath: string, options: { tokens?: TokenScript; accept?: string; verifier?: string } = {}): Promise<Attempt> {
  // This login's own challenge; a step-up's URL keeps the one it was issued with (the test's `verifier`).
  const verifier = options.verifier ?? randomToken();
  const path = new URL(startPath, 'http://gateway.test');
  path.searchParams.set('handoffChallenge', s256Challenge(verifier));
  const started = await request(app).get(`${path.pathname}${path.search}`).expect(302);
  const binding = ((started.headers['set-cookie'] as unknown as string[]) ?? []).find((line) => line.includes('_login_'))!.split(';')[0]!;
  if (options.tokens) fake.scriptNext(options.tokens);
  const authorize = new URL(started.headers.location as string);
  const returned = await fake.authorize(authorize.href);
  const call = request(app).get(`/v1/auth/callback${returned.search}`).set('Cookie', binding);
  const res = await (options.accept ? call.set('Accept', options.accept) : call);
  return { authorize, res, verifier };
}

function startPath(platformKey: string, extra: Record<string, string> = {}): string {
  return `/v1/auth/start?${new URLSearchParams({ platformKey, returnTo: '/account', ...extra })}`;
}

function idToken(claims: Record<string, unknown>): TokenScript {
  return { idToken: { claims } };
}

async function exchange(app: Express, platform: Platform, attempt: Attempt): Promise<request.Response> {
  expect(attempt.res.status, JSON.stringify(attempt.res.body)).toBe(302);
  const code = new URL(attempt.res.headers.location as string).searchParams.get('code')!;
  return request(app).post('/v1/auth/exchange').set('Authorization', platform.basic).send({ code, handoffVerifier: attempt.verifier }).expect(200);
}

function expectRefused(attempt: Attempt, status: number, code: string): void {
  expect({ status: attempt.res.status, code: attempt.res.body?.code }).toEqual({ status, code });
  const cookies = (attempt.res.headers['set-cookie'] as unknown as string[] | undefined) ?? [];
  expect(cookies.filter((line) => line.startsWith('gw_session='))).toEqual([]);
}

describe('fresh sign-in and step-up, checked by the gateway whatever the provider did', () => {
  let database: TestDatabase;
  let fake: FakeIdp;
  let gateway: TestApp;
  let platform: Platform;

  beforeAll(async () => {
    database = await createTestDatabase();
    fake = await startFakeIdp({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, acrValuesSupported: [MULTI_FACTOR_ACR] });
    gateway = await createTestApp({ db: database.db, oidc: { issuer: fake.issuer, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET } });
    platform = await addPlatform(database);
  });
  afterAll(async () => {
    await fake?.close();
    await database?.drop();
  });

  it('forwards max_age, prompt=login and, when discovery lists it, acr_values; a login without them sends none', async () => {
    const asked = await login(gateway.app, fake, startPath(platform.key, { maxAge: '60', forceLogin: 'true', requireSecondFactor: 'true' }), {
      tokens: idToken({ amr: ['pwd', 'otp', 'mfa'] }),
    });
    expect(asked.authorize.searchParams.get('max_age')).toBe('60');
    expect(asked.authorize.searchParams.get('prompt')).toBe('login');
    expect(asked.authorize.searchParams.get('acr_values')).toBe(MULTI_FACTOR_ACR);
    expect(fake.authorizeRequests.at(-1)!.query.max_age).toEqual(['60']);

    const plain = await login(gateway.app, fake, startPath(platform.key));
    for (const name of ['max_age', 'prompt', 'acr_values']) expect(plain.authorize.searchParams.has(name)).toBe(false);
    const body = (await exchange(gateway.app, platform, plain)).body;
    expect(body.authentication.requested).toEqual({ maxAge: null, forceLogin: false, secondFactor: false, stepUp: false });
  });

  it('a provider that ignores max_age (an auth_time of an hour ago) is refused: 401 AUTHENTICATION_TOO_OLD, and the page offers "Try again" with the same request', async () => {
    const attempt = await login(gateway.app, fake, startPath(platform.key, { maxAge: '60' }), { tokens: idToken({ auth_time: now() - 3600 }) });
    expectRefused(attempt, 401, 'AUTHENTICATION_TOO_OLD');

    const page = await login(gateway.app, fake, startPath(platform.key, { maxAge: '60' }), { tokens: idToken({ auth_time: now() - 3600 }), accept: 'text/html' });
    expect(page.res.status).toBe(401);
    expect(page.res.text).toContain('Try again');
    // The login was bound with a handoff challenge: only the platform can start it again, at its returnTo.
    expect(page.res.text).toContain(`href="${PLATFORM_ROOT}account"`);
  });

  it('prompt=login ignored (an auth_time before the start) is refused too', async () => {
    const attempt = await login(gateway.app, fake, startPath(platform.key, { forceLogin: 'true' }), { tokens: idToken({ auth_time: now() - 300 }) });
    expectRefused(attempt, 401, 'AUTHENTICATION_TOO_OLD');
  });

  it('a missing auth_time when an age was asked is refused (OIDC Core §2 requires it then)', async () => {
    const attempt = await login(gateway.app, fake, startPath(platform.key, { maxAge: '60' }), { tokens: idToken({ auth_time: undefined }) });
    expectRefused(attempt, 401, 'AUTHENTICATION_TOO_OLD');
  });

  it('an amr without a second factor is refused when one was asked: 401 SECOND_FACTOR_MISSING; with one, the exchange carries authTime and amr', async () => {
    const without = await login(gateway.app, fake, startPath(platform.key, { requireSecondFactor: 'true' }), { tokens: idToken({ amr: ['pwd'] }) });
    expectRefused(without, 401, 'SECOND_FACTOR_MISSING');
    const missing = await login(gateway.app, fake, startPath(platform.key, { requireSecondFactor: 'true' }), { tokens: idToken({ amr: undefined }) });
    expectRefused(missing, 401, 'SECOND_FACTOR_MISSING');

    const authTime = now() - 5;
    const withFactor = await login(gateway.app, fake, startPath(platform.key, { requireSecondFactor: 'true', maxAge: '60' }), {
      tokens: idToken({ auth_time: authTime, amr: ['pwd', 'otp', 'mfa'], acr: MULTI_FACTOR_ACR }),
    });
    const body = (await exchange(gateway.app, platform, withFactor)).body;
    expect(body.authentication).toEqual({
      authTime: new Date(authTime * 1000).toISOString(),
      amr: ['pwd', 'otp', 'mfa'],
      acr: MULTI_FACTOR_ACR,
      requested: { maxAge: 60, forceLogin: false, secondFactor: true, stepUp: false },
    });
  });

  describe('step-up of an existing session (POST /v1/auth/step-up)', () => {
    async function platformCredential(): Promise<string> {
      const body = (await exchange(gateway.app, platform, await login(gateway.app, fake, startPath(platform.key)))).body;
      return body.session.gatewayToken as string;
    }

    function stepUp(credential: string, body: Record<string, unknown>): request.Test {
      return request(gateway.app).post('/v1/auth/step-up').set('Cookie', `gw_session=${credential}`).send(body);
    }

    it('answers a start URL whose login only the same person completes; another person is refused with 403 STEP_UP_SUBJECT_MISMATCH', async () => {
      const credential = await platformCredential();
      const verifier = randomToken();
      const res = await stepUp(credential, { returnTo: '/account', maxAge: 60, requireSecondFactor: true, handoffChallenge: s256Challenge(verifier) }).expect(200);
      const url = new URL(res.body.url as string);
      expect(url.pathname).toBe('/v1/auth/start');
      expect(url.searchParams.get('stepUp')).toMatch(/^v1\./);
      // The request travels sealed: the browser can neither read the person nor drop the requirements.
      expect(url.href).not.toContain(SUB);
      expect(url.searchParams.has('maxAge')).toBe(false);
      const path = `${url.pathname}${url.search}`;

      const someoneElse = await login(gateway.app, fake, path, {
        tokens: { idToken: { claims: { sub: 'someone-else', amr: ['pwd', 'otp', 'mfa'] } }, accessToken: { claims: { sub: 'someone-else' } } },
        verifier,
      });
      expectRefused(someoneElse, 403, 'STEP_UP_SUBJECT_MISMATCH');
      const page = await login(gateway.app, fake, path, {
        tokens: { idToken: { claims: { sub: 'someone-else', amr: ['pwd', 'otp', 'mfa'] } }, accessToken: { claims: { sub: 'someone-else' } } },
        accept: 'text/html',
        verifier,
      });
      expect(page.res.status).toBe(403);
      expect(page.res.text).toContain('Try again');
      const { rows } = await database.db.raw('SELECT count(*)::int AS n FROM users WHERE sub = ?', ['someone-else']);
      expect(rows[0].n).toBe(0);

      // The sealed request holds: the same person without a second factor is refused.
      const weak = await login(gateway.app, fake, path, { tokens: idToken({ amr: ['pwd'] }), verifier });
      expectRefused(weak, 401, 'SECOND_FACTOR_MISSING');

      const same = await login(gateway.app, fake, path, { tokens: idToken({ amr: ['pwd', 'otp', 'mfa'] }), verifier });
      const body = (await exchange(gateway.app, platform, same)).body;
      expect(body.user.sub).toBe(SUB);
      expect(body.authentication.requested).toEqual({ maxAge: 60, forceLogin: false, secondFactor: true, stepUp: true });
    });

    it('a step-up that asks nothing else forces a sign-in; its token works for its own platform only', async () => {
      const credential = await platformCredential();
      const verifier = randomToken();
      const res = await stepUp(credential, { returnTo: `${PLATFORM_ROOT}account`, handoffChallenge: s256Challenge(verifier) }).expect(200);
      const url = new URL(res.body.url as string);
      const attempt = await login(gateway.app, fake, `${url.pathname}${url.search}`, { verifier });
      expect(attempt.authorize.searchParams.get('prompt')).toBe('login');
      await exchange(gateway.app, platform, attempt);

      const other = await addPlatform(database);
      url.searchParams.set('platformKey', other.key);
      const refused = await request(gateway.app).get(`${url.pathname}${url.search}`).expect(400);
      expect(refused.body.code).toBe('VALIDATION_FAILED');
      expect(refused.body.errors[0].pointer).toBe('/query/stepUp');
    });

    it('binds the step-up to its handoff challenge: that challenge without the token is refused (400 STEP_UP_TOKEN_MISSING, a page for browsers), before, after and beside an honest start', async () => {
      const credential = await platformCredential();
      const verifier = randomToken();
      const challenge = s256Challenge(verifier);
      const res = await stepUp(credential, { returnTo: '/account', requireSecondFactor: true, handoffChallenge: challenge }).expect(200);
      const url = new URL(res.body.url as string);
      expect(url.searchParams.get('handoffChallenge')).toBe(challenge);
      const transactions = async () => (await database.db.raw('SELECT count(*)::int AS n FROM auth_transactions WHERE handoff_challenge = ?', [challenge])).rows[0].n as number;

      // Someone at the person's signed-in browser removes stepUp= (and keeps the rest): refused, nothing written.
      const stripped = new URL(url);
      stripped.searchParams.delete('stepUp');
      const refused = await request(gateway.app).get(`${stripped.pathname}${stripped.search}`).expect(400);
      expect(refused.body.code).toBe('STEP_UP_TOKEN_MISSING');
      expect(refused.headers['set-cookie']).toBeUndefined();
      const page = await request(gateway.app).get(`${stripped.pathname}${stripped.search}`).set('Accept', 'text/html').expect(400);
      expect(page.headers['content-type']).toMatch(/^text\/html/);
      expect(page.text).toContain(`href="${PLATFORM_ROOT}"`);
      // Asking for the same things as plain parameters does not make it a step-up either.
      stripped.searchParams.set('requireSecondFactor', 'true');
      expect((await request(gateway.app).get(`${stripped.pathname}${stripped.search}`).expect(400)).body.code).toBe('STEP_UP_TOKEN_MISSING');
      expect(await transactions()).toBe(0);

      // The token beside another challenge does not open (it cannot carry a login the step-up did not start).
      const moved = new URL(url);
      moved.searchParams.set('handoffChallenge', s256Challenge(randomToken()));
      expect((await request(gateway.app).get(`${moved.pathname}${moved.search}`).expect(400)).body.errors[0].pointer).toBe('/query/stepUp');

      // The honest step-up still works; afterwards (a replay of the address, stripped) the challenge is still refused.
      const honest = await login(gateway.app, fake, `${url.pathname}${url.search}`, { tokens: idToken({ amr: ['pwd', 'otp', 'mfa'] }), verifier });
      expect((await exchange(gateway.app, platform, honest)).body.authentication.requested).toMatchObject({ secondFactor: true, stepUp: true });
      stripped.searchParams.delete('requireSecondFactor');
      expect((await request(gateway.app).get(`${stripped.pathname}${stripped.search}`).expect(400)).body.code).toBe('STEP_UP_TOKEN_MISSING');

      // And once the token has expired (the mark outlives it).
      await database.db.raw("UPDATE step_up_challenges SET expires_at = now() - interval '1 hour' WHERE handoff_challenge = ?", [challenge]);
      expect((await request(gateway.app).get(`${stripped.pathname}${stripped.search}`).expect(400)).body.code).toBe('STEP_UP_TOKEN_MISSING');
      expect(await transactions()).toBe(1);

      // A plain login with a challenge of its own is not affected.
      await exchange(gateway.app, platform, await login(gateway.app, fake, startPath(platform.key)));
    });

    it('only a platform credential may ask, for a returnTo its platform allows', async () => {
      const credential = await platformCredential();
      const outside = await stepUp(credential, { returnTo: 'https://elsewhere.example.test/' }).expect(403);
      expect(outside.body.code).toBe('RETURN_TO_NOT_ALLOWED');
      // The platform requires the handoff challenge (the default): a step-up without one is refused at once.
      const unbound = await stepUp(credential, { returnTo: '/account' }).expect(400);
      expect(unbound.body.code).toBe('HANDOFF_CHALLENGE_REQUIRED');
      await request(gateway.app).post('/v1/auth/step-up').send({ returnTo: '/account' }).expect(401);

      // The browser session of the same login is not a platform's credential.
      const attempt = await login(gateway.app, fake, startPath(platform.key));
      const browserCookie = ((attempt.res.headers['set-cookie'] as unknown as string[]) ?? []).find((line) => line.startsWith('gw_session='))!.split(';')[0]!;
      const refused = await request(gateway.app).post('/v1/auth/step-up').set('Cookie', browserCookie).send({ returnTo: '/account' }).expect(403);
      expect(refused.body.code).toBe('FORBIDDEN');
    });
  });

  it('a provider whose discovery does not list the second-factor acr gets no acr_values; amr still decides', async () => {
    const zitadelLike = await startFakeIdp({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET });
    try {
      const app = (await createTestApp({ db: database.db, oidc: { issuer: zitadelLike.issuer, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET } })).app;
      const attempt = await login(app, zitadelLike, startPath(platform.key, { requireSecondFactor: 'true' }), { tokens: idToken({ amr: ['pwd'] }) });
      expect(attempt.authorize.searchParams.has('acr_values')).toBe(false);
      expectRefused(attempt, 401, 'SECOND_FACTOR_MISSING');
    } finally {
      await zitadelLike.close();
    }
  });
});
