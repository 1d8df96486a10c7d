// The relying-party side of the gateway against a scriptable provider (test/helpers/fakeIdp.ts):
// what GET /v1/auth/start sends to the provider, and every way GET /v1/auth/callback must
// refuse what comes back (spec "GET /v1/auth/callback", "Errors"; GUIDE §5, §9).
//
// Each refusal is checked for its status and code, and for the transaction being spent
// afterwards: replaying the same callback query gives 404 TRANSACTION_NOT_FOUND.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import type { Express } from 'express';
import { randomBytes } from 'node:crypto';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { basicAuth } from '../helpers/oidcBrowser.ts';
import { startFakeIdp, type AuthorizeBehaviour, type FakeIdp, type TokenScript } from '../helpers/fakeIdp.ts';
import { createPlatform } from '../../src/services/registry/index.ts';
import { sha256 } from '../../src/security/crypto.ts';

const CLIENT_ID = 'gateway-rp-test';
const CLIENT_SECRET = randomBytes(32).toString('base64url');
const SCOPES = ['openid', 'profile', 'email', 'platforms:admin', 'onboarding:schema:read'];
const GATEWAY_CALLBACK = 'http://gateway.test/v1/auth/callback';
const PLATFORM_CALLBACK = 'https://bff.example.test/auth/callback';
const PLATFORM_ROOT = 'https://bff.example.test/';
const SUB = 'fake-user-1';
const CLI = { type: 'cli', userId: null, sub: null, requestId: null } as const;

const now = () => Math.floor(Date.now() / 1000);

interface Platform {
  key: string;
  basic: string;
}

let platformCounter = 0;
async function addPlatform(database: TestDatabase): Promise<Platform> {
  const key = `RP_${++platformCounter}_${randomBytes(3).toString('hex').toUpperCase()}`;
  const { platform, clientSecret } = await createPlatform(
    database.db,
    {
      platformKey: key,
      displayName: `Platform ${key}`,
      callbackUrl: PLATFORM_CALLBACK,
      allowedReturnUrls: [PLATFORM_ROOT],
      defaultOnboardingMode: 'none',
      centralOnboardingEnabled: true,
      // These tests exercise the callback, not the handoff binding (handoffChallengeRequired.test.ts).
      handoffChallengeRequired: false,
    },
    CLI,
  );
  return { key, basic: basicAuth(platform.clientId!, clientSecret) };
}

function startPath(platformKey: string, returnTo = '/home'): string {
  return `/v1/auth/start?${new URLSearchParams({ platformKey, returnTo })}`;
}

interface Started {
  /** The authorize URL the gateway redirected to. */
  location: URL;
  /** The login's browser binding cookie (`name=value`), which the callback needs (RFC 9700 §4.7.1). */
  cookie: string;
}

async function start(app: Express, platformKey: string): Promise<Started> {
  const res = await request(app).get(startPath(platformKey)).expect(302);
  const lines = (res.headers['set-cookie'] as unknown as string[] | undefined) ?? [];
  const binding = lines.find((line) => line.includes('_login_'));
  expect(binding, 'start sets a login binding cookie').toBeDefined();
  return { location: new URL(res.headers.location as string), cookie: binding!.split(';')[0]! };
}

/** The callback, from the browser that started the login. */
function callback(app: Express, path: string, started: Started): request.Test {
  return request(app).get(path).set('Cookie', started.cookie);
}

interface LoginAttempt {
  /** The gateway's answer to the callback. */
  res: request.Response;
  /** The callback path and query the provider sent the browser to (for replays). */
  callbackPath: string;
  /** The provider's redirect back (code, state, iss or error). */
  returned: URL;
  started: Started;
}

/**
 * One login: start at the gateway, follow its 302 to the fake's /authorize (scripted with
 * `authorize` and `tokens`), carry the redirect's query to the gateway callback.
 */
