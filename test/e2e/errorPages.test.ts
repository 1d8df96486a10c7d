// Error pages that lead somewhere (issue 13 §4, issue 14 §6): a person whose login failed
// gets a page naming what happened and a working way forward, driven through the real flow.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, addPlatform, startUrl, PLATFORM_ROOT, type Harness } from '../helpers/flowHarness.ts';
import { OidcBrowser, type BrowserResponse } from '../helpers/oidcBrowser.ts';
import { randomToken, s256Challenge } from '../../src/security/crypto.ts';

/** The page's single call to action: its label and where it leads. */
function nextStepOf(page: BrowserResponse): { label: string; href: URL } | undefined {
  const link = /<a class="button" href="([^"]+)">([^<]+)<\/a>/.exec(page.text);
  return link ? { label: link[2]!, href: new URL(link[1]!.replaceAll('&#38;', '&')) } : undefined;
}

/** The page's one button is "Start again": a fresh start of this gateway for the platform and its returnTo. */
function startAgainOf(page: BrowserResponse, baseUrl: string, platformKey: string): URL {
  const nextStep = nextStepOf(page);
  expect(nextStep?.label).toBe('Start again');
  expect(nextStep!.href.origin + nextStep!.href.pathname).toBe(`${baseUrl}/v1/auth/start`);
  expect(nextStep!.href.searchParams.get('platformKey')).toBe(platformKey);
  expect(nextStep!.href.searchParams.get('returnTo')).toBe(`${PLATFORM_ROOT}home`);
  return nextStep!.href;
}

