// The platform registry pages (/admin/platforms) in Chromium, against the whole stack: an
// administrator registers a platform through the form (the key typed in lower case), sees its
// secret once, is refused beside the field, edits, deactivates and activates, rotates (and the
// gateway takes the new secret at once), searches and pages through 60 more platforms, and
// reads the audit events; someone without platforms:admin is sent home.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { collectPageErrors, expectAccessible, hasChromium, screenshots, signIn, startAccountCenterStack, USERS, type AccountCenterStack } from '../../helpers/accountCenter.ts';
import { CLI_ACTOR, createPlatform, getPlatform } from '../../../src/services/registry/index.ts';

const KEY = 'E2E_SHOP';
/** The little of a DOM element these tests use in the page (the project's types have no DOM). */
interface DomElement {
  getAttribute(name: string): string | null;
  ownerDocument: { activeElement: unknown; getElementById(id: string): { textContent: string | null } | null };
}
const SHOP = 'https://shop.example.test';

describe.skipIf(!hasChromium)(`platform registry pages in Chromium${hasChromium ? '' : ' (skipped: /usr/bin/chromium is not installed)'}`, () => {
  let stack: AccountCenterStack;
  let context: BrowserContext;
  let page: Page;
  let errors: string[];
  /** The secret shown after registering, to show that rotation retires it. */
  let firstSecret = '';
  let clientId = '';

  beforeAll(async () => {
    stack = await startAccountCenterStack();
    // 60 more platforms, every tenth inactive: with the account center's own, 62 before the test's
    const db = stack.harness.database.db;
    for (let i = 1; i <= 60; i++) {
      const n = String(i).padStart(2, '0');
      await createPlatform(
        db,
        { platformKey: `SEED_${n}`, displayName: `Seeded platform ${n}`, callbackUrl: `https://seed${n}.example.test/cb`, allowedReturnUrls: [`https://seed${n}.example.test/`], defaultOnboardingMode: 'none', active: i % 10 !== 0 },
        CLI_ACTOR,
      );
    }
    ({ context, page } = await stack.newPage());
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: stack.url });
    errors = collectPageErrors(page);
    await signIn(stack, page, '/admin/platforms', USERS.admin);
  });
  afterAll(async () => {
    await context?.close();
    await stack?.close();
  });

  const heading = (name: string | RegExp) => page.getByRole('heading', { name, level: 1 });
  const visible = (locator: Locator) => expect.poll(() => locator.isVisible(), { timeout: 10_000 }).toBe(true);
  const pathname = () => new URL(page.url()).pathname;
  /** The texts of a field's description (hints and errors), as a screen reader reads them with it. */
  const describedBy = (locator: Locator) =>
    locator.evaluate((element: DomElement) =>
      (element.getAttribute('aria-describedby') ?? '')
        .split(' ')
        .map((id: string) => element.ownerDocument.getElementById(id)?.textContent ?? '')
        .join(' '),
    );
  const hasFocus = (locator: Locator) => locator.evaluate((element: DomElement) => element === element.ownerDocument.activeElement);
  /** Runs in the page (this project's Node types have no DOM, hence an expression). */
  const clipboardText = async () => String(await page.evaluate('navigator.clipboard.readText()'));
  const exchangeStatus = async (secret: string) => {
    const res = await fetch(`${stack.harness.baseUrl}/v1/auth/exchange`, {
      method: 'POST',
      headers: { Authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ code: 'handoff_made-up-code-that-was-never-issued' }),
    });
    return res.status;
  };
  const tableKeys = () => page.locator('table.platforms-table tbody tr td:first-child').allTextContents();

  it('registers a platform through the form: the key typed in lower case is sent upper-case; the secret is shown once, with Copy', async () => {
    await visible(heading('Platforms'));
    await page.getByRole('link', { name: 'Register a platform' }).click();
    await visible(heading('Register a platform'));

    const key = page.getByLabel(/^Platform key/);
    await key.pressSequentially('e2e_shop');
    expect(await key.inputValue()).toBe(KEY);
    await page.getByLabel(/^Display name/).fill('E2E Shop');
    await page.getByLabel('Callback URL', { exact: true }).fill(`${SHOP}/auth/callback`);
    await page.getByLabel('Return URL 1', { exact: true }).fill(`${SHOP}/`);
    await page.getByRole('button', { name: 'Add return URL' }).click();
    // the new row has the focus: type into it from the keyboard
    await page.keyboard.type(`${SHOP}/account/`);
    expect(await page.getByLabel('Return URL 2', { exact: true }).inputValue()).toBe(`${SHOP}/account/`);
    expect(await page.getByLabel('Onboarding mode', { exact: true }).inputValue()).toBe('central');
    expect(await page.getByLabel('Require a handoff challenge', { exact: true }).isChecked()).toBe(true);
    await page.getByLabel('Metadata (JSON)', { exact: true }).fill('{"team": "checkout", "tier": 2}');
    await expectAccessible(page, 'platform form');
    await screenshots(page, 'admin-platform-form');

    const posted = page.waitForRequest((request) => request.method() === 'POST' && new URL(request.url()).pathname === '/v1/platforms');
    await page.getByRole('button', { name: 'Register platform' }).click();
    expect((await posted).postDataJSON()).toEqual({
      platformKey: KEY,
      displayName: 'E2E Shop',
      callbackUrl: `${SHOP}/auth/callback`,
      allowedReturnUrls: [`${SHOP}/`, `${SHOP}/account/`],
      defaultOnboardingMode: 'central',
      centralOnboardingEnabled: true,
      handoffChallengeRequired: true,
      metadata: { team: 'checkout', tier: 2 },
      active: true,
    });

    await visible(heading('E2E Shop is registered'));
    await visible(page.getByText('You will not see this secret again. Store it now.'));
    firstSecret = await page.getByLabel('Client secret', { exact: true }).inputValue();
    clientId = await page.getByLabel('Client ID', { exact: true }).inputValue();
    expect(firstSecret).toMatch(/^pcs_/);
    expect(clientId).toMatch(/^pc_/);
    // the shown secret is the platform's: the exchange takes it (and refuses only the made-up code)
    expect(await exchangeStatus(firstSecret)).toBe(404);

    await page.getByRole('button', { name: 'Copy client secret' }).click();
    await visible(page.getByRole('status').filter({ hasText: 'Copied the client secret to the clipboard.' }));
    expect(await clipboardText()).toBe(firstSecret);
    await expectAccessible(page, 'secret shown once');
    await screenshots(page, 'admin-platform-secret');

    await page.getByRole('button', { name: 'Continue to the platform' }).click();
    await visible(heading('E2E Shop'));
    expect(pathname()).toBe(`/admin/platforms/${KEY}`);
    await visible(page.getByText('E2E Shop is registered and active.'));
    // the secret is gone: not on the page, in the URL, the history or storage
    expect(await page.content()).not.toContain(firstSecret);
    const kept = String(await page.evaluate('JSON.stringify([history.state, { ...sessionStorage }, { ...localStorage }, location.href])'));
    expect(kept).not.toContain(firstSecret);
    // every property is on the page
    const properties = page.locator('dl.platforms-properties');
    for (const text of [KEY, 'E2E Shop', `${SHOP}/auth/callback`, `${SHOP}/account/`, 'Central', 'Enabled', clientId]) {
      expect(await properties.textContent()).toContain(text);
    }
    expect(JSON.parse((await page.locator('pre.platforms-json').textContent()) ?? '')).toEqual({ team: 'checkout', tier: 2 });
    await expectAccessible(page, 'platform detail');
    await screenshots(page, 'admin-platform-detail');
  });

  it('a refused registration is shown beside the field: a fragment, userinfo, a duplicate key (CONFLICT)', async () => {
    await page.goto(`${stack.url}/admin/platforms/new`);
    await visible(heading('Register a platform'));
    await page.getByLabel(/^Platform key/).pressSequentially('e2e_other');
    await page.getByLabel(/^Display name/).fill('Other shop');
    await page.getByLabel('Callback URL', { exact: true }).fill(`${SHOP}/other/callback`);
    await page.getByLabel('Return URL 1', { exact: true }).fill(`${SHOP}/other/`);
    await page.getByRole('button', { name: 'Add return URL' }).click();
    const second = page.getByLabel('Return URL 2', { exact: true });
    await second.fill(`${SHOP}/other/#top`);
    await page.getByRole('button', { name: 'Register platform' }).click();

    const summary = page.locator('.error-summary');
    await visible(summary);
    expect(await hasFocus(summary)).toBe(true);
    await expect.poll(() => second.getAttribute('aria-invalid')).toBe('true');
    expect(await describedBy(second)).toMatch(/fragment/i);
    expect(await page.getByLabel('Return URL 1', { exact: true }).getAttribute('aria-invalid')).toBeNull();
    await expectAccessible(page, 'form with errors');
    await screenshots(page, 'admin-platform-form-errors');

    await second.fill(`https://user@shop.example.test/other/`);
    await page.getByRole('button', { name: 'Register platform' }).click();
    await expect.poll(() => describedBy(second)).toMatch(/user ?(name|info)/i);
    expect(await second.getAttribute('aria-invalid')).toBe('true');

    // the summary's entry moves the focus to the input
    await summary.getByRole('link', { name: /Return URL 2/ }).click();
    expect(await hasFocus(second)).toBe(true);

    await second.fill(`${SHOP}/other/app/`);
    const key = page.getByLabel(/^Platform key/);
    await key.fill('');
    await key.pressSequentially('e2e_shop');
    await page.getByRole('button', { name: 'Register platform' }).click();
    await expect.poll(() => key.getAttribute('aria-invalid')).toBe('true');
    expect(await describedBy(key)).toContain(`A platform with the key ${KEY} already exists`);
    await visible(summary.filter({ hasText: `the key ${KEY} is taken` }));
    expect(await second.getAttribute('aria-invalid')).toBeNull();
    const stored = await getPlatform(stack.harness.database.db, KEY);
    expect(stored.displayName).toBe('E2E Shop');
  });

  it('edits: changes the name and removes a return URL (only those are sent)', async () => {
    await page.goto(`${stack.url}/admin/platforms/${KEY}`);
    await visible(heading('E2E Shop'));
    await page.getByRole('link', { name: 'Edit', exact: true }).click();
    await visible(heading('Edit E2E Shop'));
    expect(await page.getByLabel(/^Platform key/).getAttribute('readonly')).not.toBeNull();
    await page.getByLabel(/^Display name/).fill('E2E Shop (renamed)');
    await page.getByRole('button', { name: 'Remove return URL 2' }).click();
    const patched = page.waitForRequest((request) => request.method() === 'PATCH');
    await page.getByRole('button', { name: 'Save changes' }).click();
    expect((await patched).postDataJSON()).toEqual({ displayName: 'E2E Shop (renamed)', allowedReturnUrls: [`${SHOP}/`] });
    await visible(heading('E2E Shop (renamed)'));
    await visible(page.getByText('Saved: display name and allowed return URLs changed.'));
    expect(await page.locator('dl.platforms-properties').textContent()).not.toContain(`${SHOP}/account/`);
    const stored = await getPlatform(stack.harness.database.db, KEY);
    expect(stored.allowedReturnUrls).toEqual([`${SHOP}/`]);
  });

  it('deactivates and activates after a confirmation that says what happens', async () => {
    await page.getByRole('button', { name: 'Deactivate' }).click();
    const dialog = page.getByRole('dialog', { name: 'Deactivate E2E Shop (renamed)?' });
    await visible(dialog);
    expect(await dialog.textContent()).toContain('Sign-ins for this platform stop at once, and so do its handoff exchanges');
    await expectAccessible(page, 'deactivate dialog');
    // Escape cancels
    await page.keyboard.press('Escape');
    await expect.poll(() => dialog.isVisible()).toBe(false);
    expect((await getPlatform(stack.harness.database.db, KEY)).active).toBe(true);

    await page.getByRole('button', { name: 'Deactivate' }).click();
    await dialog.getByRole('button', { name: 'Deactivate' }).click();
    await visible(page.getByText(/is inactive: sign-ins and handoff exchanges for it are refused/));
    expect((await getPlatform(stack.harness.database.db, KEY)).active).toBe(false);
    // the exchange refuses the inactive platform even with its valid secret, as it refuses a wrong
    // one (401 INVALID_CLIENT_CREDENTIALS, one credential check for every Basic route)
    expect(await exchangeStatus(firstSecret)).toBe(401);

    await page.getByRole('button', { name: 'Activate' }).click();
    const activate = page.getByRole('dialog', { name: 'Activate E2E Shop (renamed)?' });
    await visible(activate);
    expect(await activate.textContent()).toContain('resume');
    await expectAccessible(page, 'activate dialog');
    await activate.getByRole('button', { name: 'Activate' }).click();
    await visible(page.getByText(/is active: sign-ins and handoff exchanges for it work again/));
    expect((await getPlatform(stack.harness.database.db, KEY)).active).toBe(true);
  });

  it('rotates the credentials after a warning; the new secret is shown once and the old one stops working at once', async () => {
    await page.getByRole('button', { name: 'Rotate credentials' }).click();
    const dialog = page.getByRole('dialog', { name: /Rotate the client secret of/ });
    await visible(dialog);
    expect(await dialog.textContent()).toContain('The current secret stops working at once.');
    const confirm = dialog.getByRole('button', { name: 'Rotate credentials' });
    expect(await confirm.isDisabled()).toBe(true);
    await dialog.getByLabel(`Type ${KEY} to confirm`, { exact: true }).fill(KEY);
    await expectAccessible(page, 'rotate dialog');
    await screenshots(page, 'admin-platform-rotate-dialog');
    await confirm.click();

    const panel = page.getByRole('region', { name: 'New client secret' });
    await visible(panel);
    await visible(panel.getByText('You will not see this secret again. Store it now.'));
    const secret = await panel.getByLabel('Client secret', { exact: true }).inputValue();
    expect(secret).toMatch(/^pcs_/);
    expect(secret).not.toBe(firstSecret);
    expect(await panel.getByLabel('Client ID', { exact: true }).inputValue()).toBe(clientId);
    await panel.getByRole('button', { name: 'Copy client secret' }).click();
    await visible(page.getByRole('status').filter({ hasText: 'Copied the client secret to the clipboard.' }));
    expect(await clipboardText()).toBe(secret);

    expect(await exchangeStatus(firstSecret)).toBe(401);
    expect(await exchangeStatus(secret)).toBe(404);

    await panel.getByRole('button', { name: 'I have stored it' }).click();
    await expect.poll(() => panel.count()).toBe(0);
    expect(await page.content()).not.toContain(secret);
  });

  it("lists the platform's audit events, newest first", async () => {
    const audit = page.getByRole('region', { name: 'Audit events' });
    await expect
      .poll(async () => audit.locator('tbody tr td:nth-child(2)').allTextContents())
      .toEqual(['Client secret rotated', 'Activated', 'Deactivated', 'Updated', 'Registered']);
    const rows = audit.locator('tbody tr');
    expect(await rows.nth(0).locator('td').nth(2).textContent()).toBe('You');
    expect(await rows.nth(0).locator('td').nth(3).textContent()).toBe('clientSecret');
    expect(await rows.nth(3).locator('td').nth(3).textContent()).toBe('displayNameallowedReturnUrls');
  });

  it('searches on the server and pages with Next and Previous (50 a page)', async () => {
    await page.locator('.platforms-back').getByRole('link', { name: 'All platforms' }).click();
    await visible(heading('Platforms'));
    await expect.poll(async () => (await tableKeys()).length).toBe(50);
    const first = await tableKeys();
    expect(first.slice(0, 3)).toEqual(['ACCOUNT_CENTER', KEY, 'SEED_01']);
    expect(first.at(-1)).toBe('SEED_48');
    await expectAccessible(page, 'platform list');
    await screenshots(page, 'admin-platforms-list');

    await page.getByRole('button', { name: 'Next page' }).click();
    await expect.poll(() => tableKeys()).toEqual(Array.from({ length: 12 }, (_, i) => `SEED_${i + 49}`));
    await visible(page.getByText('Page 2: platforms 51 to 62 (the last page).'));
    expect(await page.getByRole('button', { name: 'Next page' }).isDisabled()).toBe(true);
    await page.getByRole('button', { name: 'Previous page' }).click();
    await expect.poll(() => tableKeys()).toEqual(first);

    const box = page.getByRole('searchbox', { name: 'Search by key or name' });
    await box.fill('SEEDED PLATFORM 1');
    await box.press('Enter');
    await expect.poll(() => tableKeys()).toEqual(Array.from({ length: 10 }, (_, i) => `SEED_${i + 10}`));
    expect(new URL(page.url()).searchParams.get('q')).toBe('SEEDED PLATFORM 1');

    await box.fill('e2e_');
    await box.press('Enter');
    await expect.poll(() => tableKeys()).toEqual([KEY]);

    // paging within a search: 60 seeded match "seed", 50 then 10
    await box.fill('seed');
    await box.press('Enter');
    await expect.poll(async () => (await tableKeys()).length).toBe(50);
    await page.getByRole('button', { name: 'Next page' }).click();
    await expect.poll(() => tableKeys()).toEqual(Array.from({ length: 10 }, (_, i) => `SEED_${i + 51}`));

    // the status filter starts the search again at page 1
    await page.getByRole('combobox', { name: 'Status' }).selectOption('inactive');
    await expect.poll(() => tableKeys()).toEqual(['SEED_10', 'SEED_20', 'SEED_30', 'SEED_40', 'SEED_50', 'SEED_60']);

    await box.fill('no such platform');
    await box.press('Enter');
    await visible(page.getByText('No platform matches “no such platform” among the inactive ones.'));
    await expectAccessible(page, 'platform list, nothing found');

    // each row links to its platform
    await page.getByRole('button', { name: 'Clear the search' }).click();
    await page.getByRole('link', { name: 'SEED_20' }).click();
    await visible(heading('Seeded platform 20'));
    // the browser logs each refused request (the 400s and the 409 above); nothing else may fail
    expect(errors.filter((error) => !/status of (400|409)/.test(error))).toEqual([]);
  });

  it('on a 390 px phone the list shows every column of every platform without a sideways scroll', async () => {
    const { context, page } = await stack.newPage({ width: 390, height: 900 });
    await signIn(stack, page, '/admin/platforms', USERS.admin);
    const table = page.getByRole('table', { name: /^Platforms, page 1/ });
    await table.waitFor();
    const region = page.getByRole('region', { name: /^Platforms, page 1/ });
    expect(await region.evaluate((element) => element.scrollWidth - element.clientWidth)).toBeLessThanOrEqual(0);
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    // Each value is on screen with its column's name beside it.
    const row = table.getByRole('row').filter({ has: page.getByRole('link', { name: 'ACCOUNT_CENTER' }) });
    for (const cell of await row.getByRole('cell').all()) {
      const box = (await cell.boundingBox())!;
      expect(box.x + box.width).toBeLessThanOrEqual(390);
    }
    expect(await row.getByRole('cell').nth(2).evaluate((cell) => cell.getAttribute('data-label'))).toBe('Mode');
    await expectAccessible(page, 'platform list at 390 px');
    await screenshots(page, 'admin-platforms-list');
    await context.close();
  });

  it('in German (the browser asks for de-DE) at 390 px: the list and a platform by their German labels, without a sideways scroll, axe clean', async () => {
    const { context, page } = await stack.newPage({ width: 390, height: 900, locale: 'de-DE' });
    await signIn(stack, page, '/admin/platforms', USERS.admin);
    await page.getByRole('heading', { name: 'Plattformen', level: 1 }).waitFor();
    await page.getByRole('table', { name: /^Plattformen, Seite 1/ }).waitFor();
    expect(await page.getByLabel('Nach Schlüssel oder Name suchen').count()).toBe(1);
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    await expectAccessible(page, 'platform list in German at 390 px');
    await page.getByRole('link', { name: KEY }).click();
    await page.getByRole('heading', { name: 'Einstellungen' }).waitFor();
    await page.getByRole('button', { name: 'Zugangsdaten erneuern' }).waitFor();
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    await expectAccessible(page, 'platform page in German at 390 px');
    await screenshots(page, 'admin-platform-detail-de');
    await page.getByRole('link', { name: 'Bearbeiten', exact: true }).click();
    await page.getByRole('textbox', { name: 'Rücksprung-URL 1' }).waitFor();
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    await expectAccessible(page, 'platform form in German at 390 px');
    await screenshots(page, 'admin-platform-edit-de');
    await context.close();
  });

  it('someone without platforms:admin who opens /admin/platforms is told the page needs administrator rights', async () => {
    const { context: other, page: alice } = await stack.newPage();
    await alice.goto(`${stack.url}/admin/platforms`);
    await alice.getByLabel('Username').fill(USERS.alice.username);
    await alice.getByLabel('Password').fill(USERS.alice.password);
    await alice.getByRole('button', { name: 'Sign in' }).click();
    await alice.waitForURL((url) => url.origin === stack.url && url.pathname === '/admin/platforms');
    await alice.getByRole('heading', { name: 'You need administrator rights for this page', level: 1 }).waitFor();
    expect(await alice.getByRole('link', { name: 'Platforms' }).count()).toBe(0);
    await expectAccessible(alice, 'admin page without the permission');
    await alice.getByRole('link', { name: 'Go to the home page' }).click();
    await alice.waitForURL(`${stack.url}/`);
    await other.close();
  });
});
