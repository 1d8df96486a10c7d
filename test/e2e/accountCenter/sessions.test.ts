// The account center's /sessions ("Where you're signed in") in Chromium, against the real stack:
// the person's sessions by their labels (device, platforms, network, this device), one ended,
// the others ended at once, then every one with this browser's sign-out; axe at 1280 and 390 px.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import type { Page } from 'playwright-core';
import { collectPageErrors, expectAccessible, hasChromium, screenshots, signIn, startAccountCenterStack, USERS, type AccountCenterStack } from '../../helpers/accountCenter.ts';
import { addPlatform, browserLogin } from '../../helpers/flowHarness.ts';
import { OidcBrowser } from '../../helpers/oidcBrowser.ts';

const FIREFOX_ON_WINDOWS = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0';

describe.skipIf(!hasChromium)(`account center /sessions in Chromium${hasChromium ? '' : ' (skipped: /usr/bin/chromium is not installed)'}`, () => {
  let stack: AccountCenterStack;
  beforeAll(async () => {
    stack = await startAccountCenterStack();
  });
  afterAll(async () => {
    await stack?.close();
  });

  const gateway = () => request(stack.harness.gateway.app);
  const cookieOf = (browser: OidcBrowser) => `gw_session=${browser.cookiesFor(`${stack.harness.baseUrl}/`).gw_session}`;
  const meStatus = async (cookie: string) => (await gateway().get('/v1/me').set('Cookie', cookie)).status;
  const meFromPage = async (page: Page) => (await page.request.get(`${stack.harness.baseUrl}/v1/me`)).status();
  const sessionsList = (page: Page) => page.getByRole('list', { name: 'Your sessions' });

  /** alice at a platform from another "computer": a login exchanged by the platform, seen as Firefox on Windows. */
  async function aliceElsewhere(platform: { key: string; basic: string }) {
    const login = await browserLogin(stack.harness, platform.key, USERS.alice, new OidcBrowser());
    const exchanged = await gateway().post('/v1/auth/exchange').set('Authorization', platform.basic).send({ code: login.location.searchParams.get('code') }).expect(200);
    const sessionId = exchanged.body.session.id as string;
    await stack.harness.database.db.raw(`UPDATE gateway_sessions SET user_agent = ? WHERE id = ?`, [FIREFOX_ON_WINDOWS, sessionId]);
    return { cookie: cookieOf(login.browser), sessionId };
  }

  it('lists where alice is signed in, by labels; ends one, then the others, then every one with this browser', async () => {
    const platform = await addPlatform(stack.harness);
    const elsewhere = await aliceElsewhere(platform);
    // Another Chromium (its own cookies), signed in to the account center too.
    const second = await stack.newPage();
    await signIn(stack, second.page, '/profile', USERS.alice);

    const { context, page } = await stack.newPage();
    const errors = collectPageErrors(page);
    await signIn(stack, page, '/sessions', USERS.alice);
    await page.getByRole('heading', { name: "Where you're signed in", level: 1 }).waitFor();
    await sessionsList(page).waitFor();

    // This browser: marked, a readable device (not the raw user agent), the account center as platform.
    const mine = sessionsList(page).getByRole('listitem').filter({ hasText: 'This device' });
    expect(await mine.count()).toBe(1);
    expect(await mine.getByRole('heading').textContent()).toMatch(/^Chrome on Linux/);
    expect(await mine.getByRole('definition').allTextContents()).toEqual([expect.any(String), expect.any(String), 'Account center', expect.stringMatching(/^127\.0\.0\.0\/24$|\/48$/)]);
    expect(await page.getByText('Mozilla/5.0').count()).toBe(0);
    // The other computer: Firefox on Windows, at the platform it reached.
    const firefox = sessionsList(page).getByRole('listitem').filter({ hasText: 'Firefox on Windows' });
    expect(await firefox.count()).toBe(1);
    expect(await firefox.getByText(platform.key).count()).toBe(1);
    expect(await sessionsList(page).getByRole('listitem').count()).toBe(3);

    await expectAccessible(page, 'sessions at 1280 px');
    await screenshots(page, 'sessions');
    await page.setViewportSize({ width: 390, height: 900 });
    await expectAccessible(page, 'sessions at 390 px');
    await page.setViewportSize({ width: 1280, height: 900 });

    // One session: its button is named after the device and when it started.
    await firefox.getByRole('button', { name: /^Sign out Firefox on Windows, signed in / }).click();
    await page.getByText(/^Signed out of Firefox on Windows, signed in /).waitFor();
    await expect.poll(() => sessionsList(page).getByRole('listitem').count()).toBe(2);
    expect(await meStatus(elsewhere.cookie)).toBe(401);
    expect(await meFromPage(second.page)).toBe(200);

    // Everywhere else: the other Chromium is signed out, this one is not.
    await page.getByRole('button', { name: 'Sign out everywhere else' }).click();
    await page.getByText('Signed out of 1 other session.').waitFor();
    await expect.poll(() => sessionsList(page).getByRole('listitem').count()).toBe(1);
    expect(await meFromPage(second.page)).toBe(401);
    expect(await meFromPage(page)).toBe(200);
    await page.getByText('You are signed in on this browser only.').waitFor();
    expect(await page.getByRole('button', { name: 'Sign out everywhere else' }).count()).toBe(0);

    // Everywhere, after a confirmation: this browser goes through the gateway's sign-out.
    const another = await aliceElsewhere(platform);
    await page.reload();
    await expect.poll(() => sessionsList(page).getByRole('listitem').count()).toBe(2);
    await page.getByRole('button', { name: 'Sign out everywhere', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Sign out everywhere?' });
    await dialog.waitFor();
    await expectAccessible(page, 'sign out everywhere dialog');
    // (The provider's own page that follows asks for a favicon it does not have: checked before.)
    expect(errors).toEqual([]);
    await dialog.getByRole('button', { name: 'Sign out everywhere' }).click();
    await page.getByRole('button', { name: 'Yes, sign me out' }).click(); // the provider's own page
    await page.waitForURL(`${stack.url}/signed-out`);
    expect(await meFromPage(page)).toBe(401);
    expect(await meStatus(another.cookie)).toBe(401);
    await second.context.close();
    await context.close();
  });

  it('the navigation and the home page lead to the sessions page', async () => {
    const { context, page } = await stack.newPage({ width: 390 });
    await signIn(stack, page, '/profile', USERS.admin);
    await page.getByRole('link', { name: 'Account center' }).click();
    await page.getByRole('link', { name: "Where you're signed in" }).click();
    await page.getByRole('heading', { name: "Where you're signed in", level: 1 }).waitFor();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Sessions' }).waitFor();
    await sessionsList(page).getByRole('listitem').first().waitFor();
    expect(await sessionsList(page).getByRole('listitem').filter({ hasText: 'This device' }).count()).toBe(1);
    await context.close();
  });
});
