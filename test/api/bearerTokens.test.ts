// Bearer authentication accepts only access tokens meant for this service (GUIDE §5 "Three
// credentials"; RFC 9068, RFC 7662, RFC 6750): issued for OIDC_ACCESS_TOKEN_AUDIENCE, to one of
// OIDC_TRUSTED_CLIENT_IDS, never an ID token or a refresh token. Every refusal is
// 401 ACCESS_TOKEN_INVALID with a Bearer challenge naming error="invalid_token".
//
// Real tokens come from the dev identity provider wherever it can make them: a second client
// registered there gets tokens with the very same `aud` (as every client of a Zitadel project
// does), which is exactly the attack the client check stops. Forged tokens (alg none, HS256,
// expired, ID-token claims) come from the scriptable fake provider, which also scripts
// introspection answers and counts the calls (the cache, single flight and the concurrency bound).

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import type { Express } from 'express';
import { randomBytes } from 'node:crypto';
import * as oidcClient from 'openid-client';

import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { createTestApp } from '../helpers/app.ts';
import { obtainTokens, OidcBrowser, type ObtainedTokens } from '../helpers/oidcBrowser.ts';
import { startFakeIdp, type FakeIdp, type JwtScript } from '../helpers/fakeIdp.ts';
import { startDevIdp, type DevIdp } from '../../src/devidp/index.ts';
import { INTROSPECTION_LIMITS } from '../../src/oidc/accessTokens.ts';

const REDIRECT_URI = 'http://client.test/callback';
const GATEWAY = { clientId: 'bearer-gateway', clientSecret: randomBytes(24).toString('base64url'), redirectUris: [REDIRECT_URI] };
const OTHER = { clientId: 'bearer-other-client', clientSecret: randomBytes(24).toString('base64url'), redirectUris: [REDIRECT_URI] };
const ADMIN_SCOPE = 'openid profile email platforms:admin onboarding:schema:read onboarding:schema:write';
const FAKE_CLIENT = 'bearer-fake-gateway';
const FAKE_SECRET = randomBytes(24).toString('base64url');

type Client = typeof GATEWAY;
const now = () => Math.floor(Date.now() / 1000);

function tokensFrom(idp: DevIdp, client: Client, username = 'admin'): Promise<ObtainedTokens> {
  return obtainTokens({
    issuer: idp.issuer,
    clientId: client.clientId,
    clientSecret: client.clientSecret,
    redirectUri: REDIRECT_URI,
    username,
    password: `${username}-password`,
    scope: ADMIN_SCOPE,
  });
}

/** A refresh token (offline_access; OIDC Core §11 wants prompt=consent, which the dev IdP answers itself). */
async function refreshTokenFrom(idp: DevIdp, client: Client): Promise<string> {
  const config = await oidcClient.discovery(new URL(idp.issuer), client.clientId, undefined, oidcClient.ClientSecretBasic(client.clientSecret), {
    execute: [oidcClient.allowInsecureRequests],
  });
  const codeVerifier = oidcClient.randomPKCECodeVerifier();
  const state = oidcClient.randomState();
  const url = oidcClient.buildAuthorizationUrl(config, {
    redirect_uri: REDIRECT_URI,
    scope: `${ADMIN_SCOPE} offline_access`,
    prompt: 'consent',
    code_challenge: await oidcClient.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
    state,
  });
  const browser = new OidcBrowser();
  const stop = { stopWhen: (u: string) => u.startsWith(REDIRECT_URI) };
  const { response: page } = await browser.followRedirects(await browser.get(url.href), stop);
  const done = await browser.followRedirects(await browser.loginAtDevIdp(page, 'admin', 'admin-password'), stop);
  const tokens = await oidcClient.authorizationCodeGrant(config, new URL(done.stoppedAt!), { pkceCodeVerifier: codeVerifier, expectedState: state });
  expect(tokens.refresh_token).toEqual(expect.any(String));
  return tokens.refresh_token!;
}

const listPlatforms = (app: Express, token: string) => request(app).get('/v1/platforms').set('Authorization', `Bearer ${token}`);

