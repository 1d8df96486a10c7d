// The account center's server as the back end of its own platform (account-center/server):
// it exchanges a handoff code only with the verifier of a login this browser started there
// (login CSRF through a handoff link, security issue 2). HTTP only, no Chromium.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../helpers/flowHarness.ts';
import { OidcBrowser } from '../helpers/oidcBrowser.ts';
import { startAccountCenterServer, type AccountCenterServer } from '../../account-center/server/server.ts';
import { ACCOUNT_CENTER_DIST } from '../../account-center/server/build.ts';
import { createPlatform, updatePlatform, CLI_ACTOR } from '../../src/services/registry/index.ts';
import { freePort } from '../../src/db/embedded.ts';

const PLATFORM = 'ACCOUNT_CENTER';
const ALICE = { username: 'alice', password: 'alice-password' };

describe('the account center server at /auth/callback', () => {
  let harness: Harness;
  let server: AccountCenterServer;
  let url: string;

  beforeAll(async () => {
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    harness = await startHarness({ ACCOUNT_CENTER_URL: url, CORS_ORIGINS: url, AUTH_PLATFORM_KEY: PLATFORM });
    const created = await createPlatform(
      harness.database.db,
      { platformKey: PLATFORM, displayName: 'Account center', callbackUrl: `${url}/auth/callback`, allowedReturnUrls: [`${url}/`], defaultOnboardingMode: 'none' },
      CLI_ACTOR,
    );
    server = await startAccountCenterServer({
      port,
      host: '127.0.0.1',
      publicUrl: url,
      authBackendUrl: `${harness.baseUrl}/v1`,
      platformKey: PLATFORM,
      clientId: created.platform.clientId!,
      clientSecret: created.clientSecret,
      distDir: ACCOUNT_CENTER_DIST,
    });
  });
  afterAll(async () => {
    await server?.close();
    await harness?.close();
  });

  /** Signs in at the dev provider from `first` and stops where the browser would reach the account center's callback. */
  async function upToCallback(browser: OidcBrowser, first: string): Promise<string> {
    const toIdp = await browser.followRedirects(await browser.get(first), { maxHops: 10 });
    const afterLogin = await browser.loginAtDevIdp(toIdp.response, ALICE.username, ALICE.password);
    return (await browser.followRedirects(afterLogin, { stopWhen: (next) => next.startsWith(`${url}/auth/callback`), maxHops: 10 })).stoppedAt!;
  }

  const unspentCodes = async () =>
    (
      await harness.database.db.raw<{ rows: Array<{ n: number }> }>(
        `SELECT count(*)::int AS n FROM handoff_codes h JOIN platforms p ON p.id = h.platform_id WHERE p.platform_key = ? AND h.consumed_at IS NULL`,
        [PLATFORM],
      )
    ).rows[0]!.n;

  it('a login started at /auth/login is exchanged with its verifier and lands on the page', async () => {
    const browser = new OidcBrowser();
    const callback = await browser.get(await upToCallback(browser, `${url}/auth/login?returnTo=%2Fprofile`));
    // 303 (the platform kit): the used code leaves the address bar.
    expect(callback.status, callback.text).toBe(303);
    expect(callback.location).toBe(`${url}/profile`);
  });

  it('never exchanges a code it holds no verifier for: the person is told and offered to sign in again', async () => {
    // The worst case: the requirement turned off, an attacker's own login without a challenge.
    await updatePlatform(harness.database.db, PLATFORM, { handoffChallengeRequired: false }, CLI_ACTOR);
    try {
      const start = new URL('/v1/auth/start', harness.baseUrl);
      start.searchParams.set('platformKey', PLATFORM);
      start.searchParams.set('returnTo', `${url}/profile`);
      const injected = await upToCallback(new OidcBrowser(), start.href);
      const before = await unspentCodes();

      const victim = await new OidcBrowser().get(injected);
      expect(victim.status).toBe(400);
      expect(victim.headers.get('content-type')).toMatch(/text\/html/);
      expect(victim.text).toContain('holds no record of starting this sign-in');
      expect(victim.text).toContain('<a href="/auth/login">Start again</a>');
      // Not sent to the gateway: the code is still unspent.
      expect(await unspentCodes()).toBe(before);
    } finally {
      await updatePlatform(harness.database.db, PLATFORM, { handoffChallengeRequired: true }, CLI_ACTOR);
    }
  });
});
