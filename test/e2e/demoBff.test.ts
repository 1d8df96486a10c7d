// The example BFF binds each login to itself with a handoff challenge (issue 8 §5):
// a handoff code from someone else's login, injected into its callback, is refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../helpers/flowHarness.ts';
import { OidcBrowser } from '../helpers/oidcBrowser.ts';
import { startDemoBff, type DemoBff } from '../../src/devstack/demoBff.ts';
import { createPlatform, CLI_ACTOR } from '../../src/services/platformRegistry.ts';
import { freePort } from '../../src/db/embedded.ts';

const ALICE = { username: 'alice', password: 'alice-password' };

describe('the example BFF with a handoff challenge', () => {
  let harness: Harness;
  let bff: DemoBff;

  beforeAll(async () => {
    harness = await startHarness();
    const bffUrl = `http://127.0.0.1:${await freePort()}`;
    const created = await createPlatform(
      harness.database.db,
      { platformKey: 'BFF_DEMO', displayName: 'BFF demo', callbackUrl: `${bffUrl}/auth/callback`, allowedReturnUrls: [`${bffUrl}/`], defaultOnboardingMode: 'none' },
      CLI_ACTOR,
    );
    bff = await startDemoBff({
      port: Number(new URL(bffUrl).port),
      gatewayUrl: harness.baseUrl,
      platformKey: 'BFF_DEMO',
      clientId: created.platform.clientId!,
      clientSecret: created.clientSecret,
      publicUrl: bffUrl,
    });
  });
  afterAll(async () => {
    await bff?.close();
    await harness?.close();
  });

  /** Sign in through the BFF's /login, stopping before the browser reaches the BFF's callback. */
  async function upToBffCallback(browser: OidcBrowser) {
    const login = await browser.get(`${bff.url}/login`);
    expect(login.status).toBe(302);
    const start = new URL(login.location!);
    expect(start.searchParams.get('handoffChallenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const toIdp = await browser.followRedirects(login, { maxHops: 10 });
    const afterLogin = await browser.loginAtDevIdp(toIdp.response, ALICE.username, ALICE.password);
    const followed = await browser.followRedirects(afterLogin, { stopWhen: (url) => url.startsWith(`${bff.url}/auth/callback`), maxHops: 10 });
    return followed.stoppedAt!;
  }

  it('signs a person in: the verifier kept in its own cookie redeems the code', async () => {
    const browser = new OidcBrowser();
    const callback = await browser.get(await upToBffCallback(browser));
    expect(callback.status, callback.text).toBe(200);
    expect(callback.text).toContain('id="signed-in"');
    expect(callback.text).not.toMatch(/gwp_/); // the platform credential stays on the server
  });

  it("refuses a code from someone else's login injected into its callback", async () => {
    const attacker = new OidcBrowser();
    const injected = await upToBffCallback(attacker);
    const victim = new OidcBrowser();
    await victim.get(`${bff.url}/login`); // the victim has a login of its own in flight, with its own verifier
    const res = await victim.get(injected);
    expect(res.status).toBe(404);
    expect(res.text).toContain('Sign-in failed');
    expect(res.text).toContain('HANDOFF_CODE_INVALID');
  });
});
