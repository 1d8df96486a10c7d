// One test file's side of the provider suite: the gateway (the real app on a real PostgreSQL
// database, test/helpers) listening on the port LemonLDAP::NG was configured for, its OIDC client
// pointed at LLNG's portal; the example BFF (platform kit) registered as a platform; the
// back-channel worker that tells platforms; and Debian's Chromium, driven by playwright-core.
import http from 'node:http';
import { inject } from 'vitest';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { basicAuth } from '../helpers/oidcBrowser.ts';
import { freePort } from '../../src/db/embedded.ts';
import { createPlatform, CLI_ACTOR } from '../../src/services/registry/index.ts';
import { startDemoBff, type DemoBff } from '../../src/devstack/demoBff.ts';
import { startBackchannelWorker, type BackchannelWorker } from '../../src/services/backchannel/worker.ts';
import { generateSigningKeySpec } from '../../src/security/signingKeys.ts';
import { llngControl } from './llngStack.ts';

export const CHROMIUM = '/usr/bin/chromium';
/** LemonLDAP::NG's Demo user backend: the password is the login. `rtyler` has no second factor. */
export const ROSE = { login: 'rtyler', password: 'rtyler', name: 'Rose Tyler', email: 'rtyler@badwolf.org' };
/** In the Demo backend's `timelords` group; the suite registers a TOTP secret for him (2fa.test.ts). */
export const DOCTOR = { login: 'dwho', password: 'dwho', name: 'Doctor Who', email: 'dwho@badwolf.org' };

/** Why this file cannot run (the global setup's reason), or null. */
export function skipReason(): string | null {
  const provider = inject('provider');
  if (provider.skipped) return provider.skipped;
  return null;
}

export interface Platform {
  key: string;
  clientId: string;
  clientSecret: string;
  basic: string;
}

export interface GatewayStack {
  llng: ReturnType<typeof llngControl>;
  database: TestDatabase;
  gateway: TestApp;
  baseUrl: string;
  browser: Browser;
  bff: DemoBff;
  /** The platform of the example BFF. */
  platform: Platform;
  /** Another platform, its callback a URL the browser never reaches (the test reads the code off the redirect). */
  direct: Platform & { callbackUrl: string; returnTo: string; arrivals: URL[] };
  close(): Promise<void>;
}

/** Another provider than the suite's LemonLDAP::NG (Glewlwyd): its issuer, the gateway's client there, the gateway's port. */
export interface OtherProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  gatewayPort: number;
}

export async function startGatewayStack(env: Record<string, string> = {}, other?: OtherProvider): Promise<GatewayStack> {
  const suite = inject('provider');
  const llng = llngControl(suite.folder, suite.issuer);
  const provider = other ?? suite;
  const baseUrl = `http://127.0.0.1:${provider.gatewayPort}`;
  const cleanups: (() => Promise<unknown>)[] = [];
  const close = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  };
  try {
    const database = await createTestDatabase();
    cleanups.push(() => database.drop());
    const gateway = await createTestApp({
      db: database.db,
      env: {
        PUBLIC_BASE_URL: baseUrl,
        // The example BFF listens on loopback: the tests' own allowance (refused in production).
        OUTBOUND_ALLOWED_PRIVATE_RANGES: '127.0.0.0/8',
        GATEWAY_SIGNING_KEYS: generateSigningKeySpec('provider-suite'),
        ...env,
      },
      oidc: { issuer: provider.issuer, clientId: provider.clientId, clientSecret: provider.clientSecret, scopes: other ? ['openid'] : ['openid', 'profile', 'email'] },
    });
    const server: http.Server = await new Promise((resolve) => {
      const listening = gateway.app.listen(provider.gatewayPort, '127.0.0.1', () => resolve(listening));
    });
    cleanups.push(async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    });
    const worker: BackchannelWorker = await startBackchannelWorker(gateway.deps, { pollIntervalMs: 100 });
    cleanups.push(() => worker.stop());

    const bffPort = await freePort();
    const bffUrl = `http://127.0.0.1:${bffPort}`;
    const created = await createPlatform(
      database.db,
      {
        platformKey: 'LLNG_DEMO',
        displayName: 'LemonLDAP demo',
        callbackUrl: `${bffUrl}/auth/callback`,
        allowedReturnUrls: [`${bffUrl}/`],
        backchannelLogoutUrl: `${bffUrl}/backchannel-logout`,
        defaultOnboardingMode: 'none',
      },
      CLI_ACTOR,
      { requireHttps: false, outbound: gateway.config.outbound },
    );
    const bff = await startDemoBff({ port: bffPort, gatewayUrl: baseUrl, platformKey: 'LLNG_DEMO', clientId: created.platform.clientId!, clientSecret: created.clientSecret, publicUrl: bffUrl });
    cleanups.push(() => bff.close());
    const platform = { key: 'LLNG_DEMO', clientId: created.platform.clientId!, clientSecret: created.clientSecret, basic: basicAuth(created.platform.clientId!, created.clientSecret) };

    // The direct platform's callback: a bare server that only records where the browser arrived.
    const arrivals: URL[] = [];
    const callbackServer = http.createServer((req, res) => {
      arrivals.push(new URL(req.url!, 'http://127.0.0.1'));
      res.writeHead(200, { 'content-type': 'text/plain' }).end('platform callback');
    });
    await new Promise<void>((resolve) => callbackServer.listen(0, '127.0.0.1', resolve));
    cleanups.push(async () => {
      callbackServer.closeAllConnections();
      await new Promise((resolve) => callbackServer.close(resolve));
    });
    const directRoot = `http://127.0.0.1:${(callbackServer.address() as { port: number }).port}/`;
    const directCreated = await createPlatform(
      database.db,
      { platformKey: 'LLNG_DIRECT', displayName: 'Direct', callbackUrl: `${directRoot}auth/callback`, allowedReturnUrls: [directRoot], defaultOnboardingMode: 'none', handoffChallengeRequired: false },
      CLI_ACTOR,
    );
    const direct = {
      key: 'LLNG_DIRECT',
      clientId: directCreated.platform.clientId!,
      clientSecret: directCreated.clientSecret,
      basic: basicAuth(directCreated.platform.clientId!, directCreated.clientSecret),
      callbackUrl: `${directRoot}auth/callback`,
      returnTo: `${directRoot}home`,
      arrivals,
    };

    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    cleanups.push(() => browser.close());
    return { llng, database, gateway, baseUrl, browser, bff, platform, direct, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** LemonLDAP::NG's own login form: its login and password inputs, then its "Connect" button. */
export async function signInAtLlng(page: Page, user: { login: string; password: string }): Promise<void> {
  await page.locator('form#lform input[name=user]').fill(user.login);
  await page.locator('form#lform input[name=password]').fill(user.password);
  // Wait for the form's post to answer, so the next step never sees this form still on screen.
  await Promise.all([page.waitForNavigation({ timeout: 30_000 }), page.getByRole('button', { name: /connect/i }).click()]);
}

/** Whether the page is LLNG's login form (the portal, not the gateway or a platform). */
export async function isLlngLoginPage(page: Page, issuer: string): Promise<boolean> {
  return page.url().startsWith(issuer) && (await page.locator('form#lform input[name=password]').count()) > 0;
}

/** Runs a browser step; when it fails, says where the page is and what it shows. */
export async function explained<T>(page: Page, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    const body = await page.textContent('body').catch(() => '(no body)');
    throw new Error(`${(error as Error).message.split('\n')[0]}\n  at ${page.url()}\n  page says: ${(body ?? '').replace(/\s+/g, ' ').trim().slice(0, 600)}`);
  }
}

