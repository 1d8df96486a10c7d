// Central onboarding in the account center, in Chromium: a person starts a login at a
// central-mode platform, signs in at the dev identity provider, lands on the account
// center's onboarding page, fills in every field type by its label, meets the gateway's
// validation, completes, and arrives at the platform's callback with a handoff code that the
// platform exchanges for a COMPLETE onboarding. Then each failure the page must survive.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Locator, Page, Request } from 'playwright-core';
import {
  ACCOUNT_CENTER_PLATFORM,
  collectPageErrors,
  expectAccessible,
  hasChromium,
  screenshots,
  signIn,
  startAccountCenterStack,
  USERS,
  type AccountCenterStack,
} from '../../helpers/accountCenter.ts';
import { basicAuth } from '../../helpers/oidcBrowser.ts';
import { createPlatform, CLI_ACTOR } from '../../../src/services/registry/index.ts';
import { createFieldDefinition, type FieldCreateInput } from '../../../src/services/onboarding/schema.ts';

/** One field of every type, as an administrator would define them. */
const EVERY_TYPE: FieldCreateInput[] = [
  { fieldKey: 'company', label: 'Company name', fieldType: 'TEXT', required: true, sortOrder: 10, placeholder: 'Acme Ltd', description: 'The organisation you work for.', uiConfig: { width: 'half', helpText: 'As it appears on your invoices.' }, validation: { maxLength: 100 } },
  { fieldKey: 'website', label: 'Company website', fieldType: 'URL', sortOrder: 20, placeholder: 'https://', uiConfig: { width: 'half' } },
  { fieldKey: 'about', label: 'About your team', fieldType: 'TEXTAREA', sortOrder: 30, uiConfig: { helpText: '<b>Plain text</b>, a few lines at most.' } },
  { fieldKey: 'teamSize', label: 'Team size', fieldType: 'NUMBER', sortOrder: 40, validation: { min: 1, max: 10000 }, uiConfig: { width: 'third' } },
  { fieldKey: 'startDate', label: 'Start date', fieldType: 'DATE', sortOrder: 50, uiConfig: { width: 'third' } },
  { fieldKey: 'plan', label: 'Plan', fieldType: 'SELECT', sortOrder: 60, options: [{ value: 'free', label: 'Free' }, { value: 'team', label: 'Team' }, { value: 'enterprise', label: 'Enterprise' }], uiConfig: { width: 'third' } },
  { fieldKey: 'interests', label: 'Interests', fieldType: 'MULTI_SELECT', required: true, sortOrder: 70, description: 'What you want to use the platform for.', options: [{ value: 'security', label: 'Security' }, { value: 'identity', label: 'Identity' }, { value: 'billing', label: 'Billing' }] },
  { fieldKey: 'country', label: 'Country', fieldType: 'COUNTRY', required: true, sortOrder: 80, uiConfig: { width: 'half' } },
  { fieldKey: 'phone', label: 'Phone number', fieldType: 'PHONE', required: true, sortOrder: 90, placeholder: '+44 20 7183 8750', uiConfig: { width: 'half', helpText: 'With the country code, starting with +.' } },
  { fieldKey: 'billingEmail', label: 'Billing e-mail', fieldType: 'EMAIL', sortOrder: 100, uiConfig: { width: 'half' } },
  { fieldKey: 'newsletter', label: 'Send me the product newsletter', fieldType: 'BOOLEAN', sortOrder: 110 },
];
const REQUIRED_TEXT: FieldCreateInput = { fieldKey: 'company', label: 'Company name', fieldType: 'TEXT', required: true, sortOrder: 10 };

