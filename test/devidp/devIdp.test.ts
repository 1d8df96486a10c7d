import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify, type JWTVerifyGetKey } from 'jose';
import * as oidcClient from 'openid-client';

import { DEV_USERS, PERMISSION_SCOPES, startDevIdp, type DevIdp } from '../../src/devidp/index.ts';
import { basicAuth, obtainTokens, OidcBrowser } from '../helpers/oidcBrowser.ts';

const CLIENT = {
  clientId: 'auth-gateway-test',
  clientSecret: 'test-secret-with-enough-entropy-0123456789',
  // Never served: the helpers stop before requesting it.
  redirectUris: ['http://127.0.0.1:9/v1/auth/callback'],
  postLogoutRedirectUris: ['http://127.0.0.1:9/signed-out'],
};
const REDIRECT_URI = CLIENT.redirectUris[0] as string;
const ALL_SCOPES = `openid profile email ${PERMISSION_SCOPES.join(' ')}`;

interface Discovery {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  jwks_uri: string;
  introspection_endpoint?: string;
  id_token_signing_alg_values_supported: string[];
  code_challenge_methods_supported: string[];
  token_endpoint_auth_methods_supported: string[];
}

describe('dev identity provider', () => {
  let idp: DevIdp;
  let discovery: Discovery;
  let jwks: JWTVerifyGetKey;
  const logLines: string[] = [];

  beforeAll(async () => {
    idp = await startDevIdp({
      port: 0,
      clients: [CLIENT],
      homeUrl: 'http://127.0.0.1:9/home',
      logger: { info: (obj, msg) => { logLines.push(JSON.stringify({ obj, msg })); } },
    });
    const res = await fetch(`${idp.issuer}/.well-known/openid-configuration`);
    discovery = (await res.json()) as Discovery;
    jwks = createRemoteJWKSet(new URL(discovery.jwks_uri));
  });

  afterAll(async () => {
    await idp?.close();
  });

  it('an expired or unknown sign-in explains itself and leads back to the application', async () => {
    const res = await fetch(`${idp.issuer}/interaction/no-such-interaction`);
    expect(res.status).toBe(400);
    const page = await res.text();
    expect(page).toMatch(/<h1>This sign-in page has expired<\/h1>/);
    expect(page).toContain('<a class="button" href="http://127.0.0.1:9/home">Back to the application</a>');
  });

  const tokensFor = (username: 'alice' | 'admin', scope = ALL_SCOPES, nonce?: string) => {
    const user = DEV_USERS.find((u) => u.username === username);
    if (!user) throw new Error(username);
    return obtainTokens({
      issuer: idp.issuer,
      clientId: CLIENT.clientId,
      clientSecret: CLIENT.clientSecret,
      redirectUri: REDIRECT_URI,
      username: user.username,
      password: user.password,
      scope,
      ...(nonce ? { nonce } : {}),
    });
  };

  const verifyAccessToken = (token: string) =>
    // Every client's access tokens carry the first client's id as `aud` (like Zitadel's project audience).
    jwtVerify(token, jwks, { issuer: idp.issuer, audience: CLIENT.clientId, typ: 'at+jwt', algorithms: ['RS256'] });

  it('listens on a real port and uses it in the issuer', () => {
    expect(idp.port).toBeGreaterThan(0);
    expect(idp.issuer).toBe(`http://127.0.0.1:${idp.port}`);
    expect(idp.users.map((u) => u.username)).toEqual(['alice', 'admin']);
  });

  it('publishes a discovery document with RS256, S256 and an introspection endpoint', () => {
    expect(discovery.issuer).toBe(idp.issuer);
    expect(discovery.id_token_signing_alg_values_supported).toEqual(['RS256']);
    expect(discovery.code_challenge_methods_supported).toEqual(['S256']);
    expect(discovery.introspection_endpoint).toMatch(new RegExp(`^${idp.issuer}/`));
    expect(discovery.token_endpoint_auth_methods_supported).toEqual(['client_secret_basic']);
  });

  it("issues alice a JWT access token whose scope lacks permissions she does not hold", async () => {
    const tokens = await tokensFor('alice');
    const { payload, protectedHeader } = await verifyAccessToken(tokens.accessToken);
    expect(protectedHeader.alg).toBe('RS256');
    expect(protectedHeader.kid).toEqual(expect.any(String));
    expect(payload.sub).toBe('dev-user-alice');
    expect(payload.client_id).toBe(CLIENT.clientId);
    expect(payload.exp).toEqual(expect.any(Number));
    expect(String(payload.scope).split(' ').sort()).toEqual(['email', 'openid', 'profile']);
    expect(tokens.scope.split(' ').sort()).toEqual(['email', 'openid', 'profile']);
  });

  it('issues admin a JWT access token with all four permission scopes', async () => {
    const tokens = await tokensFor('admin');
    const { payload } = await verifyAccessToken(tokens.accessToken);
    expect(payload.sub).toBe('dev-user-admin');
    const scopes = String(payload.scope).split(' ');
    for (const s of ['openid', 'profile', 'email', ...PERMISSION_SCOPES]) expect(scopes).toContain(s);
    expect(scopes).toHaveLength(7);
  });

  it('grants only the requested scopes, even to admin', async () => {
    const tokens = await tokensFor('admin', 'openid onboarding:schema:read');
    const { payload } = await verifyAccessToken(tokens.accessToken);
    expect(String(payload.scope).split(' ').sort()).toEqual(['onboarding:schema:read', 'openid']);
  });

  it('issues an RS256 ID token with kid, aud = client id, the nonce and profile claims', async () => {
    const tokens = await tokensFor('alice', 'openid profile email', 'nonce-123');
    const header = decodeProtectedHeader(tokens.idToken);
    expect(header.alg).toBe('RS256');
    expect(header.kid).toEqual(expect.any(String));
    const { payload } = await jwtVerify(tokens.idToken, jwks, { issuer: idp.issuer, audience: CLIENT.clientId, algorithms: ['RS256'] });
    expect(payload.aud).toBe(CLIENT.clientId);
    expect(payload.nonce).toBe('nonce-123');
    expect(payload.sub).toBe('dev-user-alice');
    expect(payload).toMatchObject({
      given_name: 'Alice',
      family_name: 'Example',
      name: 'Alice Example',
      preferred_username: 'alice',
      email: 'alice@example.test',
      email_verified: true,
    });
  });

  it('shows a login form and re-renders it with an error on a wrong password, without signing in', async () => {
    const browser = new OidcBrowser();
    const authorize = new URL(discovery.authorization_endpoint);
    authorize.search = new URLSearchParams({
      client_id: CLIENT.clientId,
      response_type: 'code',
      scope: 'openid',
      redirect_uri: REDIRECT_URI,
      state: 'st',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
    }).toString();
    const { response: page, stoppedAt } = await browser.followRedirects(await browser.get(authorize.href), {
      stopWhen: (u) => u.startsWith(REDIRECT_URI),
    });
    expect(stoppedAt).toBeUndefined();
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    expect(page.text).toContain('Dev identity provider');
    expect(page.text).toMatch(/<form[^>]*method="post"/);
    expect(page.text).toContain('Sign in');

    const failed = await browser.loginAtDevIdp(page, 'alice', 'wrong-password');
    expect([200, 401]).toContain(failed.status);
    expect(failed.location).toBeUndefined();
    expect(failed.text).toContain('Invalid username or password');
    expect(failed.text).toMatch(/<form[^>]*method="post"/);
    expect(failed.text).toContain('value="alice"');

    // The password is never logged.
    expect(logLines.some((l) => l.includes('wrong-password'))).toBe(false);
    expect(logLines.some((l) => l.includes('sign-in failed'))).toBe(true);

    // Still not signed in: the correct password now completes the same transaction.
    const ok = await browser.loginAtDevIdp(failed, 'alice', 'alice-password');
    expect(ok.status).toBe(303);
    const done = await browser.followRedirects(ok, { stopWhen: (u) => u.startsWith(REDIRECT_URI) });
    const cb = new URL(done.stoppedAt ?? 'http://x/');
    expect(cb.searchParams.get('code')).toEqual(expect.any(String));
    expect(cb.searchParams.get('state')).toBe('st');
    expect(logLines.some((l) => l.includes('alice-password'))).toBe(false);
  });

  it('escapes user input echoed into the login page', async () => {
    const browser = new OidcBrowser();
    const authorize = new URL(discovery.authorization_endpoint);
    authorize.search = new URLSearchParams({
      client_id: CLIENT.clientId,
      response_type: 'code',
      scope: 'openid',
      redirect_uri: REDIRECT_URI,
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
    }).toString();
    const { response: page } = await browser.followRedirects(await browser.get(authorize.href));
    const failed = await browser.loginAtDevIdp(page, '"><script>alert(1)</script>', 'x');
    expect(failed.text).not.toContain('<script>alert(1)</script>');
    expect(failed.text).toContain('&quot;&gt;&lt;script&gt;');
  });

  it('returns access_denied to the client when the user cancels the sign-in', async () => {
    const browser = new OidcBrowser();
    const authorize = new URL(discovery.authorization_endpoint);
    authorize.search = new URLSearchParams({
      client_id: CLIENT.clientId,
      response_type: 'code',
      scope: 'openid',
      redirect_uri: REDIRECT_URI,
      state: 'cancel-me',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
    }).toString();
    const { response: page } = await browser.followRedirects(await browser.get(authorize.href));
    const cancelled = await browser.postForm(page.url, { cancel: '1' });
    const { stoppedAt } = await browser.followRedirects(cancelled, { stopWhen: (u) => u.startsWith(REDIRECT_URI) });
    const cb = new URL(stoppedAt ?? 'http://x/');
    expect(cb.searchParams.get('error')).toBe('access_denied');
    expect(cb.searchParams.get('state')).toBe('cancel-me');
  });

  it('requires PKCE: an authorization request without code_challenge is refused', async () => {
    const browser = new OidcBrowser();
    const authorize = new URL(discovery.authorization_endpoint);
    authorize.search = new URLSearchParams({
      client_id: CLIENT.clientId,
      response_type: 'code',
      scope: 'openid',
      redirect_uri: REDIRECT_URI,
      state: 'no-pkce',
    }).toString();
    const res = await browser.get(authorize.href);
    expect(res.status).toBeGreaterThanOrEqual(300);
    expect(res.status).toBeLessThan(400);
    const cb = new URL(res.location ?? 'http://x/');
    expect(cb.href.startsWith(REDIRECT_URI)).toBe(true);
    expect(cb.searchParams.get('error')).toBe('invalid_request');
    expect(cb.searchParams.get('error_description')).toMatch(/PKCE/);
    expect(cb.searchParams.get('code')).toBeNull();
  });

  it('refuses the plain PKCE method', async () => {
    const browser = new OidcBrowser();
    const authorize = new URL(discovery.authorization_endpoint);
    authorize.search = new URLSearchParams({
      client_id: CLIENT.clientId,
      response_type: 'code',
      scope: 'openid',
      redirect_uri: REDIRECT_URI,
      code_challenge: 'plain-challenge-plain-challenge-plain-challenge-1234',
      code_challenge_method: 'plain',
    }).toString();
    const res = await browser.get(authorize.href);
    expect(new URL(res.location ?? 'http://x/').searchParams.get('error')).toBe('invalid_request');
  });

  it('introspects the JWT access token as active with the right sub (RFC 7662)', async () => {
    const tokens = await tokensFor('admin');
    const res = await fetch(discovery.introspection_endpoint as string, {
      method: 'POST',
      headers: {
        authorization: basicAuth(CLIENT.clientId, CLIENT.clientSecret),
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ token: tokens.accessToken }).toString(),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body.active).toBe(true);
    expect(body.sub).toBe('dev-user-admin');
    expect(body.client_id).toBe(CLIENT.clientId);
    expect(String(body.scope).split(' ')).toContain('platforms:admin');
  });

  it('introspects forged or unknown tokens as inactive and rejects unauthenticated callers', async () => {
    const tokens = await tokensFor('alice');
    const [h, p] = tokens.accessToken.split('.');
    const forged = `${h}.${p}.${'A'.repeat(342)}`;
    for (const token of [forged, 'not-a-token']) {
      const res = await fetch(discovery.introspection_endpoint as string, {
        method: 'POST',
        headers: {
          authorization: basicAuth(CLIENT.clientId, CLIENT.clientSecret),
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams({ token }).toString(),
      });
      expect(await res.json()).toEqual({ active: false });
    }
    const unauth = await fetch(discovery.introspection_endpoint as string, {
      method: 'POST',
      headers: {
        authorization: basicAuth(CLIENT.clientId, 'wrong-secret'),
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ token: tokens.accessToken }).toString(),
    });
    expect(unauth.status).toBe(401);
  });

  it('interoperates with openid-client (code + PKCE, ID token checks, refresh, introspection)', async () => {
    // The gateway's RP library. Two settings matter against the dev IdP: plain http needs
    // allowInsecureRequests, and client_secret_basic must be chosen explicitly (openid-client
    // defaults to client_secret_post, which this IdP does not accept).
    const config = await oidcClient.discovery(
      new URL(idp.issuer),
      CLIENT.clientId,
      undefined,
      oidcClient.ClientSecretBasic(CLIENT.clientSecret),
      { execute: [oidcClient.allowInsecureRequests] },
    );
    const codeVerifier = oidcClient.randomPKCECodeVerifier();
    const state = oidcClient.randomState();
    const nonce = oidcClient.randomNonce();
    const url = oidcClient.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT_URI,
      scope: 'openid profile email offline_access platforms:admin',
      // OIDC Core §11: offline_access is only honoured together with prompt=consent; the dev
      // IdP answers that consent prompt itself (no second page).
      prompt: 'consent',
      code_challenge: await oidcClient.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    });
    const browser = new OidcBrowser();
    const stop = { stopWhen: (u: string) => u.startsWith(REDIRECT_URI) };
    const { response: page } = await browser.followRedirects(await browser.get(url.href), stop);
    const done = await browser.followRedirects(await browser.loginAtDevIdp(page, 'admin', 'admin-password'), stop);
    expect(done.stoppedAt).toBeDefined();

    const tokens = await oidcClient.authorizationCodeGrant(config, new URL(done.stoppedAt as string), {
      pkceCodeVerifier: codeVerifier,
      expectedState: state,
      expectedNonce: nonce,
      idTokenExpected: true,
    });
    expect(tokens.claims()?.sub).toBe('dev-user-admin');
    expect(tokens.claims()?.aud).toBe(CLIENT.clientId);
    expect(tokens.refresh_token).toEqual(expect.any(String));
    const first = await verifyAccessToken(tokens.access_token);
    expect(String(first.payload.scope).split(' ')).toContain('platforms:admin');

    // The refreshed access token is again a JWT for the default resource with the same scope.
    const refreshed = await oidcClient.refreshTokenGrant(config, tokens.refresh_token as string);
    const second = await verifyAccessToken(refreshed.access_token);
    expect(second.payload.sub).toBe('dev-user-admin');
    expect(second.payload.scope).toBe(first.payload.scope);

    const introspection = await oidcClient.tokenIntrospection(config, refreshed.access_token);
    expect(introspection.active).toBe(true);
    expect(introspection.sub).toBe('dev-user-admin');

    // Opaque tokens (the refresh token) are introspected by oidc-provider itself.
    const rt = await oidcClient.tokenIntrospection(config, refreshed.refresh_token ?? (tokens.refresh_token as string));
    expect(rt.active).toBe(true);
    expect(rt.sub).toBe('dev-user-admin');

    // Revoking the refresh token revokes its grant (RFC 7009 §2.1), and introspection of the
    // grant's JWT access tokens follows suit even though the JWTs themselves are still valid.
    await oidcClient.tokenRevocation(config, refreshed.refresh_token ?? (tokens.refresh_token as string));
    expect((await oidcClient.tokenIntrospection(config, refreshed.access_token)).active).toBe(false);
    await expect(verifyAccessToken(refreshed.access_token)).resolves.toBeDefined();
  });

  it('supports RP-initiated logout with a confirmation page and the registered post-logout URI', async () => {
    const browser = new OidcBrowser();
    const tokens = await obtainTokens({
      issuer: idp.issuer,
      clientId: CLIENT.clientId,
      clientSecret: CLIENT.clientSecret,
      redirectUri: REDIRECT_URI,
      username: 'alice',
      password: 'alice-password',
      browser,
    });
    const discoveryDoc = (await (await fetch(`${idp.issuer}/.well-known/openid-configuration`)).json()) as { end_session_endpoint: string };
    const endSession = new URL(discoveryDoc.end_session_endpoint);
    endSession.search = new URLSearchParams({
      id_token_hint: tokens.idToken,
      post_logout_redirect_uri: 'http://127.0.0.1:9/signed-out',
      state: 'bye',
    }).toString();
    const page = await browser.get(endSession.href);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Dev identity provider');
    const formTag = /<form\b[^>]*>/.exec(page.text)?.[0] ?? '';
    const action = new URL(/action="([^"]+)"/.exec(formTag)?.[1] ?? '', page.url).href;
    const xsrf = /name="xsrf" value="([^"]+)"/.exec(page.text)?.[1] ?? '';
    const confirmed = await browser.postForm(action, { xsrf, logout: 'yes' });
    const { stoppedAt } = await browser.followRedirects(confirmed, { stopWhen: (u) => u.startsWith('http://127.0.0.1:9/') });
    expect(stoppedAt).toBe('http://127.0.0.1:9/signed-out?state=bye');

    // Signed out: the next authorization shows the login page again.
    const again = await browser.followRedirects(await browser.get(endSession.origin + '/auth?' + new URLSearchParams({
      client_id: CLIENT.clientId,
      response_type: 'code',
      scope: 'openid',
      redirect_uri: REDIRECT_URI,
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
    }).toString()), { stopWhen: (u) => u.startsWith(REDIRECT_URI) });
    expect(again.stoppedAt).toBeUndefined();
    expect(again.response.text).toContain('Sign in');
  });

  it("puts the first client's id into `aud` of every client's access tokens; any string may replace it", async () => {
    const second = { clientId: 'second-client', clientSecret: 'second-secret-with-enough-entropy-0123', redirectUris: [REDIRECT_URI] };
    const shared = await startDevIdp({ port: 0, clients: [CLIENT, second] });
    const custom = await startDevIdp({ port: 0, clients: [CLIENT], accessTokenAudience: 'auth-gateway' });
    try {
      const login = (issuer: string, client: typeof CLIENT | typeof second) => obtainTokens({
        issuer, clientId: client.clientId, clientSecret: client.clientSecret, redirectUri: REDIRECT_URI,
        username: 'alice', password: 'alice-password', scope: 'openid',
      });
      const claimsOf = (token: string, issuer: string, audience: string) =>
        jwtVerify(token, createRemoteJWKSet(new URL(`${issuer}/jwks`)), { issuer, audience, typ: 'at+jwt' }).then((r) => r.payload);
      const other = await claimsOf((await login(shared.issuer, second)).accessToken, shared.issuer, CLIENT.clientId);
      expect(other).toMatchObject({ aud: CLIENT.clientId, client_id: 'second-client' });
      // Not an absolute URI, and still fine: the resource indicator stays urn:auth-gateway.
      const own = await claimsOf((await login(custom.issuer, CLIENT)).accessToken, custom.issuer, 'auth-gateway');
      expect(own).toMatchObject({ aud: 'auth-gateway', client_id: CLIENT.clientId });
    } finally {
      await shared.close();
      await custom.close();
    }
  });

  it('refuses to start when NODE_ENV=production', async () => {
    const previous = process.env.NODE_ENV;
    process.env.NODE_ENV = 'production';
    try {
      await expect(startDevIdp({ port: 0, clients: [CLIENT] })).rejects.toThrow(/production/);
    } finally {
      if (previous === undefined) delete process.env.NODE_ENV;
      else process.env.NODE_ENV = previous;
    }
  });

  it('starts a second, independent instance and closes it cleanly', async () => {
    const other = await startDevIdp({ port: 0, clients: [CLIENT], accessTokenAudience: 'urn:other', accessTokenTtlSeconds: 120 });
    try {
      expect(other.issuer).not.toBe(idp.issuer);
      const tokens = await obtainTokens({
        issuer: other.issuer,
        clientId: CLIENT.clientId,
        clientSecret: CLIENT.clientSecret,
        redirectUri: REDIRECT_URI,
        username: 'alice',
        password: 'alice-password',
        scope: 'openid',
      });
      const otherJwks = createRemoteJWKSet(new URL(`${other.issuer}/jwks`));
      const { payload } = await jwtVerify(tokens.accessToken, otherJwks, { issuer: other.issuer, audience: 'urn:other' });
      expect((payload.exp ?? 0) - (payload.iat ?? 0)).toBe(120);
      expect(tokens.expiresIn).toBe(120);
    } finally {
      await other.close();
    }
    await expect(fetch(`${other.issuer}/.well-known/openid-configuration`)).rejects.toThrow();
  });
});
