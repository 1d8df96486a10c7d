// The onboarding schema editor (/admin/onboarding) in Chromium, on the whole stack: an
// administrator adds a required SELECT field to a central-mode platform through the form,
// sees the live preview and the dry run's impact (alice had completed onboarding: "1 person"),
// confirms; alice's next login goes back through onboarding. Then an edit, a reorder, an
// archive, "Show archived", two refused creates, a read-only caller, axe and screenshots.
// The tests of this file run in order and build on each other (one platform, one story).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { collectPageErrors, expectAccessible, hasChromium, screenshots, signIn, startAccountCenterStack, USERS, type AccountCenterStack } from '../../helpers/accountCenter.ts';
import { createPlatform, CLI_ACTOR } from '../../../src/services/registry/index.ts';
import { createFieldDefinition } from '../../../src/services/onboarding/schema.ts';

const PLATFORM = 'SCHEMA_EDITOR_E2E';
const PLATFORM_NAME = 'Schema demo';
const PLATFORM_ORIGIN = 'https://bff.example.test';
/** Chromium, axe-core and a whole login per step: more than the default 30 s on a busy machine. */
const SLOW = 90_000;
/** A required input's accessible name: its label and "(required)". */
const required = (label: string) => new RegExp(`^${label}\\s*\\(required\\)$`);

