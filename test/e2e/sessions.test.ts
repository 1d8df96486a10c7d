// Issue 12: sign-out (through the dev identity provider's real end-session endpoint), the
// session list and revocation, the idle timeout. Real logins, real HTTP.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import { startHarness, addPlatform, browserLogin, startUrl, PLATFORM_CALLBACK, PLATFORM_ROOT, type Harness, type TestPlatform } from '../helpers/flowHarness.ts';
import { OidcBrowser } from '../helpers/oidcBrowser.ts';

const ALICE = { username: 'alice', password: 'alice-password' };
const ADMIN = { username: 'admin', password: 'admin-password' };

describe('sessions (issue 12)', () => {
  let harness: Harness;
  let platform: TestPlatform;

  beforeAll(async () => {
    harness = await startHarness();
    platform = await addPlatform(harness);
  });
  afterAll(async () => {
    await harness?.close();
  });

  const cookieOf = (browser: OidcBrowser) => `gw_session=${browser.cookiesFor(`${harness.baseUrl}/`).gw_session}`;
  const me = (cookie: string) => request(harness.gateway.app).get('/v1/me').set('Cookie', cookie);
  const logoutUrl = (returnTo = `${PLATFORM_ROOT}bye`) => `${harness.baseUrl}/v1/auth/logout?platformKey=${platform.key}&returnTo=${encodeURIComponent(returnTo)}`;

  async function exchange(location: URL) {
    expect(`${location.origin}${location.pathname}`).toBe(PLATFORM_CALLBACK);
    const res = await request(harness.gateway.app).post('/v1/auth/exchange').set('Authorization', platform.basic).send({ code: location.searchParams.get('code') }).expect(200);
    return `gw_session=${res.body.session.gatewayToken}`;
  }

  it('the browser sign-out ends the session and its platform credential, goes through the provider, and lands on returnTo', async () => {
    const { browser, location } = await browserLogin(harness, platform.key, ALICE);
    const cookie = cookieOf(browser);
    const credential = await exchange(location);

    // The platform's proof (issue 3): a sign-out token its back end gets with its credential.
    const token = await request(harness.gateway.app).post('/v1/auth/logout/token').set('Cookie', credential).expect(200);
    const started = await browser.get(`${logoutUrl()}&signOutToken=${encodeURIComponent(token.body.signOutToken)}`);
    expect(started.status).toBe(302);
    expect(started.headers.getSetCookie().join('\n')).toMatch(/gw_session=;/);
    const endSession = new URL(started.location!);
    expect(endSession.origin).toBe(new URL(harness.idp.issuer).origin);
    expect(endSession.searchParams.get('id_token_hint')).toMatch(/^eyJ/);
    expect(endSession.searchParams.get('post_logout_redirect_uri')).toBe(`${harness.baseUrl}/v1/auth/logged-out`);
    // The session has already ended at the gateway, before the provider answers.
    await me(cookie).expect(401);
    await me(credential).expect(401);

    const providerPage = await browser.followRedirects(started, { maxHops: 5 });
    const back = await browser.confirmProviderSignOut(providerPage.response);
    const landed = await browser.followRedirects(back, { stopWhen: (url) => url.startsWith(PLATFORM_ROOT), maxHops: 5 });
    expect(landed.stoppedAt).toBe(`${PLATFORM_ROOT}bye`);

    // The provider's own session is over too: a new login asks for the password again.
    const again = await browser.followRedirects(await browser.get(`${harness.baseUrl}/v1/auth/start?platformKey=${platform.key}&returnTo=${encodeURIComponent(`${PLATFORM_ROOT}x`)}`), { maxHops: 10 });
    expect(again.response.text).toContain('name="password"');
  });

  it('signing out twice, or with no session, is harmless; returnTo is checked as at start', async () => {
    const anonymous = await new OidcBrowser().get(logoutUrl());
    expect(anonymous.status).toBe(302);
    expect(anonymous.location).toBe(`${PLATFORM_ROOT}bye`);
    const foreign = await new OidcBrowser().get(logoutUrl('https://evil.example/'), { accept: 'application/json' });
    expect(foreign.status).toBe(403);
    await request(harness.gateway.app).post('/v1/auth/logout').expect(204);
    await request(harness.gateway.app).head(`/v1/auth/logout?platformKey=${platform.key}&returnTo=%2F`).expect(405);
    const stale = await new OidcBrowser().get(`${harness.baseUrl}/v1/auth/logged-out?state=forged.state`);
    expect(stale.status).toBe(400);
    expect(stale.text).toContain('You are signed out');
  });

  it('the API sign-out: a platform back end ends the session of its credential; the browser cookie stops too', async () => {
    const { browser, location } = await browserLogin(harness, platform.key, ALICE);
    const credential = await exchange(location);
    await request(harness.gateway.app).post('/v1/auth/logout').set('Cookie', credential).expect(204);
    await me(credential).expect(401);
    await me(cookieOf(browser)).expect(401);
    await request(harness.gateway.app).post('/v1/auth/logout').set('Cookie', credential).expect(204);
    const { rows } = await harness.database.db.raw(`SELECT end_reason FROM gateway_sessions WHERE token_digest IS NOT NULL AND ended_at IS NOT NULL ORDER BY ended_at DESC LIMIT 1`);
    expect(rows[0].end_reason).toBe('sign_out');
  });

  it('signing out at one platform ends every session of that sign-in at the provider: both platforms are told, the other user is not', async () => {
    const other = await addPlatform(harness);
    const first = await browserLogin(harness, platform.key, ALICE);
    const firstCredential = await exchange(first.location);
    // The same browser signs in to a second platform: the provider's session is reused (same
    // sid), and the gateway makes a second session, whose cookie replaces the first.
    const start = await first.browser.get(startUrl(harness, other.key));
    const isOwn = (url: string) => url.startsWith(harness.baseUrl) || url.startsWith(harness.idp.issuer);
    const second = await first.browser.followRedirects(start, { stopWhen: (url) => !isOwn(url), maxHops: 10 });
    const secondCode = new URL(second.stoppedAt!).searchParams.get('code');
    const secondExchange = await request(harness.gateway.app).post('/v1/auth/exchange').set('Authorization', other.basic).send({ code: secondCode }).expect(200);
    const secondCredential = `gw_session=${secondExchange.body.session.gatewayToken}`;
    const bystander = await browserLogin(harness, platform.key, ADMIN, new OidcBrowser());

    await request(harness.gateway.app).post('/v1/auth/logout').set('Cookie', firstCredential).expect(204);
    await me(firstCredential).expect(401);
    await me(secondCredential).expect(401);
    await me(cookieOf(first.browser)).expect(401);
    await me(cookieOf(bystander.browser)).expect(200);
  });

  it('the account center signs out with its cookie, origin checked', async () => {
    const { browser } = await browserLogin(harness, platform.key, ALICE);
    const cookie = cookieOf(browser);
    await request(harness.gateway.app).post('/v1/auth/logout').set('Cookie', cookie).set('Origin', 'https://evil.example').expect(403);
    await me(cookie).expect(200);
    const done = await request(harness.gateway.app).post('/v1/auth/logout').set('Cookie', cookie).set('Origin', 'http://account.test').expect(204);
    expect(String(done.headers['set-cookie'])).toMatch(/gw_session=;/);
    await me(cookie).expect(401);
  });

  describe('the session list and revocation', () => {
    it('lists the live sessions with browser, coarse address, platforms and which is mine; revoking another ends it at once, audited', async () => {
      const first = await browserLogin(harness, platform.key, ALICE, new OidcBrowser());
      const credential = await exchange(first.location);
      const second = await browserLogin(harness, platform.key, ALICE, new OidcBrowser());
      const mine = cookieOf(second.browser);

      const list = await request(harness.gateway.app).get('/v1/sessions').set('Cookie', mine).expect(200);
      const items = list.body.items as { id: string; current: boolean; platforms: string[]; ipPrefix: string; userAgent: string | null }[];
      const current = items.filter((item) => item.current);
      expect(current).toHaveLength(1);
      const other = items.find((item) => item.platforms.includes(platform.key))!;
      expect(other).toBeDefined();
      expect(other.current).toBe(false);
      expect(other.ipPrefix).toMatch(/^127\.0\.0\.0\/24$|::\/48$/);

      await request(harness.gateway.app).delete(`/v1/sessions/${other.id}`).set('Cookie', mine).set('Origin', 'http://account.test').expect(204);
      await me(cookieOf(first.browser)).expect(401);
      await me(credential).expect(401);
      await me(mine).expect(200);
      const after = await request(harness.gateway.app).get('/v1/sessions').set('Cookie', mine).expect(200);
      expect(after.body.items.map((item: { id: string }) => item.id)).not.toContain(other.id);
      const { rows } = await harness.database.db.raw(`SELECT action, session_id, platform_key FROM audit_events WHERE action = 'session.revoke' AND session_id = ?`, [other.id]);
      expect(rows).toEqual([{ action: 'session.revoke', session_id: other.id, platform_key: null }]);
      // Revoking it again changes nothing.
      await request(harness.gateway.app).delete(`/v1/sessions/${other.id}`).set('Cookie', mine).set('Origin', 'http://account.test').expect(204);
    });

    it("another user's session is unknown to a non-administrator; an administrator lists and revokes it", async () => {
      const alice = await browserLogin(harness, platform.key, ALICE, new OidcBrowser());
      const admin = await browserLogin(harness, platform.key, ADMIN, new OidcBrowser());
      const aliceSessions = await request(harness.gateway.app).get('/v1/sessions').set('Cookie', cookieOf(alice.browser)).expect(200);
      const aliceSession = aliceSessions.body.items.find((item: { current: boolean }) => item.current).id as string;
      const { rows } = await harness.database.db.raw(`SELECT id FROM users WHERE sub = 'dev-user-alice'`);
      const aliceId = rows[0].id as string;

      const adminsOwn = await request(harness.gateway.app).get('/v1/sessions').set('Cookie', cookieOf(admin.browser)).expect(200);
      const adminSession = adminsOwn.body.items[0].id as string;
      expect((await request(harness.gateway.app).delete(`/v1/sessions/${adminSession}`).set('Cookie', cookieOf(alice.browser)).set('Origin', 'http://account.test').expect(404)).body.code).toBe('SESSION_NOT_FOUND');
      expect((await request(harness.gateway.app).get(`/v1/sessions?userId=${aliceId}`).set('Cookie', cookieOf(alice.browser)).expect(200)).body.items.length).toBeGreaterThan(0);
      await request(harness.gateway.app).get(`/v1/sessions?userId=${adminsOwn.body.items[0].id}`).set('Cookie', cookieOf(alice.browser)).expect(403);

      const listed = await request(harness.gateway.app).get(`/v1/sessions?userId=${aliceId}`).set('Cookie', cookieOf(admin.browser)).expect(200);
      expect(listed.body.items.map((item: { id: string }) => item.id)).toContain(aliceSession);
      await request(harness.gateway.app).delete(`/v1/sessions/${aliceSession}`).set('Cookie', cookieOf(admin.browser)).set('Origin', 'http://account.test').expect(204);
      await me(cookieOf(alice.browser)).expect(401);
    });

    it("a platform's credential neither lists the person's sessions (which would show every platform they use) nor revokes one", async () => {
      const other = await browserLogin(harness, platform.key, ALICE, new OidcBrowser());
      const { location } = await browserLogin(harness, platform.key, ALICE, new OidcBrowser());
      const credential = await exchange(location);
      const otherSession = (await request(harness.gateway.app).get('/v1/sessions').set('Cookie', cookieOf(other.browser)).expect(200)).body.items.find((item: { current: boolean }) => item.current).id as string;

      expect((await request(harness.gateway.app).get('/v1/sessions').set('Cookie', credential).expect(403)).body.code).toBe('FORBIDDEN');
      expect((await request(harness.gateway.app).delete(`/v1/sessions/${otherSession}`).set('Cookie', credential).set('Origin', 'http://account.test').expect(403)).body.code).toBe('FORBIDDEN');
      await me(cookieOf(other.browser)).expect(200);
    });
  });

  it('a session ends after GATEWAY_SESSION_IDLE_SECONDS without use; a use is recorded at most once a minute (the first one at once)', async () => {
    const { browser } = await browserLogin(harness, platform.key, ALICE, new OidcBrowser());
    const cookie = cookieOf(browser);
    const lastUsed = async () => (await harness.database.db.raw(`SELECT last_used_at FROM gateway_sessions WHERE ended_at IS NULL ORDER BY created_at DESC LIMIT 1`)).rows[0].last_used_at as Date;
    const created = await lastUsed();
    await me(cookie).expect(200);
    // The first use after the login is recorded (it tells a browser's session from an unreached one).
    await expect.poll(async () => (await lastUsed()).getTime(), { timeout: 2000 }).toBeGreaterThan(created.getTime());
    const before = await lastUsed();
    await me(cookie).expect(200);
    expect(await lastUsed()).toEqual(before); // used a moment ago: no write
    await harness.database.db.raw(`UPDATE gateway_sessions SET last_used_at = now() - interval '90 seconds' WHERE ended_at IS NULL`);
    await me(cookie).expect(200);
    await expect.poll(async () => Date.now() - (await lastUsed()).getTime(), { timeout: 2000 }).toBeLessThan(10_000);
    await harness.database.db.raw(`UPDATE gateway_sessions SET last_used_at = now() - interval '2 hours 1 minute' WHERE ended_at IS NULL`);
    const idle = await me(cookie).expect(401);
    expect(idle.body.code).toBe('SESSION_EXPIRED');
    expect(idle.body.detail).toMatch(/without use/);
  });
});
