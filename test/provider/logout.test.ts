// Check 6 of issue 32 against LemonLDAP::NG: signing out at the gateway (through the example BFF)
// ends the LLNG session too (RP-initiated logout), so the next login asks for the password again.
// Check 5 is in glewlwyd.test.ts (LLNG 2.16 sends no back-channel logout token).
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

  // Check 5 (sign-out at the provider sends its back-channel logout token) is served by Glewlwyd
  // in glewlwyd.test.ts: LemonLDAP::NG 2.16 sends no back-channel logout token
  // (Issuer::OpenIDConnect::logout leaves the "back" type as "TODO #1194"; its discovery says
  // backchannel_logout_supported: false), docs/providers.md.

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