async function login(
  app: Express,
  fake: FakeIdp,
  platformKey: string,
  options: { tokens?: TokenScript; authorize?: AuthorizeBehaviour; accept?: string } = {},
): Promise<LoginAttempt> {
  const started = await start(app, platformKey);
  if (options.tokens) fake.scriptNext(options.tokens);
  if (options.authorize) fake.nextAuthorize(options.authorize);
  const returned = await fake.authorize(started.location.href);
  expect(`${returned.origin}${returned.pathname}`).toBe(GATEWAY_CALLBACK);
  const callbackPath = `/v1/auth/callback${returned.search}`;
  const call = callback(app, callbackPath, started);
  const res = await (options.accept ? call.set('Accept', options.accept) : call);
  return { res, callbackPath, returned, started };
}

/** No gateway session cookie is set (clearing the login's binding cookie is fine). */
function expectNoSession(res: request.Response): void {
  const lines = (res.headers['set-cookie'] as unknown as string[] | undefined) ?? [];
  expect(lines.filter((line) => line.startsWith('gw_session='))).toEqual([]);
}

function expectProblem(res: request.Response, status: number, code: string): void {
  expect({ status: res.status, code: res.body?.code }).toEqual({ status, code });
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(res.headers.location).toBeUndefined();
  expectNoSession(res);
}

/** The transaction is spent: the same callback again is 404 TRANSACTION_NOT_FOUND. */
async function expectSpent(app: Express, attempt: LoginAttempt): Promise<void> {
  const replay = await callback(app, attempt.callbackPath, attempt.started);
  expectProblem(replay, 404, 'TRANSACTION_NOT_FOUND');
}

function expectHandoff(res: request.Response): string {
  expect(res.status, JSON.stringify(res.body)).toBe(302);
  const location = new URL(res.headers.location as string);
  expect(`${location.origin}${location.pathname}`).toBe(PLATFORM_CALLBACK);
  const code = location.searchParams.get('code');
  expect(code).toMatch(/^handoff_[A-Za-z0-9_-]{43,}$/);
  const cookie = (res.headers['set-cookie'] as unknown as string[] | undefined)?.find((line) => line.startsWith('gw_session='));
  expect(cookie).toMatch(/^gw_session=[^;]{20,};/);
  expect(cookie).toMatch(/; HttpOnly/i);
  return code!;
}

async function transactionCount(database: TestDatabase): Promise<number> {
  const { rows } = await database.db.raw<{ rows: { n: number }[] }>('SELECT count(*)::int AS n FROM auth_transactions');
  return rows[0]!.n;
}

