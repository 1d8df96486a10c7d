// The account center's frame in Chromium: its own sign-in, the navigation by permission,
// sign-out, and accessibility of the shared pages.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectPageErrors, expectAccessible, hasChromium, screenshots, signIn, startAccountCenterStack, USERS, type AccountCenterStack } from '../../helpers/accountCenter.ts';

describe.skipIf(!hasChromium)(`account center shell in Chromium${hasChromium ? '' : ' (skipped: /usr/bin/chromium is not installed)'}`, () => {
  let stack: AccountCenterStack;
  beforeAll(async () => {
    stack = await startAccountCenterStack();
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('a page that needs a session signs in through the account center and comes back to it', async () => {
    const { context, page } = await stack.newPage();
    const errors = collectPageErrors(page);
    await signIn(stack, page, '/profile', USERS.alice);
    expect(new URL(page.url()).pathname).toBe('/profile');
    await expect.poll(() => page.getByRole('link', { name: 'Sign out' }).isVisible()).toBe(true);
    // alice holds no permission: no admin navigation
    expect(await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Platforms', exact: true }).count()).toBe(0);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('an administrator sees the admin navigation; sign-out ends the session here and at the provider', async () => {
    const { context, page } = await stack.newPage();
    await signIn(stack, page, '/profile', USERS.admin);
    await page.getByRole('link', { name: 'Account center' }).click();
    await expect.poll(() => page.getByRole('link', { name: 'Platforms' }).first().isVisible()).toBe(true);
    await expectAccessible(page, 'home');
    await screenshots(page, 'home');
    // Through the gateway's sign-out and the provider's confirmation (RP-Initiated Logout 1.0 §2), back here.
    // One step at the gateway (issue 3): the account center brings a sign-out token, so the
    // gateway asks nothing; only the provider's own page remains.
    const toGatewaySignOut: URL[] = [];
    page.on('request', (sent) => {
      if (sent.url().startsWith(`${stack.harness.baseUrl}/v1/auth/logout?`)) toGatewaySignOut.push(new URL(sent.url()));
    });
    await page.getByRole('link', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Yes, sign me out' }).click();
    await page.waitForURL(`${stack.url}/signed-out`);
    expect(toGatewaySignOut.map((url) => url.searchParams.has('signOutToken'))).toEqual([true]);
    await expect.poll(() => page.getByRole('heading', { name: 'You are signed out' }).isVisible()).toBe(true);
    await expectAccessible(page, 'signed out');
    await screenshots(page, 'signed-out');
    // Really ended: the gateway no longer knows this browser, and the provider asks for a password again.
    const me = await page.request.get(`${stack.harness.baseUrl}/v1/me`);
    expect(me.status()).toBe(401);
    await page.goto(`${stack.url}/profile`);
    await page.getByLabel('Username').waitFor();
    await context.close();
  });

  it('a sign-out link from anywhere, without a token, asks first; the gateway page is accessible and its button signs out in a real browser', async () => {
    const { context, page } = await stack.newPage();
    await signIn(stack, page, '/profile', USERS.alice);
    const query = new URLSearchParams({ platformKey: 'ACCOUNT_CENTER', returnTo: `${stack.url}/signed-out` });
    await page.goto(`${stack.harness.baseUrl}/v1/auth/logout?${query}`);
    await expect.poll(() => page.getByRole('heading', { name: 'Sign out of Account center?' }).isVisible()).toBe(true);
    await expectAccessible(page, 'gateway sign-out confirmation');
    await screenshots(page, 'sign-out-confirmation');
    expect((await page.request.get(`${stack.harness.baseUrl}/v1/me`)).status()).toBe(200);
    // Chromium posts the form with the Origin (or Sec-Fetch-Site) the gateway's check accepts.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Yes, sign me out' }).click();
    await page.waitForURL(`${stack.url}/signed-out`);
    expect((await page.request.get(`${stack.harness.baseUrl}/v1/me`)).status()).toBe(401);
    await context.close();
  });

  it('an unknown page says so', async () => {
    const { context, page } = await stack.newPage();
    await page.goto(`${stack.url}/no/such/page`);
    await expect.poll(() => page.getByRole('heading', { name: 'Page not found' }).isVisible()).toBe(true);
    await expectAccessible(page, 'not found');
    await context.close();
  });
});
