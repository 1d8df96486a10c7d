// Checks 5 and 6 of issue 32 against LemonLDAP::NG: signing out at LLNG (its own portal's
// logout) would send its back-channel logout token to the gateway, which ends that session and
// tells the platform (skipped: LLNG 2.16 sends none, below); signing out at the gateway (through the example BFF) ends the LLNG session too
// (RP-initiated logout), so the next login asks for the password again.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { explained, isLlngLoginPage, ROSE, signInAtLlng, skipReason, startGatewayStack, type GatewayStack } from './gatewayStack.ts';

const skipped = skipReason();

describe.skipIf(skipped !== null)(`sign-out with LemonLDAP::NG${skipped ? ` (skipped: ${skipped})` : ''}`, () => {
  let stack: GatewayStack;
  beforeAll(async () => {
    stack = await startGatewayStack();
  });
  afterAll(async () => {
    await stack?.close();
  });

  /** Signs in at the example BFF through LLNG's login form; the gateway's cookie, for /v1/me. */
  async function signInAtBff(context: BrowserContext): Promise<{ page: Page; gatewayCookie: string }> {
    const page = await context.newPage();
    await page.goto(stack.bff.url);
    await page.click('#sign-in');
    await explained(page, () => page.locator('form#lform input[name=password]').waitFor({ timeout: 20_000 }));
    await signInAtLlng(page, ROSE);
    await explained(page, () => page.waitForSelector('#signed-in', { timeout: 20_000 }));
    const cookie = (await context.cookies(stack.baseUrl)).find((c) => c.name === 'gw_session')!;
    return { page, gatewayCookie: `gw_session=${cookie.value}` };
  }

  const meStatus = async (cookie: string) => (await fetch(`${stack.baseUrl}/v1/me`, { headers: { cookie } })).status;

  async function eventually(what: string, check: () => Promise<boolean>, ms = 15_000): Promise<void> {
    const until = Date.now() + ms;
    while (!(await check())) {
      if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  // LemonLDAP::NG 2.16 does not send back-channel logout tokens: Issuer::OpenIDConnect::logout
  // renders front-channel iframes and leaves the "back" type as "TODO #1194", and its discovery
  // says backchannel_logout_supported: false. The check stays here, skipped with that reason, for
  // the day the suite runs a LemonLDAP::NG that does (2.17 and later, docs/providers.md).
  it.skip('check 5 (unfinished: LemonLDAP::NG 2.16 sends no back-channel logout token, "TODO #1194" in its issuer): signing out at LLNG\'s own portal ends the gateway session (401) and the platform is told', async () => {
    const context = await stack.browser.newContext();
    const { page, gatewayCookie } = await signInAtBff(context);
    expect(await meStatus(gatewayCookie)).toBe(200);
    expect(stack.bff.sessionCount()).toBe(1);
    // LLNG's portal, as the person would open it, and its own logout.
    await page.goto(`${stack.llng.issuer}/?logout=1`);
    await explained(page, () => page.getByText('You have been disconnected').waitFor({ timeout: 20_000 }));
    await eventually('the gateway to end the session', async () => (await meStatus(gatewayCookie)) === 401);
    // The gateway told the platform (its back-channel logout, to the example BFF): its session is gone.
    await eventually('the platform to be told', async () => stack.bff.sessionCount() === 0);
    await page.goto(stack.bff.url);
    expect(await page.textContent('body')).toContain('back-channel logout');
    await context.close();
  });

  it('check 6: signing out at the gateway ends the LLNG session (RP-initiated logout): the next login asks for the password again', async () => {
    const context = await stack.browser.newContext();
    const { page, gatewayCookie } = await signInAtBff(context);
    await page.click('[id^=sign-out-]');
    // The gateway's sign-out sends the browser to LLNG's end-session endpoint (id_token_hint,
    // post_logout_redirect_uri), which comes back to the gateway's logged-out page.
    await explained(page, () => page.waitForURL((url) => url.href.startsWith(`${stack.baseUrl}/v1/auth/logged-out`) || url.href.startsWith(stack.bff.url), { timeout: 20_000 }));
    const visited = page.url();
    expect(await meStatus(gatewayCookie)).toBe(401);
    // LLNG's session is gone: its portal shows the login form, and so does the next sign-in.
    await page.goto(stack.bff.url);
    await page.click('#sign-in');
    await explained(page, () => page.locator('form#lform input[name=password]').waitFor({ timeout: 20_000 }));
    expect(await isLlngLoginPage(page, stack.llng.issuer), `after sign-out at ${visited}`).toBe(true);
    await context.close();
  });
});