describe.skipIf(!hasChromium)(`account center onboarding in Chromium${hasChromium ? '' : ' (skipped: /usr/bin/chromium is not installed)'}`, () => {
  let stack: AccountCenterStack;
  /** The platforms' back end: it only receives the browser at its callback. */
  let platformServer: Server;
  let platformUrl: string;
  let counter = 0;

  beforeAll(async () => {
    stack = await startAccountCenterStack();
    platformServer = createServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
      res.end('<!doctype html><html lang="en"><title>Platform</title><h1>Platform callback</h1></html>');
    });
    await new Promise<void>((resolve) => platformServer.listen(0, '127.0.0.1', resolve));
    platformUrl = `http://127.0.0.1:${(platformServer.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    platformServer?.closeAllConnections();
    await new Promise((resolve) => (platformServer ? platformServer.close(resolve) : resolve(undefined)));
    await stack?.close();
  });

  const gateway = () => stack.harness.baseUrl;

  /** A central-mode platform whose callback is the local platform server, with these fields. */
  async function centralPlatform(displayName: string, fields: FieldCreateInput[]) {
    const platformKey = `ONBOARDING_${++counter}`;
    const created = await createPlatform(
      stack.harness.database.db,
      { platformKey, displayName, callbackUrl: `${platformUrl}/auth/callback`, allowedReturnUrls: [`${platformUrl}/`], defaultOnboardingMode: 'central', centralOnboardingEnabled: true, handoffChallengeRequired: false },
      CLI_ACTOR,
    );
    for (const field of fields) await createFieldDefinition(stack.harness.database.db, platformKey, field, CLI_ACTOR);
    return { key: platformKey, basic: basicAuth(created.platform.clientId!, created.clientSecret) };
  }

  /** The login as a platform starts it: the gateway, the provider's page, then the account center. Returns the transaction. */
  async function loginToOnboarding(page: Page, platformKey: string): Promise<string> {
    const start = new URL('/v1/auth/start', gateway());
    start.searchParams.set('platformKey', platformKey);
    start.searchParams.set('returnTo', `${platformUrl}/home`);
    await page.goto(start.href);
    await page.getByLabel('Username').fill(USERS.alice.username);
    await page.getByLabel('Password').fill(USERS.alice.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((url) => url.href.startsWith(`${stack.url}/onboarding/${platformKey}?resume=`));
    await page.getByRole('form', { name: /Your details for/ }).waitFor();
    return new URL(page.url()).searchParams.get('resume')!;
  }

  async function arriveAtPlatform(page: Page): Promise<string> {
    await page.waitForURL((url) => url.href.startsWith(`${platformUrl}/auth/callback`));
    const code = new URL(page.url()).searchParams.get('code');
    expect(code).toMatch(/^handoff_/);
    return code!;
  }

  async function exchange(basic: string, code: string) {
    const response = await fetch(`${gateway()}/v1/auth/exchange`, {
      method: 'POST',
      headers: { Authorization: basic, 'Content-Type': 'application/json' },
      body: JSON.stringify({ code }),
    });
    expect(response.status).toBe(200);
    return (await response.json()) as { session: { gatewayToken: string }; onboarding: { status: string; missingFields: string[] } };
  }

  /** Every request the page makes, to see what was (not) sent. */
  function watchRequests(page: Page): Request[] {
    const requests: Request[] = [];
    page.on('request', (request) => requests.push(request));
    return requests;
  }
  const writes = (requests: Request[]) => requests.filter((request) => request.method() === 'PUT' && request.url().includes('/v1/onboarding/'));

  /** The texts linked to an element by aria-describedby, as a screen reader reads them with it. */
  async function describedBy(control: Locator): Promise<string[]> {
    const ids = ((await control.getAttribute('aria-describedby')) ?? '').split(' ').filter(Boolean);
    return Promise.all(ids.map(async (id) => (await control.page().locator(`[id="${id}"]`).textContent()) ?? ''));
  }
  const input = (page: Page, role: 'textbox' | 'combobox' | 'spinbutton', label: string) => page.getByRole(role, { name: new RegExp(`^${label}`) });

  /** Client errors the browser logs for 4xx answers are expected here; anything else is not. */
  const unexpected = (errors: string[]) => errors.filter((error) => !/status of 4\d\d/.test(error));

  it('every field type: filled by label, refused by the gateway beside the phone with the rest kept, fixed, completed, handed off, exchanged as COMPLETE', { timeout: 120_000 }, async () => {
    const platform = await centralPlatform('Harbour Logistics', EVERY_TYPE);
    const { context, page } = await stack.newPage();
    const errors = collectPageErrors(page);
    const requests = watchRequests(page);
    const transaction = await loginToOnboarding(page, platform.key);

    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Your details for Harbour Logistics');
    await expect.poll(() => page.getByText('Harbour Logistics still needs: Company name, Interests, Country, and Phone number.').isVisible()).toBe(true);
    // The inputs, in sortOrder, each found by its label.
    const keys = await page.locator('[data-field-key]').evaluateAll((slots) => slots.map((slot) => slot.getAttribute('data-field-key')));
    expect(keys).toEqual(EVERY_TYPE.map((field) => field.fieldKey));
    expect(await describedBy(input(page, 'textbox', 'Company name'))).toEqual(['The organisation you work for.', 'As it appears on your invoices.']);
    expect(await page.getByText('<b>Plain text</b>, a few lines at most.').isVisible()).toBe(true);
    expect(await page.locator('form b').count()).toBe(0);
    await expectAccessible(page, 'onboarding form');
    await screenshots(page, 'onboarding-form');

    await page.getByLabel('Company name').fill('Acme Ltd');
    await page.getByLabel('Company website').fill('https://acme.example');
    await page.getByLabel('About your team').fill('Five engineers.\nTwo designers.');
    await page.getByLabel('Team size').fill('12');
    await page.getByLabel('Start date').fill('2025-09-01');
    await page.getByLabel('Plan').selectOption({ label: 'Team' });
    await page.getByRole('group', { name: /Interests/ }).getByLabel('Security').check();
    await page.getByRole('group', { name: /Interests/ }).getByLabel('Identity').check();
    await page.getByLabel('Country').pressSequentially('Germany');
    // A number of a possible length (the page lets it through) that is no real number (the gateway refuses it).
    await page.getByLabel('Phone number').fill('+1 555 555 5555');
    await page.getByLabel('Billing e-mail').fill('billing@acme.example');
    await page.getByLabel('Send me the product newsletter').check();
    await page.getByRole('button', { name: 'Save and continue' }).click();

    // The gateway's message above the form, the phone's beside it; the summary has the focus.
    const summary = page.getByRole('alert', { name: 'Some details were not accepted. Nothing was saved.' });
    await summary.waitFor();
    await expect.poll(() => page.locator('.error-summary:focus').count()).toBe(1);
    expect(await describedBy(input(page, 'textbox', 'Phone number'))).toContain('Enter a phone number in international format: + and the country code, then the number, like +44 20 7946 0958.');
    expect(await page.getByLabel('Phone number').getAttribute('aria-invalid')).toBe('true');
    // What was entered is kept.
    expect(await page.getByLabel('Company name').inputValue()).toBe('Acme Ltd');
    expect(await page.getByLabel('Country').inputValue()).toBe('Germany');
    expect(await page.getByLabel('Phone number').inputValue()).toBe('+1 555 555 5555');
    expect(await page.getByRole('group', { name: /Interests/ }).getByLabel('Identity').isChecked()).toBe(true);
    expect(page.url()).toBe(`${stack.url}/onboarding/${platform.key}?resume=${transaction}`);
    await expectAccessible(page, 'onboarding with errors');
    await screenshots(page, 'onboarding-errors');
    // The summary's entry takes the person to the input.
    await summary.getByRole('link', { name: /Phone number/ }).click();
    expect(await page.locator(':focus').getAttribute('type')).toBe('tel');

    // The value map the page wrote: every field, with the contract's types.
    expect(writes(requests)).toHaveLength(1);
    expect(writes(requests)[0]!.postDataJSON()).toEqual({
      values: {
        company: 'Acme Ltd', website: 'https://acme.example', about: 'Five engineers.\nTwo designers.', teamSize: 12, startDate: '2025-09-01', plan: 'team',
        interests: ['security', 'identity'], country: 'DE', phone: '+1 555 555 5555', billingEmail: 'billing@acme.example', newsletter: true,
      },
    });
    expect(await page.evaluate(() => [localStorage.length, sessionStorage.length])).toEqual([0, 0]);

    await page.getByLabel('Phone number').fill('+44 20 7183 8750');
    await page.getByRole('button', { name: 'Save and continue' }).click();
    const code = await arriveAtPlatform(page);
    const exchanged = await exchange(platform.basic, code);
    expect(exchanged.onboarding).toMatchObject({ status: 'COMPLETE', missingFields: [] });

    // What the gateway stored (normalised), read with the same browser session.
    const stored = await context.request.get(`${gateway()}/v1/onboarding/${platform.key}/requirements`);
    const values = Object.fromEntries(((await stored.json()) as { fields: { fieldKey: string; currentValue: unknown }[] }).fields.map((field) => [field.fieldKey, field.currentValue]));
    expect(values).toMatchObject({ phone: '+442071838750', country: 'DE', teamSize: 12, interests: ['security', 'identity'], newsletter: true });
    // No credential in any URL the browser went to.
    expect(requests.filter((request) => request.url().includes(exchanged.session.gatewayToken))).toEqual([]);
    expect(unexpected(errors)).toEqual([]);
    await context.close();
  });

  it('an empty required multi-select is refused before the write (no PUT), beside it and in the summary; then, from the keyboard, it goes through', { timeout: 90_000 }, async () => {
    const platform = await centralPlatform('Keyboard Works', [REQUIRED_TEXT, EVERY_TYPE.find((field) => field.fieldKey === 'interests')!]);
    const { context, page } = await stack.newPage();
    const requests = watchRequests(page);
    await loginToOnboarding(page, platform.key);
    await page.getByLabel('Company name').fill('Acme Ltd');
    await page.getByRole('button', { name: 'Save and continue' }).click();

    const summary = page.getByRole('alert', { name: 'Some details are missing. Nothing has been saved yet.' });
    await summary.waitFor();
    expect(await summary.getByRole('link').allTextContents()).toEqual(['Interests: Choose at least one option.']);
    expect(await page.getByRole('group', { name: /Interests/ }).getByText('Choose at least one option.').isVisible()).toBe(true);
    expect(writes(requests)).toEqual([]);

    // Keyboard only: the summary's entry, Space on the first box, Enter on the button.
    await summary.getByRole('link').focus();
    await page.keyboard.press('Enter');
    expect(await page.getByRole('group', { name: /Interests/ }).locator(':focus').getAttribute('type')).toBe('checkbox');
    await page.keyboard.press('Space');
    await page.getByRole('button', { name: 'Save and continue' }).focus();
    await page.keyboard.press('Enter');
    await arriveAtPlatform(page);
    expect(writes(requests)[0]!.postDataJSON()).toEqual({ values: { company: 'Acme Ltd', interests: ['security'] } });
    await context.close();
  });

  it('a requirements load failure shows an inline error with a retry that loads the form', { timeout: 90_000 }, async () => {
    const platform = await centralPlatform('Flaky Network', [REQUIRED_TEXT]);
    const { context, page } = await stack.newPage();
    // Refused until the test lets it through (the test build runs React's StrictMode in
    // development, which loads twice on mount, so "fail the first request" would be swallowed).
    let failing = true;
    let refused = 0;
    // By path: the page asks in its language (?language=…).
    const requirementsUrl = new URL(`/v1/onboarding/${platform.key}/requirements`, gateway()).href;
    await page.route((url) => `${url.origin}${url.pathname}` === requirementsUrl, async (route) => {
      if (failing) {
        refused += 1;
        await route.abort('connectionfailed');
      } else await route.continue();
    });
    const start = new URL('/v1/auth/start', gateway());
    start.searchParams.set('platformKey', platform.key);
    start.searchParams.set('returnTo', `${platformUrl}/home`);
    await page.goto(start.href);
    await page.getByLabel('Username').fill(USERS.alice.username);
    await page.getByLabel('Password').fill(USERS.alice.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    const failure = page.getByRole('alert').filter({ hasText: 'We could not load the details Flaky Network asks for.' });
    await failure.waitFor();
    expect(await failure.textContent()).toContain('The gateway could not be reached.');
    await expectAccessible(page, 'onboarding load failure');
    await screenshots(page, 'onboarding-load-error');
    expect(refused).toBeGreaterThan(0);
    failing = false;
    await page.getByRole('button', { name: 'Try again' }).click();
    await page.getByLabel('Company name').waitFor();
    await context.close();
  });

  it('back from an incomplete resume the form shows the current status (no loop); a complete answering non-COMPLETE keeps the person on the form, naming a field added meanwhile', { timeout: 90_000 }, async () => {
    const platform = await centralPlatform('Changing Schema', [REQUIRED_TEXT]);
    const { context, page } = await stack.newPage();
    const requests = watchRequests(page);
    const transaction = await loginToOnboarding(page, platform.key);
    const onboardingUrl = `${stack.url}/onboarding/${platform.key}?resume=${transaction}`;

    // The gateway's evaluation of an incomplete onboarding sends the browser back here.
    await page.goto(`${gateway()}/v1/auth/resume?transaction=${transaction}`);
    await page.waitForURL(onboardingUrl);
    await page.getByText('Changing Schema still needs: Company name.').waitFor();
    const loadsBefore = requests.filter((request) => request.url().endsWith('/requirements')).length;
    await page.waitForTimeout(1000);
    expect(page.url()).toBe(onboardingUrl);
    expect(requests.filter((request) => request.url().endsWith('/requirements')).length).toBe(loadsBefore);

    // An administrator adds a required field while the person fills in the form.
    await createFieldDefinition(stack.harness.database.db, platform.key, { fieldKey: 'vatNumber', label: 'VAT number', fieldType: 'TEXT', required: true, sortOrder: 20 }, CLI_ACTOR);
    await page.getByLabel('Company name').fill('Acme Ltd');
    await page.getByRole('button', { name: 'Save and continue' }).click();
    const summary = page.getByRole('alert', { name: /Your details were saved, but Changing Schema still needs VAT number\./ });
    await summary.waitFor();
    expect(await input(page, 'textbox', 'VAT number').isVisible()).toBe(true);
    expect(await describedBy(input(page, 'textbox', 'VAT number'))).toContain('Fill this in.');
    expect(await page.getByLabel('Company name').inputValue()).toBe('Acme Ltd');
    expect(page.url()).toBe(onboardingUrl);
    await screenshots(page, 'onboarding-not-complete');

    await input(page, 'textbox', 'VAT number').fill('DE123456789');
    await page.getByRole('button', { name: 'Save and continue' }).click();
    const exchanged = await exchange(platform.basic, await arriveAtPlatform(page));
    expect(exchanged.onboarding.status).toBe('COMPLETE');
    await context.close();
  });

  it('an expired session shows a page to sign in again, which comes back to this page (without the dead resume) to save', { timeout: 120_000 }, async () => {
    const platform = await centralPlatform('Sleepy Session', [REQUIRED_TEXT]);
    const { context, page } = await stack.newPage();
    await loginToOnboarding(page, platform.key);
    await page.getByLabel('Company name').fill('Acme Ltd');
    await stack.harness.database.db.raw('UPDATE gateway_sessions SET revoked_at = now() WHERE revoked_at IS NULL');
    await page.getByRole('button', { name: 'Save and continue' }).click();

    await page.getByRole('heading', { level: 1, name: 'Your session has expired' }).waitFor();
    expect(await page.getByText(/Sign in again here and save your details; then go back to Sleepy Session and sign in there again/).isVisible()).toBe(true);
    await expectAccessible(page, 'onboarding expired');
    await screenshots(page, 'onboarding-expired');

    await page.getByRole('button', { name: 'Sign in again' }).click();
    const username = page.getByLabel('Username');
    const back = page.waitForURL(`${stack.url}/onboarding/${platform.key}`);
    await Promise.race([back, username.waitFor()]);
    if (await username.isVisible()) {
      await username.fill(USERS.alice.username);
      await page.getByLabel('Password').fill(USERS.alice.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
    }
    await back;
    await page.getByLabel('Company name').fill('Acme Ltd');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.waitForURL(`${stack.url}/profile`);
    const status = await context.request.get(`${gateway()}/v1/onboarding/${platform.key}/status`);
    expect(((await status.json()) as { status: string }).status).toBe('COMPLETE');
    await context.close();
  });

  it('/onboarding without a resume: the configured platform’s form, "Save", then the profile', { timeout: 90_000 }, async () => {
    await createFieldDefinition(stack.harness.database.db, ACCOUNT_CENTER_PLATFORM, { fieldKey: 'preferredName', label: 'Preferred name', fieldType: 'TEXT', required: true, sortOrder: 1 }, CLI_ACTOR);
    const { context, page } = await stack.newPage({ width: 390 });
    const errors = collectPageErrors(page);
    await signIn(stack, page, '/onboarding', USERS.alice);
    expect(new URL(page.url()).pathname).toBe(`/onboarding/${ACCOUNT_CENTER_PLATFORM}`);
    await page.getByRole('heading', { level: 1, name: 'Your details for Account center' }).waitFor();
    expect(await page.getByRole('button', { name: 'Save and continue' }).count()).toBe(0);
    await page.getByLabel('Preferred name').fill('Ally');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.waitForURL(`${stack.url}/profile`);
    const status = await context.request.get(`${gateway()}/v1/onboarding/${ACCOUNT_CENTER_PLATFORM}/status`);
    expect(((await status.json()) as { status: string }).status).toBe('COMPLETE');
    expect(unexpected(errors)).toEqual([]);
    await context.close();
  });
});
