// Issue 27: the gateway's error pages of a platform's failed login wear the platform's face:
// its name (in the page's language), its logo (served by the gateway itself) and its colour on
// the primary action; nothing of the branding becomes markup, and the CSP stays as strict.
// Driven through the real flow (dev identity provider, real HTTP, real PostgreSQL).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { startHarness, addPlatform, startUrl, type Harness } from '../helpers/flowHarness.ts';
import { OidcBrowser, type BrowserResponse } from '../helpers/oidcBrowser.ts';
import { CLI_ACTOR, setBranding, updatePlatform, uploadLogo } from '../../src/services/registry/index.ts';

const TEAL = '#0b6e69';

function topBarOf(page: BrowserResponse): string {
  return /<header class="topbar">([\s\S]*?)<\/header>/.exec(page.text)?.[1] ?? '';
}

describe('error pages in the platform’s face (issue 27)', () => {
  let harness: Harness;

  beforeAll(async () => {
    harness = await startHarness();
  });
  afterAll(async () => {
    await harness?.close();
  });

  const brand = async (key: string, displayNames: Record<string, string> = { de: 'Hafen Logistik' }) => {
    const ctx = { db: harness.database.db, publicBaseUrl: harness.baseUrl };
    await setBranding(ctx, key, { primaryColor: TEAL, displayNames }, CLI_ACTOR);
    const logo = await sharp({ create: { width: 64, height: 64, channels: 4, background: { r: 11, g: 110, b: 105, alpha: 1 } } }).png().toBuffer();
    const branding = await uploadLogo(ctx, key, logo, 'image/png', CLI_ACTOR);
    return new URL(branding.logoUrl!).pathname;
  };

  it('a refused start shows the platform’s name in the page’s language, its logo and its colour; the CSP is unchanged', async () => {
    const platform = await addPlatform(harness);
    const logoPath = await brand(platform.key);
    const page = await new OidcBrowser().get(startUrl(harness, platform.key, 'https://elsewhere.example.test/'), { 'accept-language': 'de-AT,de;q=0.9,en;q=0.5' });
    expect(page.status).toBe(403);
    expect(topBarOf(page)).toBe(`<span class="brand"><img class="brand-logo" src="${logoPath}" alt="">Hafen Logistik</span>`);
    expect(page.text).toContain(`:root{--accent:${TEAL}}`);
    // The way back is worded in German and names the platform as the frame does.
    expect(page.text).toContain('Zurück zu Hafen Logistik</a>');
    // English (or no preference): the default display name.
    const english = await new OidcBrowser().get(startUrl(harness, platform.key, 'https://elsewhere.example.test/'), { 'accept-language': 'en' });
    expect(topBarOf(english)).toContain(`>Platform ${platform.key}</span>`);

    // The logo is the gateway's own (img-src 'self'), and nothing else may load or run.
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("img-src 'self'");
    expect(csp).not.toMatch(/script-src/);
    const logo = await fetch(new URL(logoPath, harness.baseUrl));
    expect(logo.status).toBe(200);
    expect(logo.headers.get('content-type')).toBe('image/png');
  });

  it('a callback in another browser (the platform read by the consume statement) and a spent callback (read by the way back) are branded too', async () => {
    const platform = await addPlatform(harness);
    const logoPath = await brand(platform.key);
    const browser = new OidcBrowser();
    const toLogin = await browser.followRedirects(await browser.get(startUrl(harness, platform.key)), { maxHops: 10 });
    const afterLogin = await browser.loginAtDevIdp(toLogin.response, 'alice', 'alice-password');
    const { stoppedAt } = await browser.followRedirects(afterLogin, { stopWhen: (url) => url.startsWith(`${harness.baseUrl}/v1/auth/callback`), maxHops: 10 });

    const elsewhere = await new OidcBrowser().get(stoppedAt!, { 'accept-language': 'de' });
    expect(elsewhere.status).toBe(403);
    expect(elsewhere.text).toContain('LOGIN_BROWSER_MISMATCH');
    expect(topBarOf(elsewhere)).toContain(`src="${logoPath}"`);
    expect(topBarOf(elsewhere)).toContain('Hafen Logistik');
    expect(elsewhere.text).toContain(`--accent:${TEAL}`);

    const spent = await browser.get(stoppedAt!, { 'accept-language': 'de' });
    expect(spent.status).toBe(404);
    expect(topBarOf(spent)).toContain('Hafen Logistik');
    expect(spent.text).toContain(`--accent:${TEAL}`);
  });

  it('an unbranded platform’s page keeps the gateway’s look', async () => {
    const platform = await addPlatform(harness);
    const page = await new OidcBrowser().get(startUrl(harness, platform.key, 'https://elsewhere.example.test/'));
    expect(topBarOf(page)).toBe(`<span class="brand">Platform ${platform.key}</span>`);
    expect(page.text).not.toContain('--accent:#0b6e69');
    expect(page.text).not.toContain('<img');
  });

  it('a name with markup is text, never markup', async () => {
    const platform = await addPlatform(harness);
    await brand(platform.key, { de: '<img src=x onerror=alert(1)></style><script>alert(2)</script>' });
    const page = await new OidcBrowser().get(startUrl(harness, platform.key, 'https://elsewhere.example.test/'), { 'accept-language': 'de' });
    expect(page.text).not.toContain('<script>');
    expect(page.text).not.toContain('<img src=x');
    expect(topBarOf(page)).toContain('&#60;img src=x onerror=alert(1)&#62;&#60;/style&#62;&#60;script&#62;');
  });

  it('a platform’s page is in its default language when Accept-Language names nothing spoken here (and follows a language that is)', async () => {
    const platform = await addPlatform(harness);
    await brand(platform.key);
    await updatePlatform(harness.database.db, platform.key, { defaultLanguage: 'de-AT' }, CLI_ACTOR);
    const refusedStart = () => startUrl(harness, platform.key, 'https://elsewhere.example.test/');
    const french = await new OidcBrowser().get(refusedStart(), { 'accept-language': 'fr-FR, it;q=0.5' });
    expect(french.status).toBe(403);
    expect(french.headers.get('content-language')).toBe('de');
    expect(french.text).toContain('<html lang="de"');
    expect(topBarOf(french)).toContain('Hafen Logistik');
    const english = await new OidcBrowser().get(refusedStart(), { 'accept-language': 'fr, en;q=0.5' });
    expect(english.headers.get('content-language')).toBe('en');
    // Another platform without a default language stays English for the same browser.
    const plain = await addPlatform(harness);
    const plainPage = await new OidcBrowser().get(startUrl(harness, plain.key, 'https://elsewhere.example.test/'), { 'accept-language': 'fr-FR' });
    expect(plainPage.headers.get('content-language')).toBe('en');
  });
});
