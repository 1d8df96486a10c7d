// The gateway's own pages (errors) and the dev provider's error page in Chromium: axe-clean at
// 1280 and 390 px, nothing blocked by the strict CSP, screenshots for people to compare with
// the account center.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectPageErrors, expectAccessible, hasChromium, screenshots, startAccountCenterStack, type AccountCenterStack } from '../../helpers/accountCenter.ts';

describe.skipIf(!hasChromium)(`gateway pages in Chromium${hasChromium ? '' : ' (skipped: /usr/bin/chromium is not installed)'}`, () => {
  let stack: AccountCenterStack;
  beforeAll(async () => {
    stack = await startAccountCenterStack();
  }, 60_000);
  afterAll(async () => {
    await stack?.close();
  });

  const pages = () => [
    { name: 'gateway-not-found', url: `${stack.harness.baseUrl}/v1/auth/strat`, heading: 'There is no page at this address' },
    { name: 'gateway-incomplete-link', url: `${stack.harness.baseUrl}/v1/auth/start?returnTo=https%3A%2F%2Fx.example%2F`, heading: 'This link is incomplete' },
    { name: 'devidp-expired', url: `${stack.harness.idp.issuer}/interaction/no-such-interaction`, heading: 'This sign-in page has expired' },
  ];

  it('each page has its heading in words, is axe-clean at both widths, and loads nothing the CSP blocks', async () => {
    for (const { name, url, heading } of pages()) {
      const { context, page } = await stack.newPage();
      const errors = collectPageErrors(page);
      const blocked: string[] = [];
      page.on('console', (message) => {
        if (/Content Security Policy/i.test(message.text())) blocked.push(message.text());
      });
      await page.goto(url);
      await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
      await expectAccessible(page, `${name} at 1280`);
      await page.setViewportSize({ width: 390, height: 900 });
      await expectAccessible(page, `${name} at 390`);
      await screenshots(page, name);
      expect(blocked, name).toEqual([]);
      // The page's own error status (and the favicon's 404) are logged as failed loads: expected here.
      expect(errors.filter((error) => !/Failed to load resource: the server responded with a status of 4\d\d/.test(error)), name).toEqual([]);
      await context.close();
    }
  }, 60_000);
});