describe('error pages', () => {
  let harness: Harness;

  beforeAll(async () => {
    harness = await startHarness();
  });
  afterAll(async () => {
    await harness?.close();
  });

  it('a start refused for a known platform leads back to that platform', async () => {
    const platform = await addPlatform(harness);
    const page = await new OidcBrowser().get(startUrl(harness, platform.key, 'https://elsewhere.example.test/'));
    expect(page.status).toBe(403);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    expect(nextStepOf(page)).toEqual({ label: `Back to Platform ${platform.key}`, href: new URL(PLATFORM_ROOT) });
  });

  it('a start for an unknown platform explains, with no link to follow', async () => {
    const page = await new OidcBrowser().get(startUrl(harness, 'NO_SUCH_PLATFORM'));
    expect(page.status).toBe(404);
    expect(nextStepOf(page)).toBeUndefined();
    expect(page.text).toMatch(/go back to the application you came from/);
  });

  it('a callback whose login is spent: 404 with a "Start again" for the same platform and returnTo', async () => {
    const platform = await addPlatform(harness);
    const browser = new OidcBrowser();
    const toLogin = await browser.followRedirects(await browser.get(startUrl(harness, platform.key)), { maxHops: 10 });
    const afterLogin = await browser.loginAtDevIdp(toLogin.response, 'alice', 'alice-password');
    const { stoppedAt } = await browser.followRedirects(afterLogin, { stopWhen: (url) => url.startsWith(`${harness.baseUrl}/v1/auth/callback`), maxHops: 10 });
    expect((await browser.get(stoppedAt!)).status).toBe(302);

    // The same callback again (the back button, a second tab): the login is spent.
    const page = await browser.get(stoppedAt!);
    expect(page.status).toBe(404);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    expect((await browser.get(startAgainOf(page, harness.baseUrl, platform.key).href)).status).toBe(302);

    // A state the gateway never issued (or whose login was purged) names no platform: the page says where to go.
    const unknown = await new OidcBrowser().get(`${harness.baseUrl}/v1/auth/callback?state=${'x'.repeat(43)}&code=abc`);
    expect(unknown.status).toBe(404);
    expect(nextStepOf(unknown)).toBeUndefined();
    expect(unknown.text).toMatch(/go back to the application you came from/);
  });

  it('the provider down mid-callback: 503 with a "Start again" that begins a fresh login', async () => {
    // Its own harness: this test stops the provider.
    const local = await startHarness();
    try {
      const platform = await addPlatform(local);
      const browser = new OidcBrowser();
      const start = await browser.get(startUrl(local, platform.key));
      const atCallback = (url: string) => url.startsWith(`${local.baseUrl}/v1/auth/callback`);
      const toLogin = await browser.followRedirects(start, { maxHops: 10 });
      const afterLogin = await browser.loginAtDevIdp(toLogin.response, 'alice', 'alice-password');
      const { stoppedAt } = await browser.followRedirects(afterLogin, { stopWhen: atCallback, maxHops: 10 });
      expect(stoppedAt).toBeDefined();

      await local.idp.close(); // the code exchange cannot reach the provider now
      const page = await browser.get(stoppedAt!);
      expect(page.status).toBe(503);
      expect(page.headers.get('content-type')).toMatch(/text\/html/);
      const startAgain = startAgainOf(page, local.baseUrl, platform.key);

      // Retrying the spent callback cannot work; "Start again" does: a new login at the provider.
      expect((await browser.get(stoppedAt!)).status).toBe(404);
      const again = await browser.get(startAgain.href);
      expect(again.status).toBe(302);
      expect(again.headers.get('location')).toMatch(new RegExp(`^${local.idp.issuer}`));
    } finally {
      await local.close().catch(() => {});
    }
  });

  /** A login started in `browser` and signed in at the provider, stopped before its callback; the login row is gone (expired and purged). */
  async function purgedLogin(browser: OidcBrowser, platformKey: string, extra: Record<string, string> = {}, returnTo = `${PLATFORM_ROOT}home`): Promise<string> {
    const toLogin = await browser.followRedirects(await browser.get(startUrl(harness, platformKey, returnTo, extra)), { maxHops: 10 });
    const afterLogin = await browser.loginAtDevIdp(toLogin.response, 'alice', 'alice-password');
    const { stoppedAt } = await browser.followRedirects(afterLogin, { stopWhen: (url) => url.startsWith(`${harness.baseUrl}/v1/auth/callback`), maxHops: 10 });
    const state = new URL(stoppedAt!).searchParams.get('state');
    await harness.database.db.raw('DELETE FROM auth_transactions t USING platforms p WHERE p.id = t.platform_id AND p.platform_key = ?', [platformKey]);
    expect(state).toBeTruthy();
    return stoppedAt!;
  }

  it('an expired login whose row is purged: the browser binding cookie still leads to "Start again"', async () => {
    const platform = await addPlatform(harness);
    const browser = new OidcBrowser();
    const page = await browser.get(await purgedLogin(browser, platform.key));
    expect(page.status).toBe(404);
    expect((await browser.get(startAgainOf(page, harness.baseUrl, platform.key).href)).status).toBe(302);
  });

  it('a hand-typed callback address in a browser with a login in flight offers "Start again", in words', async () => {
    const platform = await addPlatform(harness);
    const browser = new OidcBrowser();
    await browser.get(startUrl(harness, platform.key));
    const page = await browser.get(`${harness.baseUrl}/v1/auth/callback`);
    expect(page.status).toBe(400);
    expect(nextStepOf(page)?.href.searchParams.get('platformKey')).toBe(platform.key);
    expect(page.text).not.toMatch(/\/query\/state/);
  });

  it('a platform that requires a handoff challenge: "Back to <platform>", at its re-checked returnTo', async () => {
    const platform = await addPlatform(harness, { handoffChallengeRequired: true });
    const extra = { handoffChallenge: s256Challenge(randomToken()) };
    // The row still there (expired, spent): read by its state.
    const browser = new OidcBrowser();
    const toLogin = await browser.followRedirects(await browser.get(startUrl(harness, platform.key, `${PLATFORM_ROOT}home`, extra)), { maxHops: 10 });
    await harness.database.db.raw(`UPDATE auth_transactions SET expires_at = now() - interval '1 second' WHERE return_to = ? AND consumed_at IS NULL AND handoff_challenge = ?`, [`${PLATFORM_ROOT}home`, extra.handoffChallenge]);
    const afterLogin = await browser.loginAtDevIdp(toLogin.response, 'alice', 'alice-password');
    const { stoppedAt } = await browser.followRedirects(afterLogin, { stopWhen: (url) => url.startsWith(`${harness.baseUrl}/v1/auth/callback`), maxHops: 10 });
    const expired = await browser.get(stoppedAt!);
    expect(expired.status).toBe(404);
    expect(nextStepOf(expired)).toEqual({ label: `Back to Platform ${platform.key}`, href: new URL(`${PLATFORM_ROOT}home`) });
    // A callback link opened in another browser (refused): the same way back.
    const refused = await new OidcBrowser().get(await (async () => {
      const starter = new OidcBrowser();
      const login = await starter.followRedirects(await starter.get(startUrl(harness, platform.key, `${PLATFORM_ROOT}home`, extra)), { maxHops: 10 });
      const signedIn = await starter.loginAtDevIdp(login.response, 'alice', 'alice-password');
      return (await starter.followRedirects(signedIn, { stopWhen: (url) => url.startsWith(`${harness.baseUrl}/v1/auth/callback`), maxHops: 10 })).stoppedAt!;
    })());
    expect(refused.status).toBe(403);
    expect(nextStepOf(refused)).toEqual({ label: `Back to Platform ${platform.key}`, href: new URL(`${PLATFORM_ROOT}home`) });
    // Purged: the sealed cookie says the same.
    const other = new OidcBrowser();
    const purged = await other.get(await purgedLogin(other, platform.key, extra));
    expect(nextStepOf(purged)).toEqual({ label: `Back to Platform ${platform.key}`, href: new URL(`${PLATFORM_ROOT}home`) });
  });

  it('a binding cookie is never trusted: moved to another login, or its returnTo no longer allowed', async () => {
    const platform = await addPlatform(harness, { allowedReturnUrls: [`${PLATFORM_ROOT}home`, 'https://other.example.test/'] });
    const browser = new OidcBrowser();
    await browser.get(startUrl(harness, platform.key, 'https://other.example.test/deep'));
    const callback = `${harness.baseUrl}/v1/auth/callback`;
    const [[name, value]] = Object.entries(browser.cookiesFor(callback)) as [[string, string]];
    // The same sealed value under another login's name does not open: no link at all.
    const moved = name.replace(/_login_.*$/, `_login_${crypto.randomUUID()}`);
    const forged = await fetch(callback, { headers: { accept: 'text/html', cookie: `${moved}=${value}` } });
    expect(nextStepOf({ text: await forged.text() } as BrowserResponse)).toBeUndefined();
    // The registry changed since: the returnTo is re-checked, and the way back is the platform's first allowed URL.
    await harness.database.db.raw('UPDATE platforms SET allowed_return_urls = ? WHERE platform_key = ?', [[`${PLATFORM_ROOT}home`], platform.key]);
    const page = await fetch(callback, { headers: { accept: 'text/html', cookie: `${name}=${value}` } });
    expect(nextStepOf({ text: await page.text() } as BrowserResponse)).toEqual({ label: `Back to Platform ${platform.key}`, href: new URL(`${PLATFORM_ROOT}home`) });
  });

  it('a long returnTo is not carried in the binding cookie (it goes with every gateway request under __Host-), and the way back still leads to the platform', async () => {
    const platform = await addPlatform(harness);
    const browser = new OidcBrowser();
    const longReturnTo = `${PLATFORM_ROOT}home?q=${'a'.repeat(1900)}`;
    const start = await fetch(startUrl(harness, platform.key, longReturnTo), { redirect: 'manual' });
    expect(start.status).toBe(302);
    const binding = start.headers.getSetCookie().find((cookie) => /_login_/.test(cookie))!;
    // A short returnTo's binding is about 300 characters; this one must not grow with the returnTo.
    expect(binding.split(';')[0]!.length).toBeLessThan(700);
    // Purged login: the way back is the platform's first allowed URL.
    const page = await browser.get(await purgedLogin(browser, platform.key, {}, longReturnTo));
    expect(page.status).toBe(404);
    expect(nextStepOf(page)).toEqual({ label: `Back to Platform ${platform.key}`, href: new URL(PLATFORM_ROOT) });
  });

  it('a typo\'d address opened in a browser gets a page in words; a program still gets problem+json', async () => {
    const page = await new OidcBrowser().get(`${harness.baseUrl}/v1/auth/strat?platformKey=X`);
    expect(page.status).toBe(404);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    expect(page.text).toMatch(/<h1>There is no page at this address<\/h1>/);
    const json = await fetch(`${harness.baseUrl}/v1/auth/strat`, { headers: { accept: 'application/json' } });
    expect(json.headers.get('content-type')).toMatch(/application\/problem\+json/);
  });

  it('a start link missing its platform says so in words, never in validator text', async () => {
    const page = await new OidcBrowser().get(`${harness.baseUrl}/v1/auth/start?returnTo=${encodeURIComponent(PLATFORM_ROOT)}`);
    expect(page.status).toBe(400);
    expect(page.text).toMatch(/<h1>This link is incomplete<\/h1>/);
    expect(page.text).not.toMatch(/must have required property|\/query\//);
    expect(page.text).toMatch(/go back to the application you came from/);
  });

  it('the pages wear the account center\'s look: its colours and font stack, inline, nothing loaded', async () => {
    const page = await new OidcBrowser().get(startUrl(harness, 'NO_SUCH_PLATFORM'));
    expect(page.text).toMatch(/--accent:#2457d6/);
    expect(page.text).toMatch(/--canvas:#f5f6f9/);
    expect(page.text).not.toMatch(/<link|<script|src=/);
    expect(page.headers.get('content-security-policy')).toMatch(/default-src 'none'/);
  });

  it('the dev provider, Back after signing in: its page says so in words and leads back to the application', async () => {
    const local = await startHarness({}, { homeUrl: PLATFORM_ROOT });
    try {
      const platform = await addPlatform(local);
      const browser = new OidcBrowser();
      const toLogin = await browser.followRedirects(await browser.get(startUrl(local, platform.key)), { maxHops: 10 });
      const loginPage = toLogin.response.url;
      const afterLogin = await browser.loginAtDevIdp(toLogin.response, 'alice', 'alice-password');
      const resume = afterLogin.location!;
      await browser.followRedirects(afterLogin, { stopWhen: (url) => url.startsWith(`${local.baseUrl}/v1/auth/callback`), maxHops: 10 });
      // Back to the login page, and to the provider's resume step (its own error page, renderError).
      for (const url of [loginPage, resume]) {
        const page = await browser.get(url);
        expect(page.status).toBeGreaterThanOrEqual(400);
        expect(page.text).toMatch(/<h1>This sign-in page has expired<\/h1>/);
        expect(page.text).not.toMatch(/Something went wrong/);
        expect(page.text).toContain(`<a class="button" href="${PLATFORM_ROOT}">Back to the application</a>`);
      }
    } finally {
      await local.close().catch(() => {});
    }
  });
});
