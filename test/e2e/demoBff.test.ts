// The example BFF binds each login to itself with a handoff challenge (issue 8 §5):
// a handoff code from someone else's login, injected into its callback, is refused.
// As the model platforms copy (issue 14 §7): it shows who signed in (GET /v1/me with its
// platform credential), honours returnTo, and redirects after the exchange so a reload works.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Harness } from '../helpers/flowHarness.ts';
import { startDemoBffHarness, type DemoBffHarness } from '../helpers/demoBffHarness.ts';
import { OidcBrowser } from '../helpers/oidcBrowser.ts';
import type { DemoBff } from '../../src/devstack/demoBff.ts';
import { updatePlatform, CLI_ACTOR } from '../../src/services/registry/index.ts';

const ALICE = { username: 'alice', password: 'alice-password' };

describe('the example BFF with a handoff challenge', () => {
  let harness: Harness;
  let bff: DemoBff;
  let stack: DemoBffHarness;

  beforeAll(async () => {
    stack = await startDemoBffHarness('BFF_DEMO');
    ({ harness, bff } = stack);
  });
  afterAll(async () => {
    await stack?.close();
  });

  /** Sign in through the BFF's /login, stopping before the browser reaches the BFF's callback. */
  async function upToBffCallback(browser: OidcBrowser, loginPath = '/login') {
    const login = await browser.get(`${bff.url}${loginPath}`);
    expect(login.status).toBe(302);
    const start = new URL(login.location!);
    expect(start.searchParams.get('handoffChallenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const toIdp = await browser.followRedirects(login, { maxHops: 10 });
    const afterLogin = await browser.loginAtDevIdp(toIdp.response, ALICE.username, ALICE.password);
    const followed = await browser.followRedirects(afterLogin, { stopWhen: (url) => url.startsWith(`${bff.url}/auth/callback`), maxHops: 10 });
    return followed.stoppedAt!;
  }

  it('signs a person in, redirects to the page, and shows who signed in, also after a reload', async () => {
    const browser = new OidcBrowser();
    const callback = await browser.get(await upToBffCallback(browser));
    // The exchange is answered with a redirect: the used code leaves the address bar.
    expect(callback.status, callback.text).toBe(303);
    expect(callback.location).toBe(`${bff.url}/welcome`);
    for (let load = 0; load < 2; load += 1) {
      const welcome = await browser.get(callback.location!);
      expect(welcome.status).toBe(200);
      expect(welcome.text).toContain('id="signed-in"');
      // Name and e-mail from GET /v1/me, not raw JSON; the platform credential stays on the server.
      expect(welcome.text).toContain('Welcome, Alice Example');
      expect(welcome.text).toContain('alice@example.test');
      expect(welcome.text).not.toContain('Sign-in failed');
      expect(welcome.text).not.toMatch(/gwp_|"session"/);
      expect(welcome.text).toContain('Sign out');
      // The exchange's onboarding status and permissions, in words (the platform onboards nobody: complete; Alice holds none).
      expect(welcome.text).toContain('id="onboarding">Onboarding: complete<');
      expect(welcome.text).toContain('id="permissions">Permissions: none<');
      // The account center's look: its top bar and card, styles inline, nothing loaded from elsewhere.
      expect(welcome.text).toContain('<header class="topbar"><span class="brand">Demo platform</span></header>');
      expect(welcome.text).toContain('<div class="card">');
      expect(welcome.text).toContain('--canvas:#f5f6f9');
      expect(welcome.text).not.toMatch(/<link|src="http/);
    }
  });

  it('honours returnTo: a page that needs a session sends the person to sign in and back to it', async () => {
    const browser = new OidcBrowser();
    const account = await browser.get(`${bff.url}/account`);
    expect(account.status).toBe(303);
    expect(account.location).toBe(`${bff.url}/login?returnTo=%2Faccount`);
    const login = await browser.get(account.location!);
    expect(new URL(login.location!).searchParams.get('returnTo')).toBe(`${bff.url}/account`);
    const callback = await browser.get(await upToBffCallback(browser, '/login?returnTo=%2Faccount'));
    expect(callback.status, callback.text).toBe(303);
    expect(callback.location).toBe(`${bff.url}/account`);
    const page = await browser.get(callback.location!);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Alice Example');
    expect((await browser.get(callback.location!)).text).toContain('alice@example.test'); // a reload
  });

  it('takes only a path of its own as returnTo', async () => {
    const browser = new OidcBrowser();
    for (const returnTo of ['//evil.example/x', 'https://evil.example/', '/\\evil.example', 'javascript:alert(1)', '/a b']) {
      const login = await browser.get(`${bff.url}/login?returnTo=${encodeURIComponent(returnTo)}`);
      expect(login.status).toBe(302);
      expect(new URL(login.location!).searchParams.get('returnTo'), returnTo).toBe(`${bff.url}/welcome`);
    }
    const kept = await browser.get(`${bff.url}/login?returnTo=${encodeURIComponent('/reports?id=7')}`);
    expect(new URL(kept.location!).searchParams.get('returnTo')).toBe(`${bff.url}/reports?id=7`);
  });

  it('signs out in one step (issue 3): its own origin-checked POST, a sign-out token, the gateway without a confirmation page', async () => {
    const browser = new OidcBrowser();
    const callback = await browser.get(await upToBffCallback(browser));
    const welcome = await browser.get(callback.location!);
    expect(welcome.text).toMatch(/<form method="post" action="\/logout"><button type="submit"[^>]*>Sign out of /);
    const sessionId = /<code class="gateway-session">([^<]+)<\/code>/.exec(welcome.text)![1]!;
    const ended = async () => (await harness.database.db.raw(`SELECT ended_at FROM gateway_sessions WHERE id = ?`, [sessionId])).rows[0].ended_at !== null;

    // Another site's form, and a GET, sign nobody out.
    expect((await browser.postForm(`${bff.url}/logout`, {}, { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    expect((await browser.get(`${bff.url}/logout`)).status).toBe(405);
    expect(await ended()).toBe(false);

    // Its own page's button (a browser under no-referrer sends Origin: null and Sec-Fetch-Site).
    const sessionsBefore = bff.sessionCount();
    const posted = await browser.postForm(`${bff.url}/logout`, {}, { origin: 'null', 'sec-fetch-site': 'same-origin' });
    expect(posted.status).toBe(303);
    const toGateway = new URL(posted.location!);
    expect(`${toGateway.origin}${toGateway.pathname}`).toBe(`${harness.baseUrl}/v1/auth/logout`);
    expect(toGateway.searchParams.get('signOutToken')).toEqual(expect.any(String));
    expect(bff.sessionCount()).toBe(sessionsBefore - 1);
    // The gateway signs out at once (no page of its own) and sends the browser to the provider.
    const atGateway = await browser.get(posted.location!);
    expect(atGateway.status, atGateway.text.slice(0, 300)).toBe(302);
    expect(new URL(atGateway.location!).origin).toBe(new URL(harness.idp.issuer).origin);
    expect(await ended()).toBe(true);
    const providerPage = await browser.followRedirects(atGateway, { maxHops: 5 });
    const back = await browser.confirmProviderSignOut(providerPage.response);
    const landed = await browser.followRedirects(back, { maxHops: 5 });
    expect(landed.response.url).toBe(`${bff.url}/welcome`);
    // Said once, under a heading that says what happened; then simply not signed in.
    expect(landed.response.text).toContain('<h1>Signed out</h1>');
    expect(landed.response.text).toContain('You were signed out of Demo platform.');
    expect(landed.response.text).not.toContain('<h1>Welcome');
    expect((await browser.get(`${bff.url}/welcome`)).text).toContain('Not signed in');
  });

  it("refuses a code from someone else's login injected into its callback, before any exchange", async () => {
    const attacker = new OidcBrowser();
    const injected = await upToBffCallback(attacker);
    const victim = new OidcBrowser();
    await victim.get(`${bff.url}/login`); // the victim has a login of its own in flight, with its own verifier
    // The injected link carries the attacker's correlation value (platformState): the victim's
    // browser holds no login of that value, so the kit does not even send the code to the gateway
    // (before the kit, the victim's verifier was sent with it, and the gateway refused the pair).
    const res = await victim.get(injected);
    expect(res.status).toBe(400);
    expect(res.text).toContain('Sign-in failed');
    expect(res.text).toContain('id="no-verifier"');
    expect(res.text).toMatch(/<a class="button" href="\/login">Start again<\/a>/);
  });

  it('never exchanges a code for which it holds no verifier: the person is told and offered to sign in again', async () => {
    // The worst case: an operator turned the platform's requirement off, so the attacker can start
    // a login without a challenge at the gateway himself and send its callback link to a victim.
    await updatePlatform(harness.database.db, 'BFF_DEMO', { handoffChallengeRequired: false }, CLI_ACTOR);
    try {
      const attacker = new OidcBrowser();
      const start = new URL('/v1/auth/start', harness.baseUrl);
      start.searchParams.set('platformKey', 'BFF_DEMO');
      start.searchParams.set('returnTo', `${bff.url}/welcome`);
      const toIdp = await attacker.followRedirects(await attacker.get(start.href), { maxHops: 10 });
      const afterLogin = await attacker.loginAtDevIdp(toIdp.response, ALICE.username, ALICE.password);
      const injected = (await attacker.followRedirects(afterLogin, { stopWhen: (url) => url.startsWith(`${bff.url}/auth/callback`), maxHops: 10 })).stoppedAt!;

      const victim = new OidcBrowser();
      const res = await victim.get(injected);
      expect(res.status).toBe(400);
      expect(res.text).toContain('id="no-verifier"');
      expect(res.text).toMatch(/<a class="button" href="\/login">Start again<\/a>/);
      expect(res.headers.get('set-cookie')).toBeNull();
      expect((await victim.get(`${bff.url}/welcome`)).text).not.toContain('id="signed-in"');
      // The code was never sent to the gateway: it is still unspent there.
      const outstanding = await harness.database.db.raw(`SELECT count(*)::int AS n FROM handoff_codes h JOIN platforms p ON p.id = h.platform_id WHERE p.platform_key = 'BFF_DEMO' AND h.consumed_at IS NULL`);
      expect(outstanding.rows[0].n).toBeGreaterThanOrEqual(1);
    } finally {
      await updatePlatform(harness.database.db, 'BFF_DEMO', { handoffChallengeRequired: true }, CLI_ACTOR);
    }
  });
});
