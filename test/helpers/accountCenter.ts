// The account center in a real browser: the whole stack on this machine (PostgreSQL, the dev
// identity provider, the gateway on a real port, the account center's own server serving its
// build), and headless Debian Chromium driven by playwright-core, finding inputs by their labels.
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { AxeBuilder } from '@axe-core/playwright';
import { startHarness, type Harness } from './flowHarness.ts';
import { freePort } from '../../src/db/embedded.ts';
import { createPlatform, CLI_ACTOR } from '../../src/services/registry/index.ts';
import { createDevIdpAccounts } from '../../src/services/identityProvider/devIdp.ts';
import { createLogger } from '../../src/logger.ts';
import { startAccountCenterServer, type AccountCenterServer } from '../../account-center/server/server.ts';
import { ACCOUNT_CENTER_DIST } from '../../account-center/server/build.ts';

export const CHROMIUM = '/usr/bin/chromium';
export const hasChromium = existsSync(CHROMIUM);
/** Where screenshots go for people to look at (git-ignored). */
export const SCREENSHOTS = fileURLToPath(new URL('../../test-output/screenshots/', import.meta.url));
export const ACCOUNT_CENTER_PLATFORM = 'ACCOUNT_CENTER';
export const USERS = {
  alice: { username: 'alice', password: 'alice-password' },
  admin: { username: 'admin', password: 'admin-password' },
} as const;

export interface AccountCenterStack {
  harness: Harness;
  accountCenter: AccountCenterServer;
  /** http://127.0.0.1:<port> */
  url: string;
  browser: Browser;
  /** A fresh browser context (its own cookies) with one page. */
  newPage(options?: { width?: number; height?: number; locale?: string }): Promise<{ context: BrowserContext; page: Page }>;
  close(): Promise<void>;
}

/**
 * The gateway (CORS for the account center's origin, the dev provider's account adapter),
 * the account center registered as its platform and served by its own server, and Chromium.
 * Gateway and account center are both on 127.0.0.1, so the gateway's cookie is same-site
 * for the account center's calls, as in a real deployment on one registrable domain.
 */
export async function startAccountCenterStack(): Promise<AccountCenterStack> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const harness = await startHarness(
    { ACCOUNT_CENTER_URL: url, CORS_ORIGINS: url, AUTH_PLATFORM_KEY: ACCOUNT_CENTER_PLATFORM },
    {},
    { idpAccounts: (idp) => createDevIdpAccounts(idp.accounts, createLogger('silent')) },
  );
  const created = await createPlatform(
    harness.database.db,
    { platformKey: ACCOUNT_CENTER_PLATFORM, displayName: 'Account center', callbackUrl: `${url}/auth/callback`, allowedReturnUrls: [`${url}/`], defaultOnboardingMode: 'none' },
    CLI_ACTOR,
  );
  const accountCenter = await startAccountCenterServer({
    port,
    host: '127.0.0.1',
    publicUrl: url,
    authBackendUrl: `${harness.baseUrl}/v1`,
    platformKey: ACCOUNT_CENTER_PLATFORM,
    clientId: created.platform.clientId!,
    clientSecret: created.clientSecret,
    distDir: ACCOUNT_CENTER_DIST,
  });
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  return {
    harness,
    accountCenter,
    url,
    browser,
    async newPage({ width = 1280, height = 900, locale }: { width?: number; height?: number; locale?: string } = {}) {
      // `locale` is the browser's language: navigator.languages and Accept-Language.
      const context = await browser.newContext({ viewport: { width, height }, ...(locale ? { locale } : {}) });
      const page = await context.newPage();
      return { context, page };
    },
    async close() {
      await browser.close();
      await accountCenter.close();
      await harness.close();
    },
  };
}

/**
 * Opens an account center page that needs a session: the browser goes through the account
 * center's sign-in to the dev provider's login page, signs in there (by the inputs' labels),
 * and comes back to the page.
 */
export async function signIn(stack: AccountCenterStack, page: Page, pathname: string, user: { username: string; password: string }): Promise<void> {
  await page.goto(`${stack.url}${pathname}`);
  await page.getByLabel('Username').fill(user.username);
  await page.getByLabel('Password').fill(user.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((current) => current.href.startsWith(`${stack.url}${pathname.split('?')[0]}`));
}

/** No serious or critical axe-core violation on the page as it is now. */
export async function expectAccessible(page: Page, context: string): Promise<void> {
  const results = await new AxeBuilder({ page }).analyze();
  const serious = results.violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
  expect(serious.map((violation) => `${violation.id}: ${violation.help} (${violation.nodes.map((node) => node.target.join(' ')).join(', ')})`), context).toEqual([]);
}

/** Screenshots of the page at desktop (1280) and phone (390) width, for people to look at. */
export async function screenshots(page: Page, name: string): Promise<void> {
  await mkdir(SCREENSHOTS, { recursive: true });
  const original = page.viewportSize();
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 900 });
    await page.screenshot({ path: path.join(SCREENSHOTS, `${name}-${width}.png`), fullPage: true });
  }
  if (original) await page.setViewportSize(original);
}

/**
 * Console errors and uncaught exceptions of a page (a CSP violation shows up here). The
 * browser's note about a 401 is left out: asking /v1/me is how the app learns there is no session.
 */
export function collectPageErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' && !/status of 401/.test(message.text())) errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(error.message));
  return errors;
}