function expectRefused(res: request.Response): void {
  expect({ status: res.status, code: res.body?.code }).toEqual({ status: 401, code: 'ACCESS_TOKEN_INVALID' });
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(res.headers['www-authenticate']).toMatch(/^Bearer realm="[^"]+", error="invalid_token"$/);
}

function expectAllowed(res: request.Response): void {
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.items ?? res.body).toBeDefined();
}

describe('Bearer access tokens: only access tokens meant for this service', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await database?.drop();
  });

  describe('real tokens from the dev identity provider', () => {
    let idp: DevIdp;
    let app: Express;
    let admin: ObtainedTokens;

    beforeAll(async () => {
      // Both clients' access tokens carry aud = GATEWAY.clientId (the dev IdP, like Zitadel).
      idp = await startDevIdp({ port: 0, clients: [GATEWAY, OTHER] });
      app = (await createTestApp({ db: database.db, oidc: { issuer: idp.issuer, clientId: GATEWAY.clientId, clientSecret: GATEWAY.clientSecret } })).app;
      admin = await tokensFrom(idp, GATEWAY);
    });
    afterAll(async () => {
      await idp?.close();
    });

    it("accepts the gateway client's access token of an admin on GET /v1/platforms", async () => {
      expectAllowed(await listPlatforms(app, admin.accessToken));
    });

    it('refuses an ID token, although it is signed by the provider and its aud is the gateway client', async () => {
      expectRefused(await listPlatforms(app, admin.idToken));
    });

    it("refuses another client's access token, although it carries the gateway's aud", async () => {
      const other = await tokensFrom(idp, OTHER);
      expectRefused(await listPlatforms(app, other.accessToken));
    });

    it('refuses a refresh token (introspected: active, but not an access token for this service)', async () => {
      expectRefused(await listPlatforms(app, await refreshTokenFrom(idp, GATEWAY)));
    });

    it('refuses an access token for another API (another aud), from a provider configured so', async () => {
      const otherApi = await startDevIdp({ port: 0, clients: [GATEWAY], accessTokenAudience: 'urn:another-api' });
      try {
        const otherApp = (await createTestApp({ db: database.db, oidc: { issuer: otherApi.issuer, clientId: GATEWAY.clientId, clientSecret: GATEWAY.clientSecret } })).app;
        expectRefused(await listPlatforms(otherApp, (await tokensFrom(otherApi, GATEWAY)).accessToken));
        // ...and the same provider's token passes once the gateway is told that audience.
        const told = (await createTestApp({
          db: database.db,
          env: { OIDC_ACCESS_TOKEN_AUDIENCE: 'urn:another-api' },
          oidc: { issuer: otherApi.issuer, clientId: GATEWAY.clientId, clientSecret: GATEWAY.clientSecret },
        })).app;
        expectAllowed(await listPlatforms(told, (await tokensFrom(otherApi, GATEWAY)).accessToken));
      } finally {
        await otherApi.close();
      }
    });

    it("accepts another client's token once OIDC_TRUSTED_CLIENT_IDS names it", async () => {
      const trusting = (await createTestApp({
        db: database.db,
        env: { OIDC_TRUSTED_CLIENT_IDS: `${GATEWAY.clientId},${OTHER.clientId}` },
        oidc: { issuer: idp.issuer, clientId: GATEWAY.clientId, clientSecret: GATEWAY.clientSecret },
      })).app;
      expectAllowed(await listPlatforms(trusting, (await tokensFrom(idp, OTHER)).accessToken));
      expectRefused(await listPlatforms(trusting, admin.idToken));
    });
  });

  describe('real opaque access tokens from the dev identity provider (introspection)', () => {
    let idp: DevIdp;
    let app: Express;

    beforeAll(async () => {
      idp = await startDevIdp({ port: 0, clients: [GATEWAY, OTHER], accessTokenFormat: 'opaque' });
      app = (await createTestApp({ db: database.db, oidc: { issuer: idp.issuer, clientId: GATEWAY.clientId, clientSecret: GATEWAY.clientSecret } })).app;
    });
    afterAll(async () => {
      await idp?.close();
    });

    it("accepts the gateway client's opaque access token", async () => {
      const tokens = await tokensFrom(idp, GATEWAY);
      expect(tokens.accessToken.split('.')).toHaveLength(1);
      expectAllowed(await listPlatforms(app, tokens.accessToken));
    });

    it("refuses another client's opaque access token (introspection says active, aud matches, client_id does not)", async () => {
      expectRefused(await listPlatforms(app, (await tokensFrom(idp, OTHER)).accessToken));
    });
  });

  describe('forged and scripted tokens (fake provider)', () => {
    let fake: FakeIdp;
    let app: Express;

    beforeAll(async () => {
      fake = await startFakeIdp({ clientId: FAKE_CLIENT, clientSecret: FAKE_SECRET });
      app = (await createTestApp({ db: database.db, oidc: { issuer: fake.issuer, clientId: FAKE_CLIENT, clientSecret: FAKE_SECRET } })).app;
    });
    afterAll(async () => {
      await fake?.close();
    });

    const claims = (overrides: Record<string, unknown> = {}): Record<string, unknown> => {
      const base: Record<string, unknown> = {
        iss: fake.issuer,
        sub: 'fake-admin',
        aud: FAKE_CLIENT,
        client_id: FAKE_CLIENT,
        iat: now(),
        exp: now() + 300,
        jti: randomBytes(8).toString('hex'),
        scope: 'openid platforms:admin',
      };
      for (const [name, value] of Object.entries(overrides)) {
        if (value === undefined) delete base[name];
        else base[name] = value;
      }
      return base;
    };
    const jwt = (overrides: Record<string, unknown> = {}, script: JwtScript = {}) => fake.signJwt(claims(overrides), { kind: 'access', ...script });

    describe('JWT access tokens', () => {
      const accepted: [string, () => Promise<string>][] = [
        ['typ at+jwt (RFC 9068)', () => jwt()],
        ['typ JWT with no ID-token claims (Zitadel)', () => jwt({}, { typ: 'JWT' })],
        ['azp naming the gateway instead of client_id', () => jwt({ client_id: undefined, azp: FAKE_CLIENT })],
        ['auth_time and acr (RFC 9068 §2.2.1 allows them)', () => jwt({ auth_time: now() - 10, acr: '0', amr: ['pwd'] })],
        ['aud an array holding the gateway', () => jwt({ aud: ['project-1', FAKE_CLIENT] })],
      ];
      it.each(accepted)('accepts %s', async (_name, make) => {
        expectAllowed(await listPlatforms(app, await make()));
      });

      const refused: [string, () => Promise<string>][] = [
        ['expired', () => jwt({ iat: now() - 900, exp: now() - 600 })],
        ['alg none', () => jwt({}, { signing: 'none' })],
        ['HS256 with the client secret', () => jwt({}, { signing: 'hs256' })],
        ['a bad signature', () => jwt({}, { signing: 'bad-signature' })],
        ['another issuer', () => jwt({ iss: 'https://evil.example.test' })],
        ['another audience', () => jwt({ aud: 'another-api' })],
        ['no aud', () => jwt({ aud: undefined })],
        ['another client_id', () => jwt({ client_id: 'another-client' })],
        ['an untrusted client_id even when azp names the gateway', () => jwt({ client_id: 'another-client', azp: FAKE_CLIENT })],
        ['neither client_id nor azp', () => jwt({ client_id: undefined })],
        ['azp naming another client', () => jwt({ client_id: undefined, azp: 'another-client' })],
        ['a nonce (an ID token typed JWT, as Zitadel types its ID tokens)', () => jwt({ nonce: 'n-0S6_WzA2Mj' }, { typ: 'JWT' })],
        ['an at_hash (an ID token)', () => jwt({ at_hash: 'HK6E_P6Dh8Y93mRNtsDB1Q' }, { typ: 'JWT' })],
        ['a c_hash (an ID token)', () => jwt({ c_hash: 'LDktKdoQak3Pk0cnXxCltA' })],
        ['a logout token typ', () => jwt({}, { typ: 'logout+jwt' })],
        ['an events claim (a logout token)', () => jwt({ events: { 'http://schemas.openid.net/event/backchannel-logout': {} } }, { typ: 'JWT' })],
        ['no sub', () => jwt({ sub: undefined })],
        // Positive typing (RFC 8725 §3.11): an untyped JWT is not known to be an access token.
        ['no typ at all', () => jwt({}, { header: { typ: undefined } })],
        // Zitadel types its ID tokens JWT too and puts azp (and client_id) on every one, but never on
        // an access token: without a nonce or at_hash, only that tells them apart.
        ['typ JWT with azp beside client_id (a Zitadel ID token without nonce)', () => jwt({ azp: FAKE_CLIENT }, { typ: 'JWT' })],
        ['typ JWT naming the client in azp only', () => jwt({ client_id: undefined, azp: FAKE_CLIENT }, { typ: 'JWT' })],
      ];
      it.each(refused)('refuses a JWT with %s: 401 ACCESS_TOKEN_INVALID', async (_name, make) => {
        expectRefused(await listPlatforms(app, await make()));
      });

      it('never asks the provider about a JWT (no introspection)', async () => {
        const before = fake.counters.introspection;
        expectAllowed(await listPlatforms(app, await jwt()));
        expectRefused(await listPlatforms(app, await jwt({ client_id: 'another-client' })));
        expect(fake.counters.introspection).toBe(before);
      });

      it("answers 503 IDP_UNAVAILABLE, not 401, when the provider's key set cannot be fetched (it answers 500)", async () => {
        // A gateway that has not fetched the keys yet, so that this request must: a 401 would tell
        // the client its valid token is bad, and it would sign the person out.
        const { app: fresh } = await createTestApp({ db: database.db, oidc: { issuer: fake.issuer, clientId: FAKE_CLIENT, clientSecret: FAKE_SECRET } });
        const token = await jwt();
        fake.jwksStatus = 500;
        try {
          const before = fake.counters.jwks;
          const res = await listPlatforms(fresh, token);
          expect(fake.counters.jwks).toBeGreaterThan(before);
          expect({ status: res.status, code: res.body.code }).toEqual({ status: 503, code: 'IDP_UNAVAILABLE' });
        } finally {
          fake.jwksStatus = 200;
        }
        expectAllowed(await listPlatforms(fresh, token));
      });

      it('lets a valid token without the permission through authentication, then 403 FORBIDDEN', async () => {
        const res = await listPlatforms(app, await jwt({ scope: 'openid' }));
        expect({ status: res.status, code: res.body.code }).toEqual({ status: 403, code: 'FORBIDDEN' });
      });
    });

    describe('opaque access tokens (RFC 7662 introspection)', () => {
      const opaque = () => `opaque_${randomBytes(24).toString('base64url')}`;
      const active = (overrides: Record<string, unknown> = {}) => ({ active: true, sub: 'fake-admin', scope: 'openid platforms:admin', ...overrides });

      it('accepts an active access token and caches the answer: the second request asks nobody', async () => {
        const token = opaque();
        fake.scriptIntrospection(token, active());
        const before = fake.counters.introspection;
        expectAllowed(await listPlatforms(app, token));
        expectAllowed(await listPlatforms(app, token));
        expect(fake.counters.introspection - before).toBe(1);
      });

      const refused: [string, Record<string, unknown>][] = [
        ['a refresh token (token_type refresh_token)', active({ token_type: 'refresh_token' })],
        ['a refresh token (the RFC 8693 token type URI)', active({ token_type: 'urn:ietf:params:oauth:token-type:refresh_token' })],
        ["another client's token", active({ client_id: 'another-client' })],
        ['a token without client_id', active({ client_id: undefined })],
        ['a token for another API', active({ aud: 'another-api' })],
        ['a token without aud', active({ aud: undefined })],
        ['a token of another issuer', active({ iss: 'https://evil.example.test' })],
        ['an expired token still said to be active', active({ exp: now() - 600 })],
        ['an active token without sub', active({ sub: undefined })],
        ['an inactive token', { active: false }],
        // RFC 7662 §2.2: token_type is optional, so an answer without it does not say what the token is.
        ['an active token without token_type', active({ token_type: undefined })],
      ];
      it.each(refused)('refuses %s: 401 ACCESS_TOKEN_INVALID', async (_name, answer) => {
        const token = opaque();
        fake.scriptIntrospection(token, answer as { active: boolean });
        expectRefused(await listPlatforms(app, token));
      });

      it.each(['gws_', 'gwp_', 'handoff_', 'pcs_'])("refuses the gateway's own credential (%s…) locally: 401, and the provider never sees it", async (prefix) => {
        const token = `${prefix}${randomBytes(32).toString('base64url')}`;
        fake.scriptIntrospection(token, active());
        const before = fake.counters.introspection;
        const res = await listPlatforms(app, token);
        expectRefused(res);
        expect(res.body.detail).toMatch(/gateway's own credential/);
        expect(fake.counters.introspection).toBe(before);
      });

      it('caches a refusal briefly: the same inactive token twice costs one introspection', async () => {
        const token = opaque();
        const before = fake.counters.introspection;
        expectRefused(await listPlatforms(app, token));
        expectRefused(await listPlatforms(app, token));
        expect(fake.counters.introspection - before).toBe(1);
      });

      it('never asks the provider about junk: wrong characters, too short, too long', async () => {
        const before = fake.counters.introspection;
        for (const junk of ['short', 'has spaces in it and is long enough', 'x'.repeat(INTROSPECTION_LIMITS.maxOpaqueTokenLength + 1), 'non-ascii-tökén-that-is-long-enough-to-pass', 'a,b;c<d>e"f(g)h{i}j|k\\l^m`n']) {
          expectRefused(await listPlatforms(app, junk));
        }
        expect(fake.counters.introspection).toBe(before);
      });

      it('asks once for many simultaneous requests with the same new token (single flight)', async () => {
        const token = opaque();
        fake.scriptIntrospection(token, active());
        fake.introspectionDelayMs = 50;
        try {
          const before = fake.counters.introspection;
          const answers = await Promise.all(Array.from({ length: 20 }, () => listPlatforms(app, token)));
          for (const res of answers) expectAllowed(res);
          expect(fake.counters.introspection - before).toBe(1);
        } finally {
          fake.introspectionDelayMs = 0;
        }
      });

      it(`keeps at most ${INTROSPECTION_LIMITS.maxConcurrent} introspection calls in flight under a flood of distinct tokens`, async () => {
        fake.introspectionDelayMs = 40;
        fake.introspectionLoad.maxInFlight = 0;
        try {
          const flood = Array.from({ length: INTROSPECTION_LIMITS.maxConcurrent * 3 }, () => listPlatforms(app, opaque()));
          for (const res of await Promise.all(flood)) expectRefused(res);
          expect(fake.introspectionLoad.maxInFlight).toBeGreaterThan(0);
          expect(fake.introspectionLoad.maxInFlight).toBeLessThanOrEqual(INTROSPECTION_LIMITS.maxConcurrent);
        } finally {
          fake.introspectionDelayMs = 0;
        }
      });

      it('answers 503 IDP_UNAVAILABLE at once beyond the bounded wait, instead of queueing without end', async () => {
        // A slow provider (1.5 s an answer; the test app waits at most 2 s for a slot): the first
        // rounds are answered, later waiters give up, and requests beyond the waiting room are
        // refused at once. Never more than maxConcurrent calls at a time either way.
        fake.introspectionDelayMs = 1_500;
        fake.introspectionLoad.maxInFlight = 0;
        const before = fake.counters.introspection;
        const total = INTROSPECTION_LIMITS.maxConcurrent + INTROSPECTION_LIMITS.maxWaiting + 16;
        try {
          const answers = await Promise.all(Array.from({ length: total }, () => listPlatforms(app, opaque())));
          const statuses = answers.map((res) => res.status);
          expect(statuses.filter((status) => status !== 401 && status !== 503)).toEqual([]);
          for (const res of answers.filter((r) => r.status === 503)) expect(res.body.code).toBe('IDP_UNAVAILABLE');
          expect(statuses.filter((status) => status === 503).length).toBeGreaterThanOrEqual(total - INTROSPECTION_LIMITS.maxConcurrent - INTROSPECTION_LIMITS.maxWaiting);
          expect(fake.counters.introspection - before).toBeLessThanOrEqual(INTROSPECTION_LIMITS.maxConcurrent * 2);
          expect(fake.introspectionLoad.maxInFlight).toBeLessThanOrEqual(INTROSPECTION_LIMITS.maxConcurrent);
        } finally {
          fake.introspectionDelayMs = 0;
        }
      });
    });
  });
});
