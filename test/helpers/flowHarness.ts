import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { createTestDatabase, type TestDatabase } from './db.ts';
import { createTestApp, type TestApp } from './app.ts';
import { OidcBrowser, basicAuth, type BrowserResponse } from './oidcBrowser.ts';
import { startDevIdp, PERMISSION_SCOPES, type DevIdp, type DevIdpOptions } from '../../src/devidp/index.ts';
import { freePort } from '../../src/db/embedded.ts';
import { createPlatform } from '../../src/services/registry/index.ts';
import type { IdentityProviderAccounts } from '../../src/services/identityProvider/port.ts';

export const PLATFORM_CALLBACK = 'https://bff.example.test/auth/callback';
export const PLATFORM_ROOT = 'https://bff.example.test/';

export interface Harness {
  database: TestDatabase;
  idp: DevIdp;
  gateway: TestApp;
  /** http://127.0.0.1:<port>: the gateway, listening for real (the IdP redirects the browser to it). */
  baseUrl: string;
  close(): Promise<void>;
}

/**
 * The whole stack on one machine: a test database, the dev identity provider and
 * the gateway listening on a real port, so a browser-like client can follow
 * every redirect exactly as a person's browser would. `devIdp` passes options through to the
 * dev identity provider (e.g. `{ tokenShape: 'zitadel' }`).
 */
export async function startHarness(
  env: Record<string, string> = {},
  devIdp: Omit<Partial<DevIdpOptions>, 'clients' | 'port'> = {},
  gatewayOptions: {
    /** The gateway's identity-provider account adapter, built from the started dev IdP (none by default). */
    idpAccounts?: (idp: DevIdp) => IdentityProviderAccounts | null;
    /** A migrated database of the test's own (its server, its pool settings) instead of one on the suite's server; close() drops it. */
    database?: TestDatabase;
  } = {},
): Promise<Harness> {
  const database = gatewayOptions.database ?? (await createTestDatabase());
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const clientId = 'gateway-e2e';
  const clientSecret = randomBytes(24).toString('base64url');
  const idp = await startDevIdp({ ...devIdp, port: 0, clients: [{ clientId, clientSecret, redirectUris: [`${baseUrl}/v1/auth/callback`], postLogoutRedirectUris: [`${baseUrl}/v1/auth/logged-out`], backchannelLogoutUri: `${baseUrl}/v1/auth/backchannel-logout` }] });
  const gateway = await createTestApp({
    db: database.db,
    env: { PUBLIC_BASE_URL: baseUrl, ...env },
    oidc: { issuer: idp.issuer, clientId, clientSecret, scopes: ['openid', 'profile', 'email', ...PERMISSION_SCOPES] },
    idpAccounts: gatewayOptions.idpAccounts?.(idp) ?? null,
  });
  const server: Server = await new Promise((resolve) => {
    const listening = gateway.app.listen(port, '127.0.0.1', () => resolve(listening));
  });
  return {
    database,
    idp,
    gateway,
    baseUrl,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await idp.close();
      await database.drop();
    },
  };
}

export interface TestPlatform {
  key: string;
  clientId: string;
  clientSecret: string;
  basic: string;
}

let platformCounter = 0;

export async function addPlatform(
  harness: Harness,
  overrides: {
    defaultOnboardingMode?: 'none' | 'platform' | 'central';
    centralOnboardingEnabled?: boolean;
    allowedReturnUrls?: string[];
    /**
     * Off unless asked for (the registry's default is on): most flow tests start and exchange
     * without the handoff binding; handoffChallengeRequired.test.ts and loginSecurity test it.
     */
    handoffChallengeRequired?: boolean;
  } = {},
): Promise<TestPlatform> {
  const key = `E2E_${++platformCounter}_${randomBytes(3).toString('hex').toUpperCase()}`;
  const created = await createPlatform(
    harness.database.db,
    {
      platformKey: key,
      displayName: `Platform ${key}`,
      callbackUrl: PLATFORM_CALLBACK,
      allowedReturnUrls: overrides.allowedReturnUrls ?? [PLATFORM_ROOT],
      defaultOnboardingMode: overrides.defaultOnboardingMode ?? 'none',
      centralOnboardingEnabled: overrides.centralOnboardingEnabled ?? true,
      handoffChallengeRequired: overrides.handoffChallengeRequired ?? false,
    },
    { type: 'cli', userId: null, sub: null, requestId: null },
  );
  return { key, clientId: created.platform.clientId!, clientSecret: created.clientSecret, basic: basicAuth(created.platform.clientId!, created.clientSecret) };
}

export function startUrl(harness: Harness, platformKey: string, returnTo = `${PLATFORM_ROOT}home`, extra: Record<string, string> = {}): string {
  const url = new URL('/v1/auth/start', harness.baseUrl);
  url.searchParams.set('platformKey', platformKey);
  url.searchParams.set('returnTo', returnTo);
  for (const [name, value] of Object.entries(extra)) url.searchParams.set(name, value);
  return url.href;
}

export interface LoginResult {
  browser: OidcBrowser;
  /** The gateway's answer to the IdP's redirect (the callback). */
  callback: BrowserResponse;
  /** Where the callback sent the browser. */
  location: URL;
}

/**
 * A person's browser: start at the gateway, land on the dev IdP's login page,
 * sign in, and follow redirects until the gateway sends the browser away from
 * itself and the IdP (to the platform or the account center).
 */
export async function browserLogin(harness: Harness, platformKey: string, user: { username: string; password: string }, browser = new OidcBrowser(), startExtra: Record<string, string> = {}): Promise<LoginResult> {
  const start = await browser.get(startUrl(harness, platformKey, undefined, startExtra));
  if (start.status !== 302) throw new Error(`start answered ${start.status}: ${start.text}`);
  const toLoginPage = await browser.followRedirects(start, { maxHops: 10 });
  const afterLogin = await browser.loginAtDevIdp(toLoginPage.response, user.username, user.password);
  const isOwn = (url: string) => url.startsWith(harness.baseUrl) || url.startsWith(harness.idp.issuer);
  const followed = await browser.followRedirects(afterLogin, { stopWhen: (url) => !isOwn(url), maxHops: 10 });
  const callback = followed.response;
  if (!followed.stoppedAt) throw new Error(`the flow did not leave the gateway: ${callback.status} ${callback.url} ${callback.text.slice(0, 300)}`);
  return { browser, callback, location: new URL(followed.stoppedAt) };
}