export interface DirectLogin {
  /** LLNG showed its login form. */
  shownLoginPage: boolean;
  /** LLNG asked for a TOTP code. */
  askedCode: boolean;
  /** The handoff code the platform callback received, or null. */
  code: string | null;
  /** What the gateway's page said when it refused (no code). */
  error: string | null;
  startedAt: Date;
}

/**
 * A start at the gateway for the direct platform (`extra`: maxAge, forceLogin, …), through LLNG:
 * signing in as `user` when it shows its login form (with `user` null it must not: the login then
 * stops there), and giving `totp()` when it asks for a code; up to the platform callback.
 */
export async function startDirectLogin(stack: GatewayStack, context: BrowserContext, extra: Record<string, string>, user: { login: string; password: string } | null, totp?: () => string): Promise<DirectLogin> {
  const page = await context.newPage();
  const start = new URL('/v1/auth/start', stack.baseUrl);
  start.search = new URLSearchParams({ platformKey: stack.direct.key, returnTo: stack.direct.returnTo, ...extra }).toString();
  const startedAt = new Date();
  await page.goto(start.href);
  const result: DirectLogin = { shownLoginPage: false, askedCode: false, code: null, error: null, startedAt };
  try {
    let where = await settled(stack, page);
    if (where === 'login') {
      result.shownLoginPage = true;
      if (user === null) return result;
      await signInAtLlng(page, user);
      where = await settled(stack, page);
      if (where === 'login') throw new Error('LemonLDAP::NG showed its login form again after signing in');
    }
    if (where === 'code') {
      result.askedCode = true;
      if (!totp) throw new Error('LemonLDAP::NG asked for a TOTP code');
      await page.locator('input[name=code]').fill(totp());
      await Promise.all([page.waitForNavigation({ timeout: 30_000 }), page.locator('input[name=code]').press('Enter')]);
      where = await settled(stack, page);
    }
    const url = new URL(page.url());
    result.code = where === 'callback' ? url.searchParams.get('code') : null;
    result.error = result.code === null ? ((await page.textContent('body')) ?? '').replace(/\s+/g, ' ') : null;
    return result;
  } finally {
    await page.close();
  }
}

/** Where the redirects settle: LLNG's login form or its code form, the platform's callback, or a gateway page (a refusal). */
async function settled(stack: GatewayStack, page: Page): Promise<'login' | 'code' | 'callback' | 'gateway'> {
  return explained(page, () => Promise.race([
    page.locator('form#lform input[name=password]').waitFor({ state: 'visible', timeout: 30_000 }).then(() => 'login' as const),
    page.locator('input[name=code]').waitFor({ state: 'visible', timeout: 30_000 }).then(() => 'code' as const),
    page.waitForURL((url) => url.href.startsWith(stack.direct.callbackUrl), { timeout: 30_000 }).then(() => 'callback' as const),
    page.waitForURL((url) => url.href.startsWith(`${stack.baseUrl}/v1/auth/`), { timeout: 30_000, waitUntil: 'load' }).then(() => 'gateway' as const),
  ]));
}

/** The platform back end's exchange of a handoff code (HTTP Basic with the direct platform's secret). */
export async function exchangeCode(stack: GatewayStack, code: string): Promise<{ status: number; body: Record<string, any> }> {
  const response = await fetch(`${stack.baseUrl}/v1/auth/exchange`, {
    method: 'POST',
    headers: { authorization: stack.direct.basic, 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ code }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}
