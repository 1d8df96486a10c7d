// Issue 24: two tabs of one browser both sign in through the example BFF (on the platform kit),
// whichever finishes first. Before the kit, each start overwrote the one verifier cookie of the
// callback path, and the first tab ended on "Sign-in failed (HANDOFF_CODE_INVALID)". Headless
// Chromium against the real gateway, dev identity provider and PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startDemoBffHarness, type DemoBffHarness } from '../helpers/demoBffHarness.ts';

const CHROMIUM = '/usr/bin/chromium';
const hasChromium = existsSync(CHROMIUM);

describe.skipIf(!hasChromium)(`two tabs through the example BFF${hasChromium ? '' : ' (skipped: /usr/bin/chromium is not installed; apt-get install chromium)'}`, () => {
  let stack: DemoBffHarness;
  let browser: Browser;

  beforeAll(async () => {
    stack = await startDemoBffHarness('BFF_TWO_TABS');
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
  });
  afterAll(async () => {
    await browser?.close();
    await stack?.close();
  });

  /** A tab that starts signing in: the BFF's sign-in, up to the provider's login form. */
  async function start(tab: Page): Promise<void> {
    await tab.goto(`${stack.bff.url}/login`);
    await tab.getByLabel('Username').waitFor();
  }

  async function finish(tab: Page): Promise<void> {
    await tab.getByLabel('Username').fill('alice');
    await tab.getByLabel('Password').fill('alice-password');
    await tab.getByRole('button', { name: 'Sign in' }).click();
    // Back at the BFF: its welcome page, or (before the kit) its "Sign-in failed" page at the callback.
    await tab.waitForURL((url) => url.href.startsWith(stack.bff.url));
    await tab.waitForLoadState();
  }

  it.each([
    ['A start, B start, finish B, finish A', ['B', 'A']],
    ['A start, B start, finish A, finish B', ['A', 'B']],
  ])('%s: both tabs are signed in', async (_order, finishing) => {
    const context = await browser.newContext();
    const tabs = { A: await context.newPage(), B: await context.newPage() };
    await start(tabs.A);
    await start(tabs.B);
    for (const name of finishing as Array<'A' | 'B'>) {
      await finish(tabs[name]);
      expect(await tabs[name].content(), `tab ${name}`).not.toContain('Sign-in failed');
      expect(new URL(tabs[name].url()).pathname).toBe('/welcome');
      expect(await tabs[name].textContent('#signed-in'), `tab ${name}`).toContain('Welcome, Alice Example');
    }
    // Both tabs, reloaded, show the person signed in.
    for (const tab of Object.values(tabs)) {
      await tab.reload();
      expect(await tab.textContent('#signed-in')).toContain('Alice Example');
    }
    await context.close();
  });
});
