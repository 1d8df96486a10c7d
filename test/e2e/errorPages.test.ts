// Error pages that lead somewhere (issue 13 §4, issue 14 §6): a person whose login failed
// gets a page naming what happened and a working way forward, driven through the real flow.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, addPlatform, startUrl, PLATFORM_ROOT, type Harness } from '../helpers/flowHarness.ts';
import { OidcBrowser, type BrowserResponse } from '../helpers/oidcBrowser.ts';

/** The page's single call to action: its label and where it leads. */
function nextStepOf(page: BrowserResponse): { label: string; href: URL } | undefined {
  const link = /<a class="button" href="([^"]+)">([^<]+)<\/a>/.exec(page.text);
  return link ? { label: link[2]!, href: new URL(link[1]!.replaceAll('&#38;', '&')) } : undefined;
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
    const nextStep = nextStepOf(page);
    expect(nextStep?.label).toBe('Start again');
    expect(nextStep!.href.pathname).toBe('/v1/auth/start');
    expect(nextStep!.href.searchParams.get('platformKey')).toBe(platform.key);
    expect(nextStep!.href.searchParams.get('returnTo')).toBe(`${PLATFORM_ROOT}home`);
    expect((await browser.get(nextStep!.href.href)).status).toBe(302);

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
      const nextStep = nextStepOf(page);
      expect(nextStep?.label).toBe('Start again');
      expect(nextStep!.href.pathname).toBe('/v1/auth/start');
      expect(nextStep!.href.searchParams.get('platformKey')).toBe(platform.key);
      expect(nextStep!.href.searchParams.get('returnTo')).toBe(`${PLATFORM_ROOT}home`);

      // Retrying the spent callback cannot work; "Start again" does: a new login at the provider.
      expect((await browser.get(stoppedAt!)).status).toBe(404);
      const again = await browser.get(nextStep!.href.href);
      expect(again.status).toBe(302);
      expect(again.headers.get('location')).toMatch(new RegExp(`^${local.idp.issuer}`));
    } finally {
      await local.close().catch(() => {});
    }
  });
});
