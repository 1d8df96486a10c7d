import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { startHarness, type Harness } from '../helpers/flowHarness.ts';
import { startDemoBff, type DemoBff } from '../../src/devstack/demoBff.ts';
import { createPlatform } from '../../src/services/registry/index.ts';
import { freePort } from '../../src/db/embedded.ts';

/**
 * A real browser (Debian's chromium, driven by playwright-core) clicking through
 * what a person does. `.ci/run` installs chromium; elsewhere these tests say why
 * they were skipped.
 */
const CHROMIUM = '/usr/bin/chromium';
const hasChromium = existsSync(CHROMIUM);

describe.skipIf(!hasChromium)(`in headless Chromium${hasChromium ? '' : ' (skipped: /usr/bin/chromium is not installed; apt-get install chromium)'}`, () => {
  let harness: Harness;
  let bff: DemoBff;
  let browser: Browser;

  beforeAll(async () => {
    harness = await startHarness();
    const bffPort = await freePort();
    const bffUrl = `http://127.0.0.1:${bffPort}`;
    const created = await createPlatform(
      harness.database.db,
      {
        platformKey: 'BROWSER_DEMO',
        displayName: 'Browser demo',
        callbackUrl: `${bffUrl}/auth/callback`,
        allowedReturnUrls: [`${bffUrl}/`],
        defaultOnboardingMode: 'none',
        centralOnboardingEnabled: true,
      },
      { type: 'cli', userId: null, sub: null, requestId: null },
    );
    bff = await startDemoBff({
      port: bffPort,
      gatewayUrl: harness.baseUrl,
      platformKey: 'BROWSER_DEMO',
      clientId: created.platform.clientId!,
      clientSecret: created.clientSecret,
      publicUrl: bffUrl,
    });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
        '--disable-component-update', '--disable-sync',
      ],
    });
  });

  afterAll(async () => {
    await browser?.close();
    await bff?.close();
    await harness?.close();
  });

  it('a person signs in through the example BFF and the dev identity provider', async () => {
    const page = await browser.newPage();
    await page.goto(bff.url);
    await page.click('#sign-in');
    await page.waitForSelector('input[name=username]');
    expect(await page.textContent('body')).toContain('Dev identity provider');
    await page.fill('input[name=username]', 'alice');
    await page.fill('input[name=password]', 'alice-password');
    await page.click('button[type=submit]:not(.secondary)');
    await page.waitForSelector('#signed-in');
    // The BFF redirected after the exchange to its welcome page, which names the person (GET /v1/me).
    expect(new URL(page.url()).pathname).toBe('/welcome');
    expect(await page.textContent('#signed-in')).toContain('Alice Example');
    expect(await page.content()).not.toMatch(/gwp_/);
    await page.reload();
    expect(await page.textContent('#signed-in')).toContain('Alice Example');
    // The gateway cookie is HttpOnly: no script on any page can read it.
    await page.goto(`${harness.baseUrl}/health/live`);
    expect(await page.evaluate('document.cookie')).not.toContain('gw_session');
    const cookies = await page.context().cookies(harness.baseUrl);
    expect(cookies.find((cookie) => cookie.name === 'gw_session')).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/' });
    await page.close();
  });

  // The person's way through /docs: the first operation on the first screen of a laptop, and
  // "Try it out" working at whichever loopback name the page was opened (the harness's
  // PUBLIC_BASE_URL is 127.0.0.1; this page is opened at localhost).
  it('/docs at 1280×800 shows the first operation on the first screen, and "Try it out" calls the origin the page came from', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    const port = new URL(harness.baseUrl).port;
    await page.goto(`http://localhost:${port}/docs`);
    const first = page.locator('.opblock-summary').first();
    await first.waitFor({ timeout: 20_000 });
    const box = (await first.boundingBox())!;
    expect(box.y + box.height).toBeLessThanOrEqual(800);
    expect(await page.textContent('.info .description')).toContain('Read the full introduction');

    const live = page.locator('.opblock', { has: page.locator('.opblock-summary-path', { hasText: /^\/health\/live$/ }) });
    await live.locator('.opblock-summary-control').click();
    await live.locator('.try-out__btn').click();
    const answered = page.waitForResponse((response) => response.url().endsWith('/health/live'));
    await live.locator('.execute').click();
    const response = await answered;
    expect(new URL(response.url()).origin).toBe(`http://localhost:${port}`);
    expect(response.status()).toBe(200);
    await context.close();
  });

  it('/docs renders the contract with the network cut off', async () => {
    const context = await browser.newContext();
    const external: string[] = [];
    // Cut off everything that is not this machine's gateway.
    await context.route('**/*', (route) => {
      const url = new URL(route.request().url());
      if (url.host === new URL(harness.baseUrl).host) return route.continue();
      external.push(url.href);
      return route.abort();
    });
    // Everything the Content-Security-Policy blocks shows up as a console error and a
    // securitypolicyviolation event: the page must render without either.
    const violations: string[] = [];
    await context.addInitScript({
      content: `document.addEventListener('securitypolicyviolation', (event) => {
        console.error('Content Security Policy violation: ' + event.effectiveDirective + ' ' + event.blockedURI);
      });`,
    });
    const page = await context.newPage();
    page.on('console', (message) => {
      if (message.type() === 'error' && /Content[- ]Security[- ]Policy/i.test(message.text())) violations.push(message.text());
    });
    const response = await page.goto(`${harness.baseUrl}/docs`);
    expect(await response?.headerValue('content-security-policy')).toMatch(/script-src 'self'/);
    await page.waitForSelector('.opblock-summary-path', { timeout: 20_000 });
    // Open one operation: its rendering (models, examples, inline styles) must not be blocked either.
    await page.locator('.opblock-summary-control').first().click({ timeout: 5_000 });
    await page.waitForSelector('.opblock-body', { timeout: 5_000 });
    const paths = await page.$$eval('.opblock-summary-path', (nodes) => nodes.map((node) => node.textContent?.trim()));
    expect(paths).toContain('/v1/auth/start');
    expect(paths).toContain('/v1/auth/exchange');
    expect(await page.textContent('.title')).toMatch(/gateway/i);
    expect(external).toEqual([]);
    expect(violations).toEqual([]);
    await context.close();
  });
});
