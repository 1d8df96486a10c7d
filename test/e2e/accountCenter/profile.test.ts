// The account center's /profile in Chromium, against the real stack (PostgreSQL, the dev
// identity provider with its account adapter, the gateway, the account center's server): the
// profile edited by labels, a refusal beside its input, a real PNG uploaded through the ticket
// and removed, the sign-in methods, a password change and a sign-in with the new password, the
// platforms with their onboarding status, and, last, the account deleted.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import type { Locator, Page } from 'playwright-core';
import { collectPageErrors, expectAccessible, hasChromium, screenshots, signIn, startAccountCenterStack, USERS, type AccountCenterStack } from '../../helpers/accountCenter.ts';
import { addPlatform, browserLogin } from '../../helpers/flowHarness.ts';
import { createFieldDefinition } from '../../../src/services/onboarding/schema.ts';
import { CLI_ACTOR } from '../../../src/services/registry/index.ts';

const NEW_PASSWORD = 'Wonderland-2025!';

describe.skipIf(!hasChromium)(`account center /profile in Chromium${hasChromium ? '' : ' (skipped: /usr/bin/chromium is not installed)'}`, () => {
  let stack: AccountCenterStack;
  /** alice's password at the dev provider (changed by the password test). */
  let alicePassword: string = USERS.alice.password;

  beforeAll(async () => {
    stack = await startAccountCenterStack();
  });
  afterAll(async () => {
    await stack?.close();
  });

  /** A fresh browser signed in as alice, on /profile with the profile loaded. */
  async function openProfile() {
    const { context, page } = await stack.newPage();
    const errors = collectPageErrors(page);
    await signIn(stack, page, '/profile', { username: 'alice', password: alicePassword });
    await page.getByRole('heading', { name: 'Your profile', level: 1 }).waitFor();
    await page.getByLabel('First name').waitFor();
    return { context, page, errors };
  }

  const details = (page: Page) => page.getByRole('region', { name: 'Personal details' });

  // This file is type-checked without the DOM library: page-side code goes through locators,
  // or is given as a string.

  /** The texts that describe an input (aria-describedby), joined by " | ". */
  async function describedText(page: Page, input: Locator): Promise<string> {
    const ids = ((await input.getAttribute('aria-describedby')) ?? '').split(' ').filter(Boolean);
    const texts = await Promise.all(ids.map((id) => page.locator(`[id="${id}"]`).textContent()));
    return texts.join(' | ');
  }

  const isFocused = (locator: Locator) => locator.evaluate((element) => element === element.ownerDocument.activeElement);

  it('edits the profile by labels; the phone comes back in E.164, the country by its name; saved for good', async () => {
    const { context, page, errors } = await openProfile();
    const form = details(page);
    await form.getByLabel('First name').fill('Alice');
    await form.getByLabel('Last name').fill('Liddell');
    await form.getByLabel('Display name').fill('Alice in Wonderland');
    await form.getByLabel('Date of birth').fill('1952-05-04');
    await form.getByLabel('Phone').fill('+44 20 7183 8750');
    await form.getByLabel('Country').pressSequentially('Netherlands');
    await form.getByLabel('Language').fill('en-GB');
    await form.getByRole('button', { name: 'Save profile' }).click();
    await form.getByText('Your profile was saved.').waitFor();
    expect(await form.getByLabel('Phone').inputValue()).toBe('+442071838750');
    // the frame shows the new display name
    await expect.poll(() => page.locator('.account-name').textContent()).toBe('Alice in Wonderland');

    await page.reload();
    await details(page).getByLabel('First name').waitFor();
    const saved = details(page);
    expect(await saved.getByLabel('First name').inputValue()).toBe('Alice');
    expect(await saved.getByLabel('Last name').inputValue()).toBe('Liddell');
    expect(await saved.getByLabel('Display name').inputValue()).toBe('Alice in Wonderland');
    expect(await saved.getByLabel('Date of birth').inputValue()).toBe('1952-05-04');
    expect(await saved.getByLabel('Phone').inputValue()).toBe('+442071838750');
    expect(await saved.getByLabel('Country').inputValue()).toBe('Netherlands');
    expect(await saved.getByLabel('Language').inputValue()).toBe('en-GB');
    const { rows } = await stack.harness.database.db.raw(`SELECT p.phone, p.country, p.locale FROM profiles p JOIN users u ON u.id = p.user_id WHERE u.sub = 'dev-user-alice'`);
    expect(rows[0]).toEqual({ phone: '+442071838750', country: 'NL', locale: 'en-GB' });

    await page.getByRole('region', { name: 'Sign-in methods' }).getByRole('rowheader', { name: 'Password' }).waitFor();
    await expectAccessible(page, 'profile');
    await screenshots(page, 'profile');
    // usable from 360 px: nothing wider than the screen
    await page.setViewportSize({ width: 360, height: 800 });
    expect(await page.locator('html').evaluate((html) => html.scrollWidth)).toBeLessThanOrEqual(360);
    expect(errors).toEqual([]);
    await context.close();
  }, 60_000);

  it('a refused value is shown beside its input, the message above takes the focus, what was typed stays and nothing is saved', async () => {
    const { context, page, errors } = await openProfile();
    const form = details(page);
    await form.getByLabel('Phone').fill('+1234');
    await form.getByLabel('Last name').fill('Changed');
    await form.getByRole('button', { name: 'Save profile' }).click();
    const summary = page.getByRole('alert').filter({ hasText: 'Your profile was not saved' });
    await summary.waitFor();
    await expect.poll(() => isFocused(page.locator('.error-summary'))).toBe(true);
    const phone = form.getByLabel('Phone');
    expect(await phone.getAttribute('aria-invalid')).toBe('true');
    expect(await describedText(page, phone)).toMatch(/^Enter a valid phone number in international format/);
    expect(await phone.inputValue()).toBe('+1234');
    expect(await form.getByLabel('Last name').inputValue()).toBe('Changed');
    // the summary's link leads to the input
    await summary.getByRole('link', { name: /^Phone:/ }).click();
    expect(await isFocused(phone)).toBe(true);

    await expectAccessible(page, 'profile with errors');
    await screenshots(page, 'profile-errors');
    const { rows } = await stack.harness.database.db.raw(`SELECT p.phone, p.last_name FROM profiles p JOIN users u ON u.id = p.user_id WHERE u.sub = 'dev-user-alice'`);
    expect(rows[0]).toEqual({ phone: '+442071838750', last_name: 'Liddell' });
    expect(errors.filter((error) => !/status of 400/.test(error))).toEqual([]);
    await context.close();
  }, 60_000);

  it('uploads a real PNG through the file input (preview first), shows the new picture, and removes it after a confirmation', async () => {
    const { context, page, errors } = await openProfile();
    const region = page.getByRole('region', { name: 'Profile picture' });
    await region.getByRole('img', { name: /No picture yet/ }).waitFor();
    const input = region.getByLabel('Choose a picture');
    expect(await input.getAttribute('accept')).toBe('image/png,image/jpeg,image/webp');

    // refused here: not a picture type
    await input.setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('hello') });
    await region.getByText('“notes.txt” is not a PNG, JPEG or WebP picture.', { exact: false }).waitFor();

    // refused here too: named and typed as a PNG, but Chromium cannot show it (no broken preview)
    await input.setInputFiles({ name: 'broken.png', mimeType: 'image/png', buffer: Buffer.from('not really a picture') });
    await region.getByText('“broken.png” could not be shown as a picture', { exact: false }).waitFor();
    expect(await region.getByRole('img', { name: 'Preview of the chosen picture' }).count()).toBe(0);
    expect(await region.getByRole('button', { name: 'Upload picture' }).count()).toBe(0);

    const png = await sharp({ create: { width: 640, height: 480, channels: 3, background: { r: 200, g: 40, b: 90 } } }).png().toBuffer();
    await input.setInputFiles({ name: 'alice.png', mimeType: 'image/png', buffer: png });
    const preview = region.getByRole('img', { name: 'Preview of the chosen picture' });
    await preview.waitFor();
    expect(await preview.getAttribute('src')).toMatch(/^blob:/);
    expect(await region.getByText('“notes.txt”', { exact: false }).count()).toBe(0);

    const ticket = page.waitForResponse((response) => response.request().method() === 'POST' && response.url().endsWith('/v1/profile/me/avatar/upload-request'));
    await region.getByRole('button', { name: 'Upload picture' }).click();
    const { pictureUrl } = (await (await ticket).json()) as { pictureUrl: string };
    await region.getByText('Your new picture is saved.').waitFor();
    const picture = region.getByRole('img', { name: 'Your profile picture' });
    await picture.waitFor();
    expect(await picture.getAttribute('src')).toBe(pictureUrl);
    await expect.poll(() => picture.evaluate((image) => {
      const loaded = image as unknown as { complete: boolean; naturalWidth: number };
      return loaded.complete ? loaded.naturalWidth : 0;
    })).toBeGreaterThan(0);
    expect(await page.locator('img[src^="blob:"]').count()).toBe(0);

    await region.getByRole('button', { name: 'Remove picture' }).click();
    const dialog = page.getByRole('dialog', { name: 'Remove your picture?' });
    await dialog.waitFor();
    await expectAccessible(page, 'remove picture dialog');
    await dialog.getByRole('button', { name: 'Remove picture' }).click();
    await region.getByText('Your picture was removed.').waitFor();
    await region.getByRole('img', { name: /No picture yet/ }).waitFor();
    expect(await (await fetch(pictureUrl)).status).toBe(404);
    expect(errors).toEqual([]);
    await context.close();
  }, 60_000);

  it('lists the platforms with their onboarding status and a way to complete it', async () => {
    const platform = await addPlatform(stack.harness);
    await createFieldDefinition(stack.harness.database.db, platform.key, { fieldKey: 'company', label: 'Company', fieldType: 'TEXT', required: true }, CLI_ACTOR);
    await browserLogin(stack.harness, platform.key, { username: 'alice', password: alicePassword });

    const { context, page, errors } = await openProfile();
    const region = page.getByRole('region', { name: 'Your platforms' });
    const row = region.getByRole('row').filter({ hasText: platform.key });
    await row.waitFor();
    expect(await row.getByRole('rowheader').textContent()).toBe(`Platform ${platform.key}`);
    expect(await row.locator('.badge').textContent()).toMatch(/^(Not started|In progress)$/);
    expect(await row.locator('td[data-label="Missing required fields"]').textContent()).toBe('1');
    const link = row.getByRole('link', { name: `Complete onboarding for Platform ${platform.key}` });
    expect(await link.getAttribute('href')).toBe(`/onboarding/${platform.key}`);
    expect(await region.getByRole('row').filter({ hasText: 'ACCOUNT_CENTER' }).count()).toBe(1);
    await region.scrollIntoViewIfNeeded();
    await screenshots(page, 'profile-platforms');
    expect(errors).toEqual([]);
    await context.close();
  }, 60_000);

  it('changes the password: a wrong current one and a policy refusal are said beside their inputs; then the new one signs in', async () => {
    const { context, page } = await openProfile();
    const region = page.getByRole('region', { name: 'Change your password' });
    const current = region.getByLabel('Current password');
    const next = region.getByLabel('New password');
    expect(await current.getAttribute('autocomplete')).toBe('current-password');
    expect(await next.getAttribute('autocomplete')).toBe('new-password');
    const described = (locator: Locator) => describedText(page, locator);

    await current.fill('not-my-password');
    await next.fill(NEW_PASSWORD);
    await region.getByRole('button', { name: 'Change password' }).click();
    await expect.poll(() => described(current)).toBe('The current password is not correct.');

    await current.fill(alicePassword);
    await next.fill('alice-in-chains');
    await region.getByRole('button', { name: 'Change password' }).click();
    await expect.poll(() => described(next)).toMatch(/^Password must not contain the username\./);
    await expectAccessible(page, 'password errors');

    await current.fill(alicePassword);
    await next.fill(NEW_PASSWORD);
    await region.getByRole('button', { name: 'Change password' }).click();
    await region.getByText('Your password was changed.').waitFor();
    expect(await current.inputValue()).toBe('');
    expect(await next.inputValue()).toBe('');
    // the passwords went nowhere but the request body
    expect(page.url()).not.toMatch(/password/i);
    expect(await page.evaluate<string>('JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage })')).not.toContain(NEW_PASSWORD);
    alicePassword = NEW_PASSWORD;

    // Two more wrong attempts in the minute, then the limit (5 a minute): its message with the seconds.
    for (let attempt = 0; attempt < 3; attempt += 1) {
      await current.fill('still-wrong');
      await next.fill('Another-new-one-1');
      const answered = page.waitForResponse((response) => response.request().method() === 'POST' && response.url().endsWith('/v1/account/password'));
      await region.getByRole('button', { name: 'Change password' }).click();
      await answered;
    }
    await expect.poll(() => page.getByRole('alert').filter({ hasText: 'Too many attempts' }).textContent()).toMatch(/^Too many attempts; try again in \d+ seconds?\.$/);
    await context.close();

    // A fresh browser signs in with the new password.
    const fresh = await openProfile();
    expect(new URL(fresh.page.url()).pathname).toBe('/profile');
    await fresh.context.close();
  }, 90_000);

  it('deletes the account after the typed confirmation and ends signed out; the provider refuses alice afterwards', async () => {
    const { context, page } = await openProfile();
    await page.getByRole('button', { name: 'Delete my account…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete your account?' });
    await dialog.waitFor();
    const confirm = dialog.getByRole('button', { name: 'Delete my account' });
    expect(await confirm.isDisabled()).toBe(true);
    await dialog.getByLabel('Type DELETE to confirm').fill('delete');
    expect(await confirm.isDisabled()).toBe(true);
    await expectAccessible(page, 'delete dialog');
    await screenshots(page, 'profile-delete-dialog');
    await dialog.getByLabel('Type DELETE to confirm').fill('DELETE');
    await confirm.click();

    await page.waitForURL(`${stack.url}/signed-out`);
    await page.getByRole('heading', { name: 'Your account was deleted' }).waitFor();
    await page.getByRole('banner').getByRole('link', { name: 'Sign in' }).waitFor();
    expect(await page.getByRole('link', { name: 'Sign out' }).count()).toBe(0);
    const { rows } = await stack.harness.database.db.raw(`SELECT deleted_at FROM users WHERE sub = 'dev-user-alice'`);
    expect(rows[0].deleted_at).toBeInstanceOf(Date);

    // /profile needs a sign-in again, and the provider refuses the deactivated account.
    await page.goto(`${stack.url}/profile`);
    await page.getByLabel('Username').fill('alice');
    await page.getByLabel('Password').fill(alicePassword);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('This account has been deactivated.').waitFor();
    await context.close();
  }, 60_000);
});
