// Issue 27, in Chromium: a browser that asks for German signs in to a platform with central
// onboarding (the demo platform's fields, with their German texts) and sees the flow, the
// fields and the error messages in German; switching to English in the header changes the page,
// writes the profile's language, and is still English after a reload. Axe-clean in both.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { collectPageErrors, expectAccessible, hasChromium, screenshots, startAccountCenterStack, USERS, type AccountCenterStack } from '../../helpers/accountCenter.ts';
import { createPlatform, CLI_ACTOR } from '../../../src/services/registry/index.ts';
import { createFieldDefinition } from '../../../src/services/onboarding/schema.ts';
import { DEMO_CENTRAL_FIELDS } from '../../../src/devstack/index.ts';

describe.skipIf(!hasChromium)(`account center languages in Chromium${hasChromium ? '' : ' (skipped: /usr/bin/chromium is not installed)'}`, () => {
  let stack: AccountCenterStack;
  let platformServer: Server;
  let platformUrl: string;

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

  async function demoPlatform(): Promise<string> {
    const platformKey = 'HARBOUR_LOGISTICS';
    await createPlatform(
      stack.harness.database.db,
      { platformKey, displayName: 'Harbour Logistics', callbackUrl: `${platformUrl}/auth/callback`, allowedReturnUrls: [`${platformUrl}/`], defaultOnboardingMode: 'central', centralOnboardingEnabled: true, handoffChallengeRequired: false },
      CLI_ACTOR,
    );
    for (const field of DEMO_CENTRAL_FIELDS) await createFieldDefinition(stack.harness.database.db, platformKey, field, CLI_ACTOR);
    return platformKey;
  }

  async function loginToOnboarding(page: Page, platformKey: string): Promise<void> {
    const start = new URL('/v1/auth/start', stack.harness.baseUrl);
    start.searchParams.set('platformKey', platformKey);
    start.searchParams.set('returnTo', `${platformUrl}/home`);
    await page.goto(start.href);
    await page.getByLabel('Username').fill(USERS.alice.username);
    await page.getByLabel('Password').fill(USERS.alice.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((url) => url.href.startsWith(`${stack.url}/onboarding/${platformKey}?resume=`));
  }

  const unexpected = (errors: string[]) => errors.filter((error) => !/status of 4\d\d/.test(error));

  it('German browser: the flow, the fields and the errors in German; English from the header, written to the profile, kept after a reload', { timeout: 120_000 }, async () => {
    const platformKey = await demoPlatform();
    const { context, page } = await stack.newPage({ locale: 'de-DE' });
    const errors = collectPageErrors(page);
    await loginToOnboarding(page, platformKey);

    // The flow in German, by the labels a German reader sees.
    await page.getByRole('form', { name: 'Ihre Angaben für Harbour Logistics' }).waitFor();
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Ihre Angaben für Harbour Logistics');
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('de-DE');
    expect(await page.getByRole('navigation', { name: 'Hauptnavigation' }).getByRole('link', { name: 'Profil' }).isVisible()).toBe(true);
    expect(await page.getByRole('combobox', { name: 'Sprache' }).inputValue()).toBe('de');
    // The fields come with the requirements (asked in the page's language) after the form's frame.
    await page.getByLabel(/^Vorname/).waitFor();
    for (const label of ['Vorname', 'Unternehmen', 'Land', 'Teamgröße', 'Telefon (geschäftlich)', 'Senden Sie mir den Produkt-Newsletter']) {
      expect(await page.getByLabel(label, { exact: false }).count(), label).toBeGreaterThan(0);
    }
    expect(await page.getByLabel(/^Teamgröße/).locator('option').allTextContents()).toEqual(['Bitte wählen …', '1 bis 10', '11 bis 50', 'Mehr als 50']);
    expect(await page.getByText('Ungefähr wie viele Personen die Plattform nutzen werden.').isVisible()).toBe(true);
    expect(await page.getByRole('button', { name: 'Speichern und fortfahren' }).isVisible()).toBe(true);
    await expectAccessible(page, 'German onboarding');

    // The page's own checks, in German.
    await page.getByLabel(/^Vorname/).fill('Alice');
    await page.getByRole('button', { name: 'Speichern und fortfahren' }).click();
    const missing = page.getByRole('alert', { name: 'Es fehlen noch Angaben. Bisher wurde nichts gespeichert.' });
    await missing.waitFor();
    expect(await missing.getByRole('link').allTextContents()).toEqual([
      'Unternehmen: Füllen Sie dieses Feld aus.',
      'Land: Wählen Sie ein Land aus der Liste.',
      'Teamgröße: Wählen Sie eine Option.',
    ]);

    // The gateway's refusal (problem+json: code and reason), in German; a country by its German name.
    await page.getByLabel(/^Unternehmen/).fill('Muster GmbH');
    await page.getByLabel(/^Land/).fill('Deutschland');
    await page.getByLabel(/^Teamgröße/).selectOption({ label: '11 bis 50' });
    await page.getByLabel(/^Telefon/).fill('+1 555 555 5555');
    await page.getByRole('button', { name: 'Speichern und fortfahren' }).click();
    const refused = page.getByRole('alert', { name: 'Einige Angaben wurden nicht angenommen. Es wurde nichts gespeichert.' });
    await refused.waitFor();
    expect(await refused.getByRole('link').allTextContents()).toEqual([
      'Telefon (geschäftlich): Geben Sie eine Telefonnummer im internationalen Format ein: + und die Landesvorwahl, dann die Nummer, z. B. +49 30 901820.',
    ]);
    await expectAccessible(page, 'German onboarding with errors');
    await screenshots(page, 'languages-onboarding-de');

    // English from the header: at once, and in the profile.
    await page.getByRole('combobox', { name: 'Sprache' }).selectOption({ label: 'English' });
    await page.getByRole('form', { name: 'Your details for Harbour Logistics' }).waitFor();
    expect(await page.getByLabel(/^Company/).count()).toBe(1);
    expect(await page.getByLabel(/^Team size/).locator('option').allTextContents()).toEqual(['Choose…', '1 to 10', '11 to 50', 'More than 50']);
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('en');
    await expect.poll(async () => ((await (await context.request.get(`${stack.harness.baseUrl}/v1/profile/me`)).json()) as { locale: string | null }).locale).toBe('en');

    // Remembered: a reload (the browser still asks for German) stays English.
    await page.reload();
    await page.getByRole('form', { name: 'Your details for Harbour Logistics' }).waitFor();
    expect(await page.getByRole('combobox', { name: 'Language' }).inputValue()).toBe('en');
    expect(await page.getByRole('button', { name: 'Save and continue' }).isVisible()).toBe(true);
    await expectAccessible(page, 'English onboarding after the switch');
    await screenshots(page, 'languages-onboarding-en');
    expect(unexpected(errors)).toEqual([]);
    await context.close();
  });
});
