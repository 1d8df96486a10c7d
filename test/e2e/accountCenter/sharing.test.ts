// Issue 36, in Chromium: the central demo platform asks before reusing the phone number the
// person gave the other demo platform (the dev stack's seeded fields, DEMO_FIELDS and
// DEMO_CENTRAL_FIELDS). In English the person confirms it; in German they enter another one.
// By labels, axe-clean; the platform's stored value is checked in the database.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { collectPageErrors, expectAccessible, hasChromium, screenshots, signIn, startAccountCenterStack, USERS, type AccountCenterStack } from '../../helpers/accountCenter.ts';
import { createPlatform, CLI_ACTOR } from '../../../src/services/registry/index.ts';
import { createFieldDefinition } from '../../../src/services/onboarding/schema.ts';
import { DEMO_CENTRAL_FIELDS, DEMO_FIELDS } from '../../../src/devstack/index.ts';

const DEMO = 'DEMO';
const CENTRAL = 'DEMO_CENTRAL';

describe.skipIf(!hasChromium)(`asking before sharing in Chromium${hasChromium ? '' : ' (skipped: /usr/bin/chromium is not installed)'}`, () => {
  let stack: AccountCenterStack;

  beforeAll(async () => {
    stack = await startAccountCenterStack();
    const db = stack.harness.database.db;
    const platform = (platformKey: string, displayName: string, mode: 'none' | 'central') =>
      createPlatform(db, { platformKey, displayName, callbackUrl: 'http://127.0.0.1:9/auth/callback', allowedReturnUrls: ['http://127.0.0.1:9/'], defaultOnboardingMode: mode, centralOnboardingEnabled: true }, CLI_ACTOR);
    await platform(DEMO, 'Demo platform', 'none');
    await platform(CENTRAL, 'Demo platform with central onboarding', 'central');
    for (const field of DEMO_FIELDS) await createFieldDefinition(db, DEMO, field, CLI_ACTOR);
    for (const field of DEMO_CENTRAL_FIELDS) await createFieldDefinition(db, CENTRAL, field, CLI_ACTOR);
  });
  afterAll(async () => {
    await stack?.close();
  });

  const stored = async (username: string) =>
    (await stack.harness.database.db.raw(
      `SELECT v.value, v.shared, s.platform_key AS "from" FROM onboarding_values v JOIN users u ON u.id = v.user_id JOIN platforms p ON p.id = v.platform_id
        LEFT JOIN platforms s ON s.id = v.shared_from_platform_id WHERE u.sub LIKE ? AND p.platform_key = ? AND v.field_key = 'phone'`,
      [`%${username}%`, CENTRAL],
    )).rows;

  /** The demo platform's onboarding in the account center: the person gives it their phone number. */
  async function givePhoneToDemo(page: Page, username: string, password: string, phone: { label: string; save: string }) {
    await signIn(stack, page, `/onboarding/${DEMO}`, { username, password });
    await page.getByLabel(new RegExp(`^${phone.label}`)).fill('+44 20 7183 8750');
    await page.getByRole('button', { name: phone.save, exact: true }).click();
    await page.waitForURL((url) => url.pathname === '/profile');
  }

  /** The central platform's other required fields, by their labels. */
  async function fillTheRest(page: Page, labels: { first: string; company: string; country: string; countryName: string; team: string; teamOption: string }) {
    const first = page.getByLabel(new RegExp(`^${labels.first}`));
    if ((await first.inputValue()) === '') await first.fill('Alice');
    await page.getByLabel(new RegExp(`^${labels.company}`)).fill('Acme Ltd');
    await page.getByLabel(new RegExp(`^${labels.country}`)).fill(labels.countryName);
    await page.getByLabel(new RegExp(`^${labels.team}`)).selectOption({ label: labels.teamOption });
  }

  it('English: asks "Use it?" with the number given to the demo platform; confirming stores it for the central platform as shared', { timeout: 120_000 }, async () => {
    const { context, page } = await stack.newPage({ locale: 'en-GB' });
    const errors = collectPageErrors(page);
    await givePhoneToDemo(page, USERS.alice.username, USERS.alice.password, { label: 'Phone', save: 'Save' });

    await page.goto(`${stack.url}/onboarding/${CENTRAL}`);
    await page.getByRole('form', { name: 'Your details for Demo platform with central onboarding' }).waitFor();
    const offer = page.getByRole('group', { name: /^Work phone/ });
    await offer.waitFor();
    expect(await offer.getByText('You gave Demo platform this: +44 20 7183 8750. Use it for Demo platform with central onboarding too?').isVisible()).toBe(true);
    // Not received before the person confirms.
    expect(await stored(USERS.alice.username)).toEqual([]);
    await expectAccessible(page, 'English offer');
    await screenshots(page, 'sharing-offer-en');

    await fillTheRest(page, { first: 'First name', company: 'Company', country: 'Country', countryName: 'Germany', team: 'Team size', teamOption: '11 to 50' });
    await offer.getByLabel('Yes, use +44 20 7183 8750').check();
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.waitForURL((url) => url.pathname === '/profile');
    expect(await stored(USERS.alice.username)).toEqual([{ value: '+442071838750', shared: true, from: DEMO }]);

    // "Your data" says where each app's phone comes from.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Your data' }).click();
    const apps = page.getByRole('list', { name: 'Apps with your data' });
    const card = (name: string) => apps.getByRole('listitem').filter({ has: page.getByRole('heading', { name, level: 3, exact: true }) });
    await card('Demo platform with central onboarding').getByText('Work phone (from your profile only if you said yes, otherwise your answer for this app)').waitFor();
    await card('Demo platform').getByText('Phone (from your profile)', { exact: true }).waitFor();
    await expectAccessible(page, 'Your data, apps with sharing rules');
    expect(errors.filter((error) => !/status of 4\d\d/.test(error))).toEqual([]);
    await context.close();
  });

  it('German: the same question in German; "enter another one" keeps the new number for the central platform only', { timeout: 120_000 }, async () => {
    const { context, page } = await stack.newPage({ locale: 'de-DE' });
    const errors = collectPageErrors(page);
    await givePhoneToDemo(page, USERS.admin.username, USERS.admin.password, { label: 'Telefon', save: 'Speichern' });

    await page.goto(`${stack.url}/onboarding/${CENTRAL}`);
    await page.getByRole('form', { name: 'Ihre Angaben für Demo platform with central onboarding' }).waitFor();
    const offer = page.getByRole('group', { name: /^Telefon \(geschäftlich\)/ });
    await offer.waitFor();
    expect(await offer.getByText('Sie haben Demo platform Folgendes angegeben: +44 20 7183 8750. Auch für Demo platform with central onboarding verwenden?').isVisible()).toBe(true);
    await expectAccessible(page, 'German offer');

    await offer.getByLabel('Nein, etwas anderes angeben').check();
    await page.getByRole('textbox', { name: /^Telefon \(geschäftlich\)/ }).fill('+49 30 901820');
    await expectAccessible(page, 'German offer, another number');
    await screenshots(page, 'sharing-offer-de');
    await fillTheRest(page, { first: 'Vorname', company: 'Unternehmen', country: 'Land', countryName: 'Deutschland', team: 'Teamgröße', teamOption: '11 bis 50' });
    await page.getByRole('button', { name: 'Speichern', exact: true }).click();
    await page.waitForURL((url) => url.pathname === '/profile');
    expect(await stored(USERS.admin.username)).toEqual([{ value: '+4930901820', shared: false, from: null }]);
    // The demo platform (and the profile) keep the number it was given.
    const profile = await context.request.get(`${stack.harness.baseUrl}/v1/profile/me`);
    expect(((await profile.json()) as { phone: string }).phone).toBe('+442071838750');
    expect(errors.filter((error) => !/status of 4\d\d/.test(error))).toEqual([]);
    await context.close();
  });
});
