// Checks 1-3 of issue 32 against LemonLDAP::NG: a whole login through the example BFF (platform
// kit) and LLNG's own login page in Chromium; a second login on LLNG's single sign-on session;
// maxAge and forceLogin making LLNG ask again (and a fresh authTime), and an answer that does not
// meet them refused (LLNG told, through its own setting, not to re-authenticate).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext } from 'playwright-core';
import { ERROR_CATALOGUE } from '../../src/errors/catalogue.ts';
import { exchangeCode, explained, isLlngLoginPage, ROSE, signInAtLlng, skipReason, startDirectLogin, startGatewayStack, type GatewayStack } from './gatewayStack.ts';

const skipped = skipReason();

describe.skipIf(skipped !== null)(`login against LemonLDAP::NG${skipped ? ` (skipped: ${skipped})` : ''}`, () => {
  let stack: GatewayStack;
  beforeAll(async () => {
    stack = await startGatewayStack();
  });
  afterAll(async () => {
    await stack?.close();
  });

  const directLogin = (context: BrowserContext, extra: Record<string, string>, signIn: boolean) => startDirectLogin(stack, context, extra, signIn ? ROSE : null);
  const exchange = (code: string) => exchangeCode(stack, code);

  it('check 1: a whole login through the example BFF: start, LLNG\'s login page, callback, handoff, exchange, /v1/me', async () => {
    const context = await stack.browser.newContext();
    const page = await context.newPage();
    await page.goto(stack.bff.url);
    await page.click('#sign-in');
    await page.waitForURL((url) => url.href.startsWith(stack.llng.issuer));
    expect(await isLlngLoginPage(page, stack.llng.issuer)).toBe(true);
    await signInAtLlng(page, ROSE);
    // The BFF exchanged the handoff code and read /v1/me with its platform credential.
    await explained(page, () => page.waitForSelector('#signed-in', { timeout: 20_000 }));
    expect(await page.textContent('#signed-in')).toContain(ROSE.name);
    expect(stack.bff.sessionCount()).toBe(1);
    // The gateway's own session (its cookie, set at the callback) knows the person too.
    const cookie = (await context.cookies(stack.baseUrl)).find((c) => c.name === 'gw_session');
    const me = await fetch(`${stack.baseUrl}/v1/me`, { headers: { cookie: `gw_session=${cookie!.value}` } });
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({ user: { email: ROSE.email, displayName: ROSE.name } });
    await context.close();
  });

  it('check 2: a second login rides LLNG\'s single sign-on session (no login page)', async () => {
    const context = await stack.browser.newContext();
    const first = await directLogin(context, {}, true);
    expect(first.shownLoginPage).toBe(true);
    expect(first.code).toMatch(/^handoff_/);
    const firstExchange = await exchange(first.code!);
    expect(firstExchange.status).toBe(200);
    const second = await directLogin(context, {}, false);
    expect(second.shownLoginPage).toBe(false);
    expect(second.code).toMatch(/^handoff_/);
    const secondExchange = await exchange(second.code!);
    expect(secondExchange.status).toBe(200);
    // The same person, the same sign-in at LLNG: its auth_time did not move.
    expect(secondExchange.body.user.sub).toBe(firstExchange.body.user.sub);
    expect(secondExchange.body.authentication.authTime).toBe(firstExchange.body.authentication.authTime);
    await context.close();
  });

  const seconds = (iso: string) => Math.floor(Date.parse(iso) / 1000);
  const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it('check 3: maxAge makes LLNG ask again, and the exchange\'s authTime is fresh', async () => {
    const context = await stack.browser.newContext();
    const first = await directLogin(context, {}, true);
    const firstExchange = await exchange(first.code!);
    expect(firstExchange.status).toBe(200);
    // max_age=1 two seconds later: LLNG's sign-in is too old, so it shows its login page again.
    await wait(2100);
    const again = await directLogin(context, { maxAge: '1' }, true);
    expect(again.shownLoginPage).toBe(true);
    expect(again.error).toBeNull();
    const exchanged = await exchange(again.code!);
    expect(exchanged.status).toBe(200);
    expect(exchanged.body.authentication.requested).toMatchObject({ maxAge: 1 });
    expect(seconds(exchanged.body.authentication.authTime)).toBeGreaterThanOrEqual(Math.floor(again.startedAt.getTime() / 1000) - 1);
    expect(seconds(exchanged.body.authentication.authTime)).toBeGreaterThan(seconds(firstExchange.body.authentication.authTime));
    await context.close();
  });

  it('check 3: forceLogin (prompt=login) makes LLNG ask again, and the exchange\'s authTime is fresh', async () => {
    const context = await stack.browser.newContext();
    const first = await directLogin(context, {}, true);
    const firstExchange = await exchange(first.code!);
    // LLNG honours prompt=login for a session older than portalForceAuthnInterval (5 s, lmConf.json):
    // the interval keeps it from asking again and again when it replays the request after the login.
    await wait(6000);
    const again = await directLogin(context, { forceLogin: 'true' }, true);
    expect(again.shownLoginPage).toBe(true);
    const exchanged = await exchange(again.code!);
    expect(exchanged.status).toBe(200);
    expect(exchanged.body.authentication.requested).toMatchObject({ forceLogin: true });
    expect(seconds(exchanged.body.authentication.authTime)).toBeGreaterThanOrEqual(Math.floor(again.startedAt.getTime() / 1000) - 1);
    expect(seconds(exchanged.body.authentication.authTime)).toBeGreaterThan(seconds(firstExchange.body.authentication.authTime));
    await context.close();
  });

  it('check 3: LLNG set not to honour prompt=login and to report an old auth_time: the gateway refuses forceLogin and maxAge', async () => {
    const context = await stack.browser.newContext();
    const first = await directLogin(context, {}, true);
    expect((await exchange(first.code!)).status).toBe(200);
    // Two LLNG settings make it answer as a provider that ignores the request would:
    // portalForceAuthnInterval (prompt=login only re-asks for a session older than an hour), and an
    // RP macro exported as the auth_time claim (released with oidcServiceIgnoreScopeForClaims; with
    // IDTokenForceClaims it overrides LLNG's own), an hour before the real sign-in.
    await stack.llng.updateConfig((config) => {
      config.portalForceAuthnInterval = 3600;
      config.oidcServiceIgnoreScopeForClaims = 1;
      (config.oidcRPMetaDataMacros as Record<string, Record<string, string>>).gateway = { stale_auth_time: '$_lastAuthnUTime - 3600' };
      (config.oidcRPMetaDataExportedVars as Record<string, Record<string, string>>).gateway!.auth_time = 'stale_auth_time;int;never';
    });
    try {
      const forced = await directLogin(context, { forceLogin: 'true' }, true);
      expect(forced.shownLoginPage).toBe(false);
      expect(forced.code).toBeNull();
      expect(forced.error).toContain(ERROR_CATALOGUE.AUTHENTICATION_TOO_OLD.title);
      // max_age is still honoured (LLNG asks again), but the auth_time it reports is too old.
      await wait(2100);
      const aged = await directLogin(context, { maxAge: '1' }, true);
      expect(aged.shownLoginPage).toBe(true);
      expect(aged.code).toBeNull();
      expect(aged.error).toContain(ERROR_CATALOGUE.AUTHENTICATION_TOO_OLD.title);
    } finally {
      await stack.llng.updateConfig((config) => {
        config.portalForceAuthnInterval = 5;
        delete config.oidcServiceIgnoreScopeForClaims;
        (config.oidcRPMetaDataMacros as Record<string, Record<string, string>>).gateway = {};
        delete (config.oidcRPMetaDataExportedVars as Record<string, Record<string, string>>).gateway!.auth_time;
      });
    }
    await context.close();
  });
});
