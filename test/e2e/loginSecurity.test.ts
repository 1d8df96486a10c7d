// Issue 8, sections 3 to 5 and the resume limit, driven as the attacks were found:
// a real browser-like client, the dev identity provider's login page, real HTTP.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import { randomBytes } from 'node:crypto';
import { startHarness, addPlatform, browserLogin, startUrl, PLATFORM_CALLBACK, type Harness, type TestPlatform } from '../helpers/flowHarness.ts';
import { OidcBrowser } from '../helpers/oidcBrowser.ts';
import { s256Challenge } from '../../src/security/crypto.ts';

const ALICE = { username: 'alice', password: 'alice-password' };
const ADMIN = { username: 'admin', password: 'admin-password' };

function exchange(harness: Harness, platform: Pick<TestPlatform, 'basic'>, body: Record<string, string>) {
  return request(harness.gateway.app).post('/v1/auth/exchange').set('Authorization', platform.basic).send(body);
}

function codeOf(location: URL): string {
  expect(`${location.origin}${location.pathname}`).toBe(PLATFORM_CALLBACK);
  return location.searchParams.get('code')!;
}

/**
 * A person's browser that starts a login, signs in at the dev IdP (unless its session there
 * is still open) and stops at the gateway's callback link.
 */
async function loginUpToCallback(harness: Harness, platformKey: string, user: typeof ALICE, browser = new OidcBrowser(), extra: Record<string, string> = {}) {
  const atCallback = (url: string) => url.startsWith(`${harness.baseUrl}/v1/auth/callback`);
  const start = await browser.get(startUrl(harness, platformKey, undefined, extra));
  expect(start.status, start.text).toBe(302);
  let followed = await browser.followRedirects(start, { stopWhen: atCallback, maxHops: 10 });
  if (!followed.stoppedAt) {
    const afterLogin = await browser.loginAtDevIdp(followed.response, user.username, user.password);
    followed = await browser.followRedirects(afterLogin, { stopWhen: atCallback, maxHops: 10 });
  }
  return { browser, callbackUrl: followed.stoppedAt! };
}

