// Check 5 of issue 32, with Glewlwyd: LemonLDAP::NG 2.16 sends no back-channel logout token
// (logout.test.ts), Glewlwyd 2.7 does. A person signs in through the example BFF on Glewlwyd's
// own login page, then signs out on Glewlwyd's own page: Glewlwyd posts its logout token to the
// gateway, which ends that session (the cookie then gets 401 on /v1/me) and tells the platform.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { freePort } from '../../src/db/embedded.ts';
import { basicAuth } from '../helpers/oidcBrowser.ts';
import { explained, skipReason, startGatewayStack, type GatewayStack } from './gatewayStack.ts';
import { GLEWLWYD_USER, glewlwydMissing, startGlewlwyd, type GlewlwydStack } from './glewlwydStack.ts';

const missing = glewlwydMissing();
const skipped = skipReason() ?? (missing ? `Glewlwyd is not installed (no ${missing}; Debian glewlwyd)` : null);

describe.skipIf(skipped !== null)(`back-channel logout from Glewlwyd${skipped ? ` (skipped: ${skipped})` : ''}`, () => {
  let glewlwyd: GlewlwydStack;
  let stack: GatewayStack;
  beforeAll(async () => {
    const gatewayPort = await freePort();
    const clientId = 'authgateway';
    const clientSecret = randomBytes(24).toString('hex');
    glewlwyd = await startGlewlwyd({ gatewayUrl: `http://127.0.0.1:${gatewayPort}`, clientId, clientSecret, log: (line) => process.stdout.write(`[provider] ${line}\n`) });
    // Glewlwyd names the granted scope in an access token's aud when no resource (RFC 8707) was
    // asked for: "openid" here. The gateway checks every access token's aud (docs/providers.md).
    stack = await startGatewayStack({ OIDC_ACCESS_TOKEN_AUDIENCE: 'openid' }, { issuer: glewlwyd.issuer, clientId, clientSecret, gatewayPort });
  });
  afterAll(async () => {
    await stack?.close();
    if (process.env.LLNG_SHOW_LOGS) process.stdout.write(`${glewlwyd?.logs()}\n`);
    await glewlwyd?.stop();
  });

  const meStatus = async (cookie: string) => (await fetch(`${stack.baseUrl}/v1/me`, { headers: { cookie } })).status;
  async function eventually(what: string, check: () => Promise<boolean>, ms = 15_000): Promise<void> {
    const until = Date.now() + ms;
    while (!(await check())) {
      if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  it('check 5: signing out on Glewlwyd\'s own page sends its back-channel logout token: the gateway session ends (401) and the platform is told', async () => {
    const context = await stack.browser.newContext();
    const page = await context.newPage();
    const seen = watch(page);
    // Each step names itself when it fails, with what the page showed and what went wrong in it.
    const step = async <T>(name: string, run: () => Promise<T>): Promise<T> => {
      try {
        return await explained(page, run);
      } catch (error) {
        throw new Error(`Glewlwyd check 5, step "${name}": ${(error as Error).message}${seen.report()}`);
      }
    };
    await step('open the example BFF and start a sign-in', async () => {
      await page.goto(stack.bff.url);
      await page.click('#sign-in');
    });
    // Glewlwyd's login page: its username and password inputs and its OK button, then "Continue" to the client.
    await step('sign in on Glewlwyd\'s login page', async () => {
      await page.locator('#username').waitFor({ timeout: 20_000 });
      await page.locator('#username').fill(GLEWLWYD_USER.login);
      await page.locator('#password').fill(GLEWLWYD_USER.password);
      await page.getByRole('button', { name: 'OK', exact: true }).click();
    });
    await step('grant the gateway ("Continue") and come back signed in', async () => {
      await page.locator('button:has-text("Continue")').first().click({ timeout: 20_000 });
      await page.waitForSelector('#signed-in', { timeout: 20_000 });
    });
    const cookie = `gw_session=${(await context.cookies(stack.baseUrl)).find((c) => c.name === 'gw_session')!.value}`;
    expect(await meStatus(cookie)).toBe(200);
    expect(stack.bff.sessionCount()).toBe(1);

    // Another application of Glewlwyd signs the person out at Glewlwyd's end-session page (as
    // providerLogout.test.ts does with the dev provider): it signs in on the same Glewlwyd session…
    const otherRedirect = `${stack.direct.callbackUrl.replace(/auth\/callback$/, '')}other-callback`;
    const otherSecret = randomBytes(16).toString('hex');
    await glewlwyd.addClient('otherapp', otherSecret, otherRedirect);
    const authorize = new URL(`${glewlwyd.issuer}/auth`);
    authorize.search = new URLSearchParams({ client_id: 'otherapp', response_type: 'code', scope: 'openid', redirect_uri: otherRedirect, state: 's', nonce: randomBytes(8).toString('hex') }).toString();
    await step('another application signs in on the same Glewlwyd session', async () => {
      await page.goto(authorize.href);
      const continueButton = page.locator('button:has-text("Continue")').first();
      await Promise.race([
        page.waitForURL((url) => url.href.startsWith(otherRedirect), { timeout: 20_000 }),
        continueButton.waitFor({ timeout: 20_000 }).then(() => continueButton.click()).then(() => page.waitForURL((url) => url.href.startsWith(otherRedirect), { timeout: 20_000 })),
      ]);
    });
    const token = await fetch(`${glewlwyd.issuer}/token`, {
      method: 'POST',
      headers: { authorization: basicAuth('otherapp', otherSecret), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code: new URL(page.url()).searchParams.get('code')!, redirect_uri: otherRedirect }),
    });
    const idToken = ((await token.json()) as { id_token: string }).id_token;
    // …then sends the person to Glewlwyd's end-session page, where they confirm. That page first
    // shows "The client  wishes…" with no name, then loads the session's clients from
    // GET /api/oidc/session/{sid}/{client_id} and names the client. Only then does its Logout
    // work: clicked before, it throws (it reads the list it has not got), and nothing is sent.
    // So wait for the client's name, which appears only once that list has arrived.
    await step('open Glewlwyd\'s end-session page and let it load the session\'s clients', async () => {
      await page.goto(`${glewlwyd.issuer}/end_session?${new URLSearchParams({ id_token_hint: idToken, post_logout_redirect_uri: otherRedirect })}`);
      await page.getByText('The client otherapp wishes you to close the current session').waitFor({ timeout: 20_000 });
    });
    // Logout (the red button's own text: its accessible name carries the icon's glyph): Glewlwyd
    // DELETEs /api/oidc/session/{sid} (which posts the logout tokens), then its own session, then
    // shows "Session closed" (2.7.5 redirects only when the page was given post_redirect_to, which
    // its end_session endpoint does not pass on; either ending is accepted).
    await step('click Logout and see Glewlwyd close its session', async () => {
      await page.locator('button.btn-danger', { hasText: /^\s*Logout\s*$/ }).click({ timeout: 20_000 });
      await Promise.race([
        page.getByText('You are disconnected').waitFor({ timeout: 20_000 }),
        page.waitForURL((url) => url.href.startsWith(otherRedirect), { timeout: 20_000 }),
      ]);
    });
    await step('the gateway ends the session (401 on /v1/me)', () => eventually('the gateway to end the session', async () => (await meStatus(cookie)) === 401));
    await step('the platform is told', () => eventually('the platform to be told', async () => stack.bff.sessionCount() === 0));
    await page.goto(stack.bff.url);
    expect(await page.textContent('body')).toContain('back-channel logout');
    await context.close();
  });
});

/**
 * What went wrong in the page: script errors, failed requests, answers of 400 or more. Glewlwyd's
 * pages always ask for locales/en-US/ (404; they fall back to locales/en/) and for /api/profile_list
 * (401 with no Glewlwyd session yet): those two are expected and left out, so as not to mislead.
 */
function watch(page: Page): { report(): string } {
  const lines: string[] = [];
  const expected = (url: string) => url.includes('/locales/en-US/') || url.endsWith('/api/profile_list');
  page.on('pageerror', (error) => lines.push(`script error: ${error.message}`));
  page.on('requestfailed', (request) => {
    if (!expected(request.url())) lines.push(`request failed: ${request.method()} ${request.url()} (${request.failure()?.errorText})`);
  });
  page.on('response', (response) => {
    if (response.status() >= 400 && !expected(response.url())) lines.push(`answer ${response.status()}: ${response.request().method()} ${response.url()}`);
  });
  return { report: () => (lines.length ? `\n  in the page:\n    ${lines.slice(-15).join('\n    ')}` : '\n  in the page: no script error, failed request or error answer') };
}
