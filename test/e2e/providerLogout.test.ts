// Back-channel logout in, for real: a person signs in through the gateway with the dev identity
// provider (oidc-provider, Back-Channel Logout 1.0 enabled for the gateway's client), then signs
// out at the provider itself, at its end-session endpoint, as another application of that
// provider would send them (not through the gateway's own /v1/auth/logout). The provider posts
// a logout token to the gateway, which ends the matching session.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import { startHarness, addPlatform, browserLogin, PLATFORM_CALLBACK, type Harness, type TestPlatform } from '../helpers/flowHarness.ts';
import { OidcBrowser } from '../helpers/oidcBrowser.ts';

const ALICE = { username: 'alice', password: 'alice-password' };
const ADMIN = { username: 'admin', password: 'admin-password' };

describe('provider logout reaches the gateway (back-channel logout in)', () => {
  let harness: Harness;
  let platform: TestPlatform;
  let endSessionEndpoint: string;

  beforeAll(async () => {
    harness = await startHarness();
    platform = await addPlatform(harness);
    const discovery = (await (await fetch(`${harness.idp.issuer}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
    expect(discovery).toMatchObject({ backchannel_logout_supported: true, backchannel_logout_session_supported: true });
    endSessionEndpoint = String(discovery.end_session_endpoint);
  });
  afterAll(async () => {
    await harness?.close();
  });

  async function eventually(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
    const until = Date.now() + timeoutMs;
    while (!(await check()) && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 100));
  }

  const cookieOf = (browser: OidcBrowser) => `gw_session=${browser.cookiesFor(`${harness.baseUrl}/`).gw_session}`;
  const me = (cookie: string) => request(harness.gateway.app).get('/v1/me').set('Cookie', cookie);

  async function currentSession(cookie: string): Promise<{ id: string; idpSid: string | null }> {
    const list = await request(harness.gateway.app).get('/v1/sessions').set('Cookie', cookie).expect(200);
    const id = (list.body.items as { id: string; current: boolean }[]).find((item) => item.current)!.id;
    const { rows } = await harness.database.db.raw(`SELECT idp_sid FROM gateway_sessions WHERE id = ?`, [id]);
    return { id, idpSid: rows[0].idp_sid };
  }

  async function exchange(location: URL): Promise<string> {
    expect(`${location.origin}${location.pathname}`).toBe(PLATFORM_CALLBACK);
    const res = await request(harness.gateway.app).post('/v1/auth/exchange').set('Authorization', platform.basic).send({ code: location.searchParams.get('code') }).expect(200);
    return `gw_session=${res.body.session.gatewayToken}`;
  }

  it('signing out at the provider ends the gateway session of that provider session (and its platform credential); others live on', async () => {
    const alice = await browserLogin(harness, platform.key, ALICE, new OidcBrowser());
    const aliceCookie = cookieOf(alice.browser);
    const credential = await exchange(alice.location);
    const admin = await browserLogin(harness, platform.key, ADMIN, new OidcBrowser());
    const adminCookie = cookieOf(admin.browser);

    // The login stored the provider's session id from the ID token.
    const aliceSession = await currentSession(aliceCookie);
    const adminSession = await currentSession(adminCookie);
    expect(aliceSession.idpSid).toEqual(expect.any(String));
    expect(adminSession.idpSid).toEqual(expect.any(String));
    expect(aliceSession.idpSid).not.toBe(adminSession.idpSid);
    await me(aliceCookie).expect(200);
    await me(credential).expect(200);

    // Another application sends Alice's browser to the provider's end-session endpoint (no
    // id_token_hint of the gateway's), and she confirms.
    const page = await alice.browser.get(endSessionEndpoint);
    expect(page.status).toBe(200);
    const signedOut = await alice.browser.confirmProviderSignOut(page);
    expect(signedOut.status).toBeLessThan(400);

    // oidc-provider delivers the logout tokens before it answers the confirmation (within its
    // 2.5 s request timeout; the gateway finishes its work even if a loaded machine is slower).
    await eventually(async () => (await me(aliceCookie)).status === 401);
    await me(aliceCookie).expect(401);
    await me(credential).expect(401);
    const { rows } = await harness.database.db.raw(`SELECT end_reason, ended_at FROM gateway_sessions WHERE id = ?`, [aliceSession.id]);
    expect(rows[0]).toMatchObject({ end_reason: 'provider_logout', ended_at: expect.any(Date) });

    // Another person's session, of another provider session, is untouched.
    await me(adminCookie).expect(200);
    // And the provider's session is over too: a new login asks for the password again.
    const again = await alice.browser.followRedirects(
      await alice.browser.get(`${harness.baseUrl}/v1/auth/start?platformKey=${platform.key}&returnTo=${encodeURIComponent('https://bff.example.test/x')}`),
      { maxHops: 10 },
    );
    expect(again.response.text).toContain('name="password"');
  });
});