describe('login security (issue 8)', () => {
  let harness: Harness;

  beforeAll(async () => {
    harness = await startHarness();
  });
  afterAll(async () => {
    await harness?.close();
  });

  describe("§3 a platform's own credential, not the browser's session", () => {
    let platform: TestPlatform;
    let victim: TestPlatform;
    let adminBrowser: OidcBrowser;
    let credential: string;

    beforeAll(async () => {
      platform = await addPlatform(harness);
      victim = await addPlatform(harness);
      const login = await browserLogin(harness, platform.key, ADMIN);
      adminBrowser = login.browser;
      const res = await exchange(harness, platform, { code: codeOf(login.location) }).expect(200);
      credential = res.body.session.gatewayToken;
      // The exchange still reports what the administrator holds, for the platform's UI.
      expect(res.body.permissions).toEqual(['platforms:admin', 'onboarding:schema:read', 'onboarding:schema:write', 'support:access']);
    });

    const withCredential = (method: 'get' | 'patch' | 'post' | 'delete' | 'put', path: string) =>
      request(harness.gateway.app)[method](path).set('Cookie', `gw_session=${credential}`);

    it('never exercises platforms:admin: the registry refuses it, and nothing changes', async () => {
      const list = await withCredential('get', '/v1/platforms').expect(403);
      expect(list.body.code).toBe('FORBIDDEN');
      const patch = await withCredential('patch', `/v1/platforms/${victim.key}`).send({ callbackUrl: 'https://evil.example/cb' }).expect(403);
      expect(patch.body.code).toBe('FORBIDDEN');
      await withCredential('post', `/v1/platforms/${victim.key}/credentials/rotate`).expect(403);
      await withCredential('get', '/v1/audit-events').expect(403);
      const { rows } = await harness.database.db.raw('SELECT callback_url FROM platforms WHERE platform_key = ?', [victim.key]);
      expect(rows[0].callback_url).toBe(PLATFORM_CALLBACK);
      const audit = await harness.database.db.raw(`SELECT 1 FROM audit_events WHERE platform_key = ? AND action <> 'platform.create'`, [victim.key]);
      expect(audit.rows).toHaveLength(0);
    });

    it("the administrator's own browser session still administers", async () => {
      const own = await adminBrowser.get(`${harness.baseUrl}/v1/platforms`, { accept: 'application/json' });
      expect(own.status).toBe(200);
    });

    it("acts for the user on user routes (/v1/me, and its own platform's onboarding)", async () => {
      const me = await withCredential('get', '/v1/me').expect(200);
      expect(me.body).toMatchObject({ authentication: 'platform', platform: platform.key, permissions: ['onboarding:schema:read', 'onboarding:schema:write'] });
      await withCredential('get', `/v1/onboarding/${platform.key}/status`).expect(200);
    });

    it("reaches its own platform's onboarding only", async () => {
      const other = await withCredential('get', `/v1/onboarding/${victim.key}/status`).expect(403);
      expect(other.body.code).toBe('FORBIDDEN');
      await withCredential('get', `/v1/platforms/${victim.key}/onboarding/fields`).expect(403);
    });

    it('cannot delete the account, change the password or resume a login: the person acts for themselves', async () => {
      const deletion = await withCredential('delete', '/v1/account/me').expect(403);
      expect(deletion.body.code).toBe('FORBIDDEN');
      await withCredential('post', '/v1/account/password').send({ currentPassword: 'x', newPassword: 'y' }).expect(403);
      await withCredential('get', '/v1/auth/resume?transaction=00000000-0000-4000-8000-000000000000').set('Accept', 'application/json').expect(401);
    });

    it('is revoked with its session, expires with it, and stops while its platform is inactive', async () => {
      const login = await browserLogin(harness, platform.key, ALICE);
      const res = await exchange(harness, platform, { code: codeOf(login.location) }).expect(200);
      const token: string = res.body.session.gatewayToken;
      const me = () => request(harness.gateway.app).get('/v1/me').set('Cookie', `gw_session=${token}`);
      await me().expect(200);

      await harness.database.db.raw('UPDATE platforms SET active = false WHERE platform_key = ?', [platform.key]);
      await me().expect(401);
      await harness.database.db.raw('UPDATE platforms SET active = true WHERE platform_key = ?', [platform.key]);
      await me().expect(200);

      await harness.database.db.raw(`UPDATE gateway_sessions SET expires_at = now() - interval '1 second' WHERE id = ?`, [res.body.session.id]);
      expect((await me().expect(401)).body.code).toBe('SESSION_EXPIRED');
      await harness.database.db.raw(`UPDATE gateway_sessions SET expires_at = now() + interval '1 hour', revoked_at = now() WHERE id = ?`, [res.body.session.id]);
      expect((await me().expect(401)).body.code).toBe('UNAUTHENTICATED');
    });

    it('a forged credential is refused', async () => {
      await request(harness.gateway.app).get('/v1/me').set('Cookie', `gw_session=gwp_${'A'.repeat(43)}`).expect(401);
    });
  });

  describe('§4 each login is bound to the browser that started it', () => {
    it('a callback link sent to another browser is refused, signs nobody in, and spends the login', async () => {
      const platform = await addPlatform(harness);
      const attacker = await loginUpToCallback(harness, platform.key, ALICE);
      const victim = new OidcBrowser();
      const refused = await victim.get(attacker.callbackUrl);
      expect(refused.status).toBe(403);
      expect(refused.headers.get('content-type')).toMatch(/text\/html/);
      expect(refused.text).toMatch(/another browser/);
      // The page offers a fresh login for the same platform and returnTo.
      const restart = /href="([^"]+)">Start again/.exec(refused.text)?.[1]?.replaceAll('&#38;', '&');
      expect(restart).toBeDefined();
      const restartUrl = new URL(restart!);
      expect(restartUrl.pathname).toBe('/v1/auth/start');
      expect(restartUrl.searchParams.get('platformKey')).toBe(platform.key);
      expect(victim.cookiesFor(`${harness.baseUrl}/`).gw_session).toBeUndefined();
      const { rows } = await harness.database.db.raw(`SELECT count(*) AS n FROM handoff_codes h JOIN platforms p ON p.id = h.platform_id WHERE p.platform_key = ?`, [platform.key]);
      expect(Number(rows[0].n)).toBe(0);
      // Spent: not even the browser that started it can finish it now.
      const late = await attacker.browser.get(attacker.callbackUrl, { accept: 'application/json' });
      expect(late.status).toBe(404);
    });

    it('API clients get problem+json LOGIN_BROWSER_MISMATCH', async () => {
      const platform = await addPlatform(harness);
      const { callbackUrl } = await loginUpToCallback(harness, platform.key, ALICE);
      const res = await new OidcBrowser().get(callbackUrl, { accept: 'application/json' });
      expect(res.status).toBe(403);
      expect(res.headers.get('content-type')).toMatch(/application\/problem\+json/);
      expect(JSON.parse(res.text).code).toBe('LOGIN_BROWSER_MISMATCH');
    });

    it('a wrong binding value is refused like a missing one', async () => {
      const platform = await addPlatform(harness);
      const { browser, callbackUrl } = await loginUpToCallback(harness, platform.key, ALICE);
      const forged = Object.keys(browser.cookiesFor(callbackUrl)).map((name) => `${name}=${'x'.repeat(43)}`).join('; ');
      const res = await new OidcBrowser().get(callbackUrl, { accept: 'application/json', cookie: forged });
      expect(res.status).toBe(403);
    });

    it('several tabs: two logins in flight in one browser both finish, in either order, and each clears its cookie', async () => {
      const platform = await addPlatform(harness);
      const browser = new OidcBrowser();
      const first = await loginUpToCallback(harness, platform.key, ALICE, browser);
      const second = await loginUpToCallback(harness, platform.key, ALICE, browser);
      const bindings = () => Object.keys(browser.cookiesFor(first.callbackUrl)).filter((name) => name.startsWith('gw_session_login_'));
      expect(bindings()).toHaveLength(2);
      const b = await browser.get(second.callbackUrl);
      expect(b.status, b.text).toBe(302);
      expect(bindings()).toHaveLength(1);
      const a = await browser.get(first.callbackUrl);
      expect(a.status, a.text).toBe(302);
      expect(bindings()).toHaveLength(0);
    });

    it('the binding cookie is sent only to the callback path', async () => {
      const platform = await addPlatform(harness);
      const { browser } = await loginUpToCallback(harness, platform.key, ALICE);
      expect(Object.keys(browser.cookiesFor(`${harness.baseUrl}/v1/me`)).filter((name) => name.startsWith('gw_session_login_'))).toHaveLength(0);
    });
  });

  describe('§5 optional handoff binding for platforms', () => {
    const verifier = () => randomBytes(32).toString('base64url');

    async function loginWithChallenge(platform: TestPlatform, challenge: string | null) {
      const extra: Record<string, string> = challenge ? { handoffChallenge: challenge } : {};
      const { browser, callbackUrl } = await loginUpToCallback(harness, platform.key, ALICE, new OidcBrowser(), extra);
      const callback = await browser.get(callbackUrl);
      expect(callback.status, callback.text).toBe(302);
      return codeOf(new URL(callback.location!));
    }

    it('with a challenge, the exchange needs the matching verifier; a missing or wrong one is 404 and does not burn the code', async () => {
      const platform = await addPlatform(harness);
      const secret = verifier();
      const code = await loginWithChallenge(platform, s256Challenge(secret));
      expect((await exchange(harness, platform, { code }).expect(404)).body.code).toBe('HANDOFF_CODE_INVALID');
      await exchange(harness, platform, { code, handoffVerifier: verifier() }).expect(404);
      const ok = await exchange(harness, platform, { code, handoffVerifier: secret }).expect(200);
      expect(ok.body.session.gatewayToken).toMatch(/^gwp_/);
      await exchange(harness, platform, { code, handoffVerifier: secret }).expect(404);
    });

    it('a verifier for a login started without a challenge is refused (no downgrade), and without one nothing changes', async () => {
      const platform = await addPlatform(harness);
      const injected = await loginWithChallenge(platform, null);
      await exchange(harness, platform, { code: injected, handoffVerifier: verifier() }).expect(404);
      await exchange(harness, platform, { code: injected }).expect(200);
    });

    it('a malformed challenge or verifier is 400', async () => {
      const platform = await addPlatform(harness);
      const res = await request(harness.gateway.app).get(new URL(startUrl(harness, platform.key, undefined, { handoffChallenge: 'short' })).pathname + new URL(startUrl(harness, platform.key, undefined, { handoffChallenge: 'short' })).search).set('Accept', 'application/json').expect(400);
      expect(res.body.errors).toEqual([expect.objectContaining({ pointer: '/query/handoffChallenge' })]);
      const bad = await exchange(harness, platform, { code: `handoff_${'a'.repeat(43)}`, handoffVerifier: 'too short' }).expect(400);
      expect(bad.body.errors).toEqual([expect.objectContaining({ pointer: '/body/handoffVerifier' })]);
    });
  });

  describe('resume has a time limit, and ends with its session', () => {
    async function centralLogin() {
      const platform = await addPlatform(harness, { defaultOnboardingMode: 'central' });
      await harness.database.db.raw(
        `WITH p AS (UPDATE platforms SET requirement_version = requirement_version + 1 WHERE platform_key = ? RETURNING id)
         INSERT INTO onboarding_fields (platform_id, field_key, label, field_type, required) SELECT id, 'company', 'Company', 'TEXT', true FROM p`,
        [platform.key],
      );
      const login = await browserLogin(harness, platform.key, ALICE);
      const transactionId = login.location.searchParams.get('resume')!;
      return { platform, browser: login.browser, transactionId, resumeUrl: `${harness.baseUrl}/v1/auth/resume?transaction=${transactionId}` };
    }

    it('is accepted within AUTH_RESUME_TTL_SECONDS of the callback, refused after it with a page that starts again', async () => {
      const { platform, browser, transactionId, resumeUrl } = await centralLogin();
      await harness.database.db.raw(`UPDATE auth_transactions SET consumed_at = now() - interval '59 minutes' WHERE id = ?`, [transactionId]);
      expect((await browser.get(resumeUrl)).status).toBe(302);
      await harness.database.db.raw(`UPDATE auth_transactions SET consumed_at = now() - interval '61 minutes' WHERE id = ?`, [transactionId]);
      const late = await browser.get(resumeUrl);
      expect(late.status).toBe(404);
      expect(late.text).toMatch(/expired/);
      const restart = /href="([^"]+)">Start again/.exec(late.text)?.[1]?.replaceAll('&#38;', '&');
      expect(new URL(restart!).searchParams.get('platformKey')).toBe(platform.key);
      const json = await browser.get(resumeUrl, { accept: 'application/json' });
      expect(JSON.parse(json.text).code).toBe('TRANSACTION_NOT_FOUND');
    });

    it("is refused once the login's session has been revoked", async () => {
      const { browser, transactionId, resumeUrl } = await centralLogin();
      // The person signs in again in this browser (a new session cookie), and the login's own session ends.
      const again = await loginUpToCallback(harness, (await addPlatform(harness)).key, ALICE, browser);
      expect((await browser.get(again.callbackUrl)).status).toBe(302);
      await harness.database.db.raw(`UPDATE gateway_sessions SET revoked_at = now() WHERE id = (SELECT session_id FROM auth_transactions WHERE id = ?)`, [transactionId]);
      const res = await browser.get(resumeUrl, { accept: 'application/json' });
      expect(res.status).toBe(404);
    });
  });
});