describe('OpenID Connect relying party: start and callback against a scriptable provider', () => {
  let database: TestDatabase;
  let fake: FakeIdp;
  let gateway: TestApp;
  let platform: Platform;

  beforeAll(async () => {
    database = await createTestDatabase();
    fake = await startFakeIdp({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET });
    gateway = await createTestApp({ db: database.db, oidc: { issuer: fake.issuer, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, scopes: SCOPES } });
    platform = await addPlatform(database);
  });
  afterAll(async () => {
    await fake?.close();
    await database?.drop();
  });

  describe('GET /v1/auth/start', () => {
    it('redirects to the authorize endpoint with exactly the authorization-code + PKCE S256 parameters', async () => {
      const res = await request(gateway.app).get(startPath(platform.key)).expect(302);
      expect(res.headers['cache-control']).toBe('no-store');
      const location = new URL(res.headers.location as string);
      expect(`${location.origin}${location.pathname}`).toBe(`${fake.issuer}/authorize`);
      const params = location.searchParams;
      expect([...params.keys()].sort()).toEqual(
        ['client_id', 'code_challenge', 'code_challenge_method', 'nonce', 'redirect_uri', 'response_type', 'scope', 'state'].sort(),
      );
      expect(params.get('client_id')).toBe(CLIENT_ID);
      expect(params.get('redirect_uri')).toBe(GATEWAY_CALLBACK);
      expect(params.get('response_type')).toBe('code');
      expect(params.get('scope')).toBe(SCOPES.join(' '));
      expect(params.get('code_challenge_method')).toBe('S256');
      // 256 random bits, base64url (GUIDE §5)
      expect(params.get('state')).toMatch(/^[A-Za-z0-9_-]{43,}$/);
      expect(params.get('nonce')).toMatch(/^[A-Za-z0-9_-]{43,}$/);
      expect(params.get('state')).not.toBe(params.get('nonce'));

      // The provider sees the same request; the challenge is a SHA-256 (43 base64url characters).
      await fake.authorize(location.href);
      const seen = fake.authorizeRequests.at(-1)!;
      expect(seen).toMatchObject({
        clientId: CLIENT_ID,
        redirectUri: GATEWAY_CALLBACK,
        responseType: 'code',
        scope: SCOPES.join(' '),
        state: params.get('state'),
        nonce: params.get('nonce'),
        codeChallengeMethod: 'S256',
      });
      expect(seen.codeChallenge).toMatch(/^[A-Za-z0-9_-]{43,}$/);

      // Only digests of state and nonce are stored (GUIDE §5).
      const { rows } = await database.db.raw('SELECT * FROM auth_transactions WHERE state_digest = ?', [sha256(params.get('state')!)]);
      expect(rows).toHaveLength(1);
      expect(rows[0].nonce_digest).toEqual(sha256(params.get('nonce')!));
      const stored = JSON.stringify(rows[0]);
      expect(stored).not.toContain(params.get('state'));
      expect(stored).not.toContain(params.get('nonce'));
    });

    it('uses fresh state, nonce and challenge for every start', async () => {
      const first = (await start(gateway.app, platform.key)).location.searchParams;
      const second = (await start(gateway.app, platform.key)).location.searchParams;
      for (const name of ['state', 'nonce', 'code_challenge']) expect(first.get(name)).not.toBe(second.get(name));
    });
  });

  describe('GET /v1/auth/callback: the baseline', () => {
    it('accepts valid RS256 tokens: 302 to the platform callback with a handoff code, cookie set, PKCE verified by the provider', async () => {
      const tokenCalls = fake.tokenRequests.length;
      const attempt = await login(gateway.app, fake, platform.key);
      expectHandoff(attempt.res);
      expect(attempt.res.headers['cache-control']).toBe('no-store');
      // Exactly one token request, and it passed the provider's checks: client_secret_basic,
      // the redirect_uri of the authorization request, and a code_verifier matching the S256 challenge.
      expect(fake.tokenRequests.slice(tokenCalls)).toEqual([{ code: attempt.returned.searchParams.get('code'), refusal: null, scripted: 'tokens' }]);
      await expectSpent(gateway.app, attempt);
    });
  });

  describe('ID token verification: 401 ID_TOKEN_INVALID', () => {
    const cases: [string, () => TokenScript][] = [
      ['alg none', () => ({ idToken: { signing: 'none' } })],
      ['HS256 with the client secret', () => ({ idToken: { signing: 'hs256' } })],
      ['a bad signature (published kid, other key)', () => ({ idToken: { signing: 'bad-signature' } })],
      ['a kid the provider does not publish', () => ({ idToken: { signing: 'unknown-kid' } })],
      ['another issuer', () => ({ idToken: { claims: { iss: 'https://evil.example.test' } } })],
      ['another audience', () => ({ idToken: { claims: { aud: 'another-client' } } })],
      ['an audience array with another client and no azp', () => ({ idToken: { claims: { aud: [CLIENT_ID, 'another-client'] } } })],
      ['an audience array with another client and azp naming it', () => ({ idToken: { claims: { aud: [CLIENT_ID, 'another-client'], azp: 'another-client' } } })],
      ['an expired token', () => ({ idToken: { claims: { iat: now() - 900, auth_time: now() - 900, exp: now() - 600 } } })],
      ['iat far in the future', () => ({ idToken: { claims: { iat: now() + 3600, auth_time: now(), exp: now() + 7200 } } })],
      ['no sub', () => ({ idToken: { claims: { sub: undefined } } })],
      ['an empty sub', () => ({ idToken: { claims: { sub: '' } } })],
      ['another nonce', () => ({ idToken: { claims: { nonce: randomBytes(32).toString('base64url') } } })],
      ['no nonce', () => ({ idToken: { claims: { nonce: undefined } } })],
      ['typ at+jwt (an access token offered as the ID token)', () => ({ idToken: { signing: 'wrong-typ' } })],
      ['no id_token in the token response', () => ({ idToken: null })],
    ];

    it.each(cases)('refuses an ID token with %s, and the transaction is spent', async (_name, script) => {
      const attempt = await login(gateway.app, fake, platform.key, { tokens: script() });
      expectProblem(attempt.res, 401, 'ID_TOKEN_INVALID');
      await expectSpent(gateway.app, attempt);
    });

    it('accepts an audience array with another client when azp names this client', async () => {
      const attempt = await login(gateway.app, fake, platform.key, {
        tokens: { idToken: { claims: { aud: [CLIENT_ID, 'another-client'], azp: CLIENT_ID } } },
      });
      expectHandoff(attempt.res);
    });

    it('answers a browser with an HTML page of the same status', async () => {
      const attempt = await login(gateway.app, fake, platform.key, { tokens: { idToken: { signing: 'none' } }, accept: 'text/html' });
      expect(attempt.res.status).toBe(401);
      expect(attempt.res.headers['content-type']).toMatch(/^text\/html/);
      expect(attempt.res.text).toMatch(/<!doctype html>/i);
      expect(attempt.res.text).toContain('ID_TOKEN_INVALID');
      expectNoSession(attempt.res);
      await expectSpent(gateway.app, attempt);
    });
  });

  describe('provider key rotation', () => {
    it('accepts tokens signed with a key published after the gateway cached the key set (JWKS refetched once)', async () => {
      const own = await startFakeIdp({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET });
      try {
        const app = (await createTestApp({ db: database.db, oidc: { issuer: own.issuer, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET } })).app;
        expectHandoff((await login(app, own, platform.key)).res); // key set cached with the first key
        const fetchesBefore = own.counters.jwks;
        expect(fetchesBefore).toBeGreaterThan(0);

        const oldKid = own.currentKid;
        const newKid = await own.rotateKey({ dropOld: true });
        expect(own.publishedKids()).toEqual([newKid]);
        expect(newKid).not.toBe(oldKid);

        expectHandoff((await login(app, own, platform.key)).res);
        expect(own.counters.jwks - fetchesBefore).toBe(1);
        // The refreshed set serves the next login without another fetch.
        expectHandoff((await login(app, own, platform.key)).res);
        expect(own.counters.jwks - fetchesBefore).toBe(1);
      } finally {
        await own.close();
      }
    });
  });

  describe('access token verification', () => {
    it('refuses a JWT access token of another subject: 401 TOKEN_SUBJECT_MISMATCH', async () => {
      const attempt = await login(gateway.app, fake, platform.key, { tokens: { accessToken: { claims: { sub: 'someone-else' } } } });
      expectProblem(attempt.res, 401, 'TOKEN_SUBJECT_MISMATCH');
      await expectSpent(gateway.app, attempt);
    });

    const invalid: [string, () => TokenScript][] = [
      ['a bad signature', () => ({ accessToken: { signing: 'bad-signature' } })],
      ['alg none', () => ({ accessToken: { signing: 'none' } })],
      ['HS256 with the client secret', () => ({ accessToken: { signing: 'hs256' } })],
      ['another issuer', () => ({ accessToken: { claims: { iss: 'https://evil.example.test' } } })],
      ['an expired token', () => ({ accessToken: { claims: { iat: now() - 900, exp: now() - 600 } } })],
      ['no exp', () => ({ accessToken: { claims: { exp: undefined } } })],
    ];
    it.each(invalid)('refuses a JWT access token with %s: 401 ACCESS_TOKEN_INVALID', async (_name, script) => {
      const attempt = await login(gateway.app, fake, platform.key, { tokens: script() });
      expectProblem(attempt.res, 401, 'ACCESS_TOKEN_INVALID');
      await expectSpent(gateway.app, attempt);
    });

    it('accepts a JWT access token typed "JWT" rather than "at+jwt" (Zitadel signs its access tokens so)', async () => {
      const attempt = await login(gateway.app, fake, platform.key, { tokens: { accessToken: { signing: 'wrong-typ' } } });
      expectHandoff(attempt.res);
    });

    it('refuses an access token for another audience: OIDC_CLIENT_ID by default', async () => {
      const other = await login(gateway.app, fake, platform.key, { tokens: { accessToken: { claims: { aud: 'another-api' } } } });
      expectProblem(other.res, 401, 'ACCESS_TOKEN_INVALID');
      await expectSpent(gateway.app, other);
    });

    // The same rules as for Bearer tokens (test/api/bearerTokens.test.ts): the token endpoint
    // answers our own client, so a conformant provider's tokens pass them.
    const notForUs: [string, () => TokenScript][] = [
      ["another client's token (client_id)", () => ({ accessToken: { claims: { client_id: 'another-client' } } })],
      ['no client_id and no azp', () => ({ accessToken: { claims: { client_id: undefined } } })],
      ['ID-token claims (nonce, at_hash)', () => ({ accessToken: { typ: 'JWT', claims: { nonce: 'n-1', at_hash: 'x' } } })],
      ['a logout token typ', () => ({ accessToken: { typ: 'logout+jwt' } })],
    ];
    it.each(notForUs)('refuses a JWT access token with %s: 401 ACCESS_TOKEN_INVALID', async (_name, script) => {
      const attempt = await login(gateway.app, fake, platform.key, { tokens: script() });
      expectProblem(attempt.res, 401, 'ACCESS_TOKEN_INVALID');
      await expectSpent(gateway.app, attempt);
    });

    it('accepts a JWT access token naming the client in azp only', async () => {
      expectHandoff((await login(gateway.app, fake, platform.key, { tokens: { accessToken: { claims: { client_id: undefined, azp: CLIENT_ID } } } })).res);
    });

    it('checks the access token audience OIDC_ACCESS_TOKEN_AUDIENCE names', async () => {
      const app = (
        await createTestApp({
          db: database.db,
          env: { OIDC_ACCESS_TOKEN_AUDIENCE: 'urn:x' },
          oidc: { issuer: fake.issuer, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET },
        })
      ).app;
      const wrong = await login(app, fake, platform.key, { tokens: { accessToken: { claims: { aud: 'urn:other' } } } });
      expectProblem(wrong.res, 401, 'ACCESS_TOKEN_INVALID');
      await expectSpent(app, wrong);
      const missing = await login(app, fake, platform.key, { tokens: { accessToken: { claims: { aud: undefined } } } });
      expectProblem(missing.res, 401, 'ACCESS_TOKEN_INVALID');
      // The check is not a blanket refusal: the configured audience passes, also within an array.
      expectHandoff((await login(app, fake, platform.key, { tokens: { accessToken: { claims: { aud: 'urn:x' } } } })).res);
      expectHandoff((await login(app, fake, platform.key, { tokens: { accessToken: { claims: { aud: ['urn:other', 'urn:x'] } } } })).res);
    });

    describe('opaque access tokens (RFC 7662 introspection)', () => {
      it('accepts an active token of the same subject', async () => {
        const introspections = fake.counters.introspection;
        const attempt = await login(gateway.app, fake, platform.key, {
          tokens: { accessToken: { format: 'opaque', introspection: { active: true, sub: SUB, scope: 'openid' } } },
        });
        expectHandoff(attempt.res);
        expect(fake.counters.introspection - introspections).toBe(1);
      });

      it('refuses an inactive token: 401 ACCESS_TOKEN_INVALID', async () => {
        const attempt = await login(gateway.app, fake, platform.key, {
          tokens: { accessToken: { format: 'opaque', introspection: { active: false } } },
        });
        expectProblem(attempt.res, 401, 'ACCESS_TOKEN_INVALID');
        await expectSpent(gateway.app, attempt);
      });

      it('refuses an active token without a subject: 401 ACCESS_TOKEN_INVALID', async () => {
        const attempt = await login(gateway.app, fake, platform.key, {
          tokens: { accessToken: { format: 'opaque', introspection: { active: true, scope: 'openid' } } },
        });
        expectProblem(attempt.res, 401, 'ACCESS_TOKEN_INVALID');
      });

      const refused: [string, Record<string, unknown>][] = [
        ['a refresh token', { token_type: 'refresh_token' }],
        ["another client's token", { client_id: 'another-client' }],
        ['a token for another audience', { aud: 'another-api' }],
      ];
      it.each(refused)('refuses %s: 401 ACCESS_TOKEN_INVALID', async (_name, answer) => {
        const attempt = await login(gateway.app, fake, platform.key, {
          tokens: { accessToken: { format: 'opaque', introspection: { active: true, sub: SUB, ...answer } } },
        });
        expectProblem(attempt.res, 401, 'ACCESS_TOKEN_INVALID');
        await expectSpent(gateway.app, attempt);
      });

      it('refuses an active token of another subject: 401 TOKEN_SUBJECT_MISMATCH', async () => {
        const attempt = await login(gateway.app, fake, platform.key, {
          tokens: { accessToken: { format: 'opaque', introspection: { active: true, sub: 'someone-else' } } },
        });
        expectProblem(attempt.res, 401, 'TOKEN_SUBJECT_MISMATCH');
        await expectSpent(gateway.app, attempt);
      });
    });
  });

  describe('permissions', () => {
    it('copies exactly the gateway permissions from the access token scope onto the session', async () => {
      const attempt = await login(gateway.app, fake, platform.key, {
        tokens: { accessToken: { claims: { scope: 'openid platforms:admin onboarding:schema:read other:thing' } } },
      });
      const code = expectHandoff(attempt.res);
      const exchange = await request(gateway.app)
        .post('/v1/auth/exchange')
        .set('Authorization', platform.basic)
        .set('Content-Type', 'application/json')
        .send({ code })
        .expect(200);
      expect([...exchange.body.permissions].sort()).toEqual(['onboarding:schema:read', 'platforms:admin']);
      expect(exchange.body.user.sub).toBe(SUB);
      const { rows } = await database.db.raw('SELECT permissions FROM gateway_sessions WHERE id = ?', [exchange.body.session.id]);
      expect([...rows[0].permissions].sort()).toEqual(['onboarding:schema:read', 'platforms:admin']);
    });

    it('gives no permissions for a scope without gateway permissions (prefixes and near misses do not count)', async () => {
      const attempt = await login(gateway.app, fake, platform.key, {
        tokens: { accessToken: { claims: { scope: 'openid platforms:admin:x onboarding:schema PLATFORMS:ADMIN' } } },
      });
      const exchange = await request(gateway.app)
        .post('/v1/auth/exchange')
        .set('Authorization', platform.basic)
        .set('Content-Type', 'application/json')
        .send({ code: expectHandoff(attempt.res) })
        .expect(200);
      expect(exchange.body.permissions).toEqual([]);
    });

    describe('from Zitadel roles (OIDC_PERMISSIONS_FROM=zitadel-roles)', () => {
      // Zitadel puts roles into the ID token only with idTokenRoleAssertion, into a JWT access
      // token only with accessTokenRoleAssertion, and into introspection answers for opaque
      // tokens: the session gets what either verified token grants.
      const ROLES = 'urn:zitadel:iam:org:project:roles';
      const ORG = { '200000000000000009': 'acme.zitadel.test' };
      let zitadelApp: Express;

      beforeAll(async () => {
        zitadelApp = (await createTestApp({
          db: database.db,
          env: { OIDC_PERMISSIONS_FROM: 'zitadel-roles' },
          oidc: { issuer: fake.issuer, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET },
        })).app;
      });

      async function sessionPermissions(tokens: TokenScript): Promise<string[]> {
        const attempt = await login(zitadelApp, fake, platform.key, { tokens });
        const exchange = await request(zitadelApp)
          .post('/v1/auth/exchange')
          .set('Authorization', platform.basic)
          .set('Content-Type', 'application/json')
          .send({ code: expectHandoff(attempt.res) })
          .expect(200);
        return [...exchange.body.permissions].sort();
      }

      it('reads roles from the ID token alone (idTokenRoleAssertion)', async () => {
        expect(await sessionPermissions({ idToken: { claims: { [ROLES]: { 'platforms:admin': ORG } } }, accessToken: { typ: 'JWT', claims: { scope: undefined } } }))
          .toEqual(['platforms:admin']);
      });

      it('reads roles from the JWT access token alone (accessTokenRoleAssertion)', async () => {
        expect(await sessionPermissions({ accessToken: { typ: 'JWT', claims: { scope: undefined, [ROLES]: { 'onboarding:schema:read': ORG } } } }))
          .toEqual(['onboarding:schema:read']);
      });

      it('unites the roles of both tokens', async () => {
        expect(await sessionPermissions({
          idToken: { claims: { [ROLES]: { 'platforms:admin': ORG } } },
          accessToken: { typ: 'JWT', claims: { [ROLES]: { 'onboarding:schema:write': ORG } } },
        })).toEqual(['onboarding:schema:write', 'platforms:admin']);
      });

      it('reads roles from the introspection answer of an opaque access token', async () => {
        expect(await sessionPermissions({
          accessToken: { format: 'opaque', introspection: { active: true, sub: SUB, scope: 'openid', [ROLES]: { 'onboarding:schema:read': ORG, 'unrelated-role': ORG } } },
        })).toEqual(['onboarding:schema:read']);
      });

      it('ignores permission names in the scope', async () => {
        expect(await sessionPermissions({ accessToken: { claims: { scope: 'openid platforms:admin' } } })).toEqual([]);
      });

      it('grants nothing for malformed roles claims, and the login still succeeds', async () => {
        expect(await sessionPermissions({
          idToken: { claims: { [ROLES]: ['platforms:admin'] } },
          accessToken: { typ: 'JWT', claims: { [ROLES]: { 'platforms:admin': 'acme.zitadel.test', 'onboarding:schema:read': null } } },
        })).toEqual([]);
      });
    });
  });

  describe('the authorization response', () => {
    it('refuses an iss naming another issuer (RFC 9207) without redeeming the code: 401 IDP_ERROR', async () => {
      const tokenCalls = fake.counters.token;
      const attempt = await login(gateway.app, fake, platform.key, { authorize: { iss: 'https://evil.example.test' } });
      expectProblem(attempt.res, 401, 'IDP_ERROR');
      expect(fake.counters.token).toBe(tokenCalls);
      await expectSpent(gateway.app, attempt);
    });

    it('refuses a response without iss when the provider advertises it (RFC 9207 §2.4): 401 IDP_ERROR', async () => {
      const tokenCalls = fake.counters.token;
      const attempt = await login(gateway.app, fake, platform.key, { authorize: { iss: null } });
      expectProblem(attempt.res, 401, 'IDP_ERROR');
      expect(fake.counters.token).toBe(tokenCalls);
      await expectSpent(gateway.app, attempt);
    });

    it('accepts a response without iss from a provider that does not advertise it', async () => {
      const own = await startFakeIdp({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, issParameterSupported: false });
      try {
        const app = (await createTestApp({ db: database.db, oidc: { issuer: own.issuer, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET } })).app;
        expectHandoff((await login(app, own, platform.key, { authorize: { iss: null } })).res);
        // ...but a wrong one is still refused.
        expectProblem((await login(app, own, platform.key, { authorize: { iss: 'https://evil.example.test' } })).res, 401, 'IDP_ERROR');
      } finally {
        await own.close();
      }
    });

    it('error=access_denied with a valid state: 401 IDP_ERROR, and the transaction is spent', async () => {
      const tokenCalls = fake.counters.token;
      const attempt = await login(gateway.app, fake, platform.key, { authorize: { error: 'access_denied' } });
      expect(attempt.returned.searchParams.get('error')).toBe('access_denied');
      expectProblem(attempt.res, 401, 'IDP_ERROR');
      expect(fake.counters.token).toBe(tokenCalls);
      await expectSpent(gateway.app, attempt);
      const { rows } = await database.db.raw('SELECT consumed_at FROM auth_transactions WHERE state_digest = ?', [
        sha256(attempt.returned.searchParams.get('state')!),
      ]);
      expect(rows[0].consumed_at).toBeInstanceOf(Date);
    });

    it('no state: 400', async () => {
      const res = await request(gateway.app).get('/v1/auth/callback?code=abc');
      expectProblem(res, 400, 'VALIDATION_FAILED');
    });

    it('an unknown state: 404 TRANSACTION_NOT_FOUND', async () => {
      const res = await request(gateway.app).get(`/v1/auth/callback?${new URLSearchParams({ code: 'abc', state: randomBytes(32).toString('base64url') })}`);
      expectProblem(res, 404, 'TRANSACTION_NOT_FOUND');
    });

    it('an unknown state from a browser: an HTML page with the same status', async () => {
      const res = await request(gateway.app)
        .get(`/v1/auth/callback?${new URLSearchParams({ code: 'abc', state: randomBytes(32).toString('base64url') })}`)
        .set('Accept', 'text/html,application/xhtml+xml,*/*;q=0.8');
      expect(res.status).toBe(404);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.text).toContain('TRANSACTION_NOT_FOUND');
    });

    it('an expired transaction: 404 TRANSACTION_NOT_FOUND, without redeeming the code', async () => {
      const started = await start(gateway.app, platform.key);
      const returned = await fake.authorize(started.location.href);
      const updated = await database.db.raw("UPDATE auth_transactions SET expires_at = now() - interval '1 second' WHERE state_digest = ?", [
        sha256(returned.searchParams.get('state')!),
      ]);
      expect(updated.rowCount).toBe(1);
      const tokenCalls = fake.counters.token;
      const res = await callback(gateway.app, `/v1/auth/callback${returned.search}`, started);
      expectProblem(res, 404, 'TRANSACTION_NOT_FOUND');
      expect(fake.counters.token).toBe(tokenCalls);
    });
  });

  describe('the token endpoint', () => {
    it('invalid_grant: 401 IDP_CODE_EXCHANGE_FAILED', async () => {
      const attempt = await login(gateway.app, fake, platform.key, { tokens: { kind: 'oauth-error', error: 'invalid_grant' } });
      expectProblem(attempt.res, 401, 'IDP_CODE_EXCHANGE_FAILED');
      await expectSpent(gateway.app, attempt);
    });

    it('a 500: 503 IDP_UNAVAILABLE', async () => {
      const attempt = await login(gateway.app, fake, platform.key, { tokens: { kind: 'server-error' } });
      expectProblem(attempt.res, 503, 'IDP_UNAVAILABLE');
      await expectSpent(gateway.app, attempt);
    });

    it('no answer at all: 503 IDP_UNAVAILABLE once the request times out', async () => {
      const attempt = await login(gateway.app, fake, platform.key, { tokens: { kind: 'hang' } });
      expectProblem(attempt.res, 503, 'IDP_UNAVAILABLE');
      expect(fake.tokenRequests.at(-1)).toMatchObject({ scripted: 'hang' });
      await expectSpent(gateway.app, attempt);
    });
  });

  describe('the provider unreachable at start', () => {
    it('answers 503 IDP_UNAVAILABLE and persists nothing; once the provider is back, discovery is retried and start works', async () => {
      const own = await startFakeIdp({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET });
      try {
        const app = (await createTestApp({ db: database.db, oidc: { issuer: own.issuer, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET } })).app;
        await own.close();
        const before = await transactionCount(database);
        const down = await request(app).get(startPath(platform.key));
        expectProblem(down, 503, 'IDP_UNAVAILABLE');
        expect(down.body.detail ?? '').not.toMatch(/ECONNREFUSED|fetch failed|127\.0\.0\.1/);
        expect(await transactionCount(database)).toBe(before);

        await own.reopen();
        const discoveries = own.counters.discovery;
        const { location } = await start(app, platform.key);
        expect(`${location.origin}${location.pathname}`).toBe(`${own.issuer}/authorize`);
        expect(own.counters.discovery).toBe(discoveries + 1);
        expect(await transactionCount(database)).toBe(before + 1);
        expectHandoff((await login(app, own, platform.key)).res);
      } finally {
        await own.close();
      }
    });
  });

  describe('no OIDC client configured', () => {
    it('start and callback answer 503 OIDC_NOT_CONFIGURED', async () => {
      const app = (await createTestApp({ db: database.db })).app;
      const before = await transactionCount(database);
      expectProblem(await request(app).get(startPath(platform.key)), 503, 'OIDC_NOT_CONFIGURED');
      expect(await transactionCount(database)).toBe(before);
      expectProblem(await request(app).get('/v1/auth/callback?code=abc&state=def'), 503, 'OIDC_NOT_CONFIGURED');
    });
  });
});