describe.skipIf(!hasChromium)(`onboarding schema editor in Chromium${hasChromium ? '' : ' (skipped: /usr/bin/chromium is not installed)'}`, () => {
  let stack: AccountCenterStack;
  let admin: { context: BrowserContext; page: Page; errors: string[] };
  let alice: { context: BrowserContext; page: Page };

  beforeAll(async () => {
    stack = await startAccountCenterStack();
    const db = stack.harness.database.db;
    await createPlatform(db, {
      platformKey: PLATFORM,
      displayName: PLATFORM_NAME,
      callbackUrl: `${PLATFORM_ORIGIN}/auth/callback`,
      allowedReturnUrls: [`${PLATFORM_ORIGIN}/`],
      defaultOnboardingMode: 'central',
      centralOnboardingEnabled: true,
      // No platform back end runs here to hold a handoff verifier.
      handoffChallengeRequired: false,
    }, CLI_ACTOR);
    await createFieldDefinition(db, PLATFORM, { fieldKey: 'company', label: 'Company', fieldType: 'TEXT', required: true, sortOrder: 10 }, CLI_ACTOR);
    await createFieldDefinition(db, PLATFORM, { fieldKey: 'newsletter', label: 'Newsletter', fieldType: 'BOOLEAN', sortOrder: 20 }, CLI_ACTOR);

    alice = await stack.newPage();
    const adminSession = await stack.newPage();
    admin = { ...adminSession, errors: collectPageErrors(adminSession.page) };
  });
  afterAll(async () => {
    await stack?.close();
  });

  /**
   * A login for the platform, as its users start one: where does the gateway send the browser
   * in the end, the account center (onboarding) or the platform? The platform's back end does
   * not run here, so its navigation fails: the request tells where it went.
   */
  async function platformLogin(page: Page): Promise<URL> {
    const start = new URL('/v1/auth/start', stack.harness.baseUrl);
    start.searchParams.set('platformKey', PLATFORM);
    start.searchParams.set('returnTo', `${PLATFORM_ORIGIN}/home`);
    const landed = page.waitForRequest((request) => request.isNavigationRequest() && (request.url().startsWith(stack.url) || request.url().startsWith(PLATFORM_ORIGIN)));
    await page.goto(start.href).catch(() => undefined);
    if (page.url().startsWith(stack.harness.idp.issuer)) {
      await page.getByLabel('Username').fill(USERS.alice.username);
      await page.getByLabel('Password').fill(USERS.alice.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
    }
    const url = new URL((await landed).url());
    if (url.href.startsWith(stack.url)) await page.waitForURL(url.href);
    return url;
  }

  /** What the account center's onboarding page does: write the values and complete, with the browser session. */
  async function completeOnboarding(page: Page, values: Record<string, unknown>): Promise<string> {
    return page.evaluate(async ({ gateway, platform, values: body }) => {
      const options = (method: string, json?: unknown): RequestInit => ({
        method, credentials: 'include', headers: json === undefined ? {} : { 'Content-Type': 'application/json' }, body: json === undefined ? undefined : JSON.stringify(json),
      });
      const put = await fetch(`${gateway}/v1/onboarding/${platform}/values`, options('PUT', { values: body }));
      if (!put.ok) return `values ${put.status}`;
      const complete = await fetch(`${gateway}/v1/onboarding/${platform}/complete`, options('POST'));
      return ((await complete.json()) as { status: string }).status;
    }, { gateway: stack.harness.baseUrl, platform: PLATFORM, values });
  }

  /** Usable from 360 px: nothing wider than the screen (no sideways scrolling). */
  async function expectFitsNarrowScreen(page: Page, context: string): Promise<void> {
    const original = page.viewportSize();
    await page.setViewportSize({ width: 360, height: 800 });
    expect(await page.evaluate('document.documentElement.scrollWidth'), context).toBeLessThanOrEqual(360);
    if (original) await page.setViewportSize(original);
  }

  /**
   * How far the widest option of a select runs past the room its box leaves for text (its
   * padding and the arrow taken off), measured in its own font: > 0 cuts the option off.
   */
  async function optionOverflow(page: Page, label: string): Promise<number> {
    const id = await page.getByRole('combobox', { name: label }).getAttribute('id');
    return page.evaluate(`(() => {
      const select = document.getElementById(${JSON.stringify(id)});
      const style = getComputedStyle(select);
      const context = document.createElement('canvas').getContext('2d');
      context.font = style.font;
      const widest = Math.max(...[...select.options].map((option) => context.measureText(option.text).width));
      return widest - (select.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - 24);
    })()`);
  }

  const fieldTitles = (page: Page) => page.locator('.oa-field-title').evaluateAll((headings) => headings.map((heading) => heading.firstChild?.textContent ?? ''));
  const version = (page: Page) => page.getByTestId('requirement-version').textContent();

  it('seeds a person who completed onboarding: alice, through a login of the platform', async () => {
    const first = await platformLogin(alice.page);
    expect(`${first.origin}${first.pathname}`).toBe(`${stack.url}/onboarding/${PLATFORM}`);
    expect(first.searchParams.get('resume')).toBeTruthy();
    expect(await completeOnboarding(alice.page, { company: 'Acme' })).toBe('COMPLETE');
    // Complete: the next login goes straight to the platform.
    const next = await platformLogin(alice.page);
    expect(next.origin).toBe(PLATFORM_ORIGIN);
  }, SLOW);

  it('the administrator chooses the platform and sees its form: fields in order, the requirement version', async () => {
    const { page } = admin;
    await signIn(stack, page, '/admin/onboarding', USERS.admin);
    await page.getByRole('heading', { name: 'Onboarding forms', level: 1 }).waitFor();
    await page.getByRole('link', { name: PLATFORM_NAME }).click();
    await page.getByRole('heading', { name: `Onboarding form: ${PLATFORM_NAME}`, level: 1 }).waitFor();
    await page.getByRole('heading', { name: /^Company/, level: 3 }).waitFor();
    expect(await version(page)).toBe('3');
    expect(await fieldTitles(page)).toEqual(['Company', 'Newsletter']);
    // The whole form, as people see it.
    const preview = page.getByRole('region', { name: 'Preview of the form' });
    expect(await preview.getByRole('textbox', { name: required('Company') }).isVisible()).toBe(true);
    expect(await preview.getByRole('checkbox', { name: 'Newsletter' }).isVisible()).toBe(true);
    await expectAccessible(page, 'the platform’s form');
  }, SLOW);

  it('adds a required SELECT field through the form, with the live preview and the dry run’s impact', async () => {
    const { page } = admin;
    await page.getByRole('link', { name: 'Add a field' }).click();
    await page.getByRole('heading', { name: 'Add a field', level: 1 }).waitFor();
    await page.getByRole('textbox', { name: required('Field key') }).fill('teamSize');
    await page.getByRole('textbox', { name: required('Label') }).fill('Team size');
    await page.getByRole('combobox', { name: 'Type' }).selectOption('SELECT');
    const options = [['small', '1 to 10'], ['medium', '11 to 50'], ['large', 'More than 50']] as const;
    for (const [index, [value, label]] of options.entries()) {
      if (index > 0) await page.getByRole('button', { name: 'Add an option' }).click();
      await page.getByRole('textbox', { name: `Value of option ${index + 1}` }).fill(value);
      await page.getByRole('textbox', { name: `Label of option ${index + 1}` }).fill(label);
    }
    await page.getByRole('checkbox', { name: 'Required' }).check();
    await page.getByRole('combobox', { name: 'Width' }).selectOption('half');
    await page.getByRole('textbox', { name: 'Help text' }).fill('Roughly how many people use the platform.');

    // The live preview: the field as people will see it, with FieldInput.
    const preview = page.getByRole('complementary', { name: 'Preview' });
    const select = preview.getByRole('combobox', { name: required('Team size') });
    await select.waitFor();
    expect(await select.locator('option').allTextContents()).toEqual(['Choose…', '1 to 10', '11 to 50', 'More than 50']);
    expect(await preview.getByText('Roughly how many people use the platform.').isVisible()).toBe(true);
    await expectAccessible(page, 'the field form');
    await expectFitsNarrowScreen(page, 'the field form');
    // Every type reads whole in its select, on a phone too; the API's name is in the description.
    await page.setViewportSize({ width: 390, height: 900 });
    expect(await optionOverflow(page, 'Type')).toBeLessThanOrEqual(0);
    await page.setViewportSize({ width: 1280, height: 900 });
    expect(await optionOverflow(page, 'Type')).toBeLessThanOrEqual(0);
    expect(await page.getByText('The input people fill in (SELECT in the API).').isVisible()).toBe(true);
    await page.evaluate('window.scrollTo(0, 0)');
    await screenshots(page, 'admin-onboarding-form');

    await page.getByRole('button', { name: 'Add the field' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add “Team size”?' });
    await dialog.waitFor();
    expect(await dialog.getByText('1 person who completed onboarding will be asked again; the requirement version becomes 4.').isVisible()).toBe(true);
    await expectAccessible(page, 'the impact dialog');
    await page.evaluate('window.scrollTo(0, 0)');
    await screenshots(page, 'admin-onboarding-impact');

    await dialog.getByRole('button', { name: 'Add the field' }).click();
    await page.getByText('The field “Team size” was added.').waitFor();
    await page.getByRole('heading', { name: /^Team size/, level: 3 }).waitFor();
    expect(await version(page)).toBe('4');
    expect(await fieldTitles(page)).toEqual(['Company', 'Newsletter', 'Team size']);
    await expectAccessible(page, 'the platform’s form after the change');
    await expectFitsNarrowScreen(page, 'the platform’s form');
    await screenshots(page, 'admin-onboarding-list');
  }, SLOW);

  it('alice’s next login goes back through onboarding', async () => {
    const next = await platformLogin(alice.page);
    expect(`${next.origin}${next.pathname}`).toBe(`${stack.url}/onboarding/${PLATFORM}`);
    expect(next.searchParams.get('resume')).toBeTruthy();
  }, SLOW);

  it('edits a field’s label', async () => {
    const { page } = admin;
    await page.getByRole('link', { name: 'Edit Company' }).click();
    const label = page.getByRole('textbox', { name: required('Label') });
    await label.waitFor();
    expect(await page.getByRole('textbox', { name: 'Field key' }).getAttribute('readonly')).not.toBeNull();
    await label.fill('Company name');
    await page.getByRole('button', { name: 'Save the changes' }).click();
    const dialog = page.getByRole('dialog', { name: 'Save the changes to “Company”?' });
    await dialog.waitFor();
    expect(await dialog.getByText('Changes: label.').isVisible()).toBe(true);
    // Nobody had completed version 4 yet.
    expect(await dialog.getByText('Nobody who completed onboarding will be asked again; the requirement version becomes 5.').isVisible()).toBe(true);
    await dialog.getByRole('button', { name: 'Save the changes' }).click();
    await page.getByText('The field “Company name” was saved.').waitFor();
    await page.getByRole('heading', { name: /^Company name/, level: 3 }).waitFor();
    expect(await version(page)).toBe('5');
  }, SLOW);

  it('reorders two fields: the confirmation says the version rises too', async () => {
    const { page } = admin;
    await page.getByRole('button', { name: 'Move up Team size' }).click();
    const dialog = page.getByRole('dialog', { name: 'Move “Team size” up?' });
    await dialog.waitFor();
    expect(await dialog.getByText('It will come above “Newsletter”.').isVisible()).toBe(true);
    expect(await dialog.getByText(/Reordering changes the form too/).isVisible()).toBe(true);
    expect(await dialog.getByText(/the requirement version becomes 6\./).isVisible()).toBe(true);
    await dialog.getByRole('button', { name: 'Move the field' }).click();
    await page.getByText(/was moved up/).waitFor();
    expect(await fieldTitles(page)).toEqual(['Company name', 'Team size', 'Newsletter']);
    expect(await version(page)).toBe('6');
    // The focus stays with the field that moved.
    expect(await page.evaluate('document.activeElement?.textContent')).toBe('Move up Team size');
  }, SLOW);

  it('archives a field after confirming; “Show archived fields” shows it again', async () => {
    const { page } = admin;
    await page.getByRole('button', { name: 'Archive Newsletter' }).click();
    const dialog = page.getByRole('dialog', { name: 'Archive “Newsletter”?' });
    await dialog.waitFor();
    expect(await dialog.getByText(/the requirement version becomes 7\./).isVisible()).toBe(true);
    await dialog.getByRole('button', { name: 'Archive the field' }).click();
    await page.getByText('The field “Newsletter” was archived. The requirement version is now 7.').waitFor();
    expect(await fieldTitles(page)).toEqual(['Company name', 'Team size']);

    await page.getByRole('checkbox', { name: 'Show archived fields' }).check();
    await page.getByRole('heading', { name: /^Newsletter/, level: 3 }).waitFor();
    const archived = page.locator('li', { has: page.getByRole('heading', { name: /^Newsletter/, level: 3 }) });
    expect(await archived.getByText('Archived', { exact: true }).isVisible()).toBe(true);
    expect(await archived.getByRole('button', { name: /Archive/ }).count()).toBe(0);
    await page.getByRole('checkbox', { name: 'Show archived fields' }).uncheck();
  }, SLOW);

  it('a refused create: a duplicate key (CONFLICT), then a SELECT without options (beside the options)', async () => {
    const { page } = admin;
    await page.getByRole('link', { name: 'Add a field' }).click();
    const key = page.getByRole('textbox', { name: required('Field key') });
    await key.fill('company');
    await page.getByRole('textbox', { name: required('Label') }).fill('Another company');
    await page.getByRole('button', { name: 'Add the field' }).click();
    await page.getByRole('alert').filter({ hasText: 'This platform already has a field with this key. Choose another key.' }).waitFor();
    expect(await key.getAttribute('aria-invalid')).toBe('true');
    expect(await page.evaluate('document.activeElement?.id')).toBe(await key.getAttribute('id'));
    expect(await page.getByText('This platform already has a field with the key company.').first().isVisible()).toBe(true);

    await key.fill('size');
    await page.getByRole('combobox', { name: 'Type' }).selectOption('SELECT');
    await page.getByRole('button', { name: 'Remove option 1' }).click();
    await page.getByRole('button', { name: 'Add the field' }).click();
    const options = page.getByRole('group', { name: /Options/ });
    await options.getByText('Must not be empty for SELECT fields.').waitFor();
    await expectAccessible(page, 'the form with errors');
    await page.evaluate('window.scrollTo(0, 0)');
    await screenshots(page, 'admin-onboarding-errors');
    await page.getByRole('link', { name: 'Cancel' }).click();
    await page.getByRole('heading', { name: 'Fields' }).waitFor();
    expect(await version(page)).toBe('7');
    expect(admin.errors.filter((error) => !/status of (400|409)/.test(error))).toEqual([]);
  }, SLOW);

  it('a caller with only onboarding:schema:read sees the form without the controls to change it', async () => {
    // The dev provider's users hold every permission or none: alice's sessions are given the read permission alone,
    // as a session would carry it from the identity provider (permissions are read at login and kept in the session).
    const { context, page } = await stack.newPage();
    await signIn(stack, page, '/profile', USERS.alice);
    await stack.harness.database.db.raw(
      `UPDATE gateway_sessions SET permissions = ARRAY['onboarding:schema:read']::text[] WHERE user_id = (SELECT id FROM users WHERE sub = 'dev-user-alice')`,
    );
    await page.goto(`${stack.url}/admin/onboarding`);
    await page.getByRole('heading', { name: 'Your platforms' }).waitFor();
    await page.getByRole('link', { name: PLATFORM_NAME }).click();
    await page.getByText('You can view this form; changing it needs the onboarding:schema:write permission.').waitFor();
    await page.getByRole('heading', { name: /^Company name/, level: 3 }).waitFor();
    expect(await page.getByRole('link', { name: 'Add a field' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: /^(Move up|Move down|Archive)/ }).count()).toBe(0);
    expect(await page.getByRole('link', { name: /^Edit/ }).count()).toBe(0);
    await expectAccessible(page, 'the read-only form');
    await screenshots(page, 'admin-onboarding-readonly');
    await page.getByRole('link', { name: 'View Team size' }).click();
    await page.getByRole('heading', { name: 'Field “Team size”', level: 1 }).waitFor();
    expect(await page.getByRole('button', { name: 'Save the changes' }).count()).toBe(0);
    await context.close();
  }, SLOW);
});
