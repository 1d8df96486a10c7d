// Branding per platform in Chromium (issue 27): a person whose browser asks for German signs in
// to a branded central-onboarding platform and sees its German name, its logo (served by the
// gateway) and its colour on the primary action, while the account center's own header keeps
// its look; an administrator edits the branding with a live preview (the same frame), meets
// the contrast refusal, and uploads a logo. Inputs by their labels, axe clean, no CSP errors.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import type { Locator } from 'playwright-core';
import { collectPageErrors, expectAccessible, hasChromium, screenshots, signIn, startAccountCenterStack, USERS, type AccountCenterStack } from '../../helpers/accountCenter.ts';
import { createPlatform, CLI_ACTOR, setBranding, uploadLogo } from '../../../src/services/registry/index.ts';
import { createFieldDefinition } from '../../../src/services/onboarding/schema.ts';

const TEAL = 'rgb(11, 110, 105)';
const background = (locator: Locator) => locator.evaluate((element) => getComputedStyle(element).backgroundColor);

describe.skipIf(!hasChromium)(`platform branding in Chromium${hasChromium ? '' : ' (skipped: /usr/bin/chromium is not installed)'}`, () => {
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

  async function brandedPlatform(platformKey: string) {
    const db = stack.harness.database.db;
    await createPlatform(
      db,
      { platformKey, displayName: 'Harbour Logistics', callbackUrl: `${platformUrl}/auth/callback`, allowedReturnUrls: [`${platformUrl}/`], defaultOnboardingMode: 'central', centralOnboardingEnabled: true, handoffChallengeRequired: false },
      CLI_ACTOR,
    );
    await createFieldDefinition(db, platformKey, { fieldKey: 'company', label: 'Company name', fieldType: 'TEXT', required: true, sortOrder: 10 }, CLI_ACTOR);
    const ctx = { db, publicBaseUrl: stack.harness.baseUrl };
    await setBranding(ctx, platformKey, { primaryColor: '#0b6e69', displayNames: { de: 'Hafen Logistik' } }, CLI_ACTOR);
    const logo = await sharp({ create: { width: 120, height: 60, channels: 4, background: { r: 11, g: 110, b: 105, alpha: 1 } } }).png().toBuffer();
    return (await uploadLogo(ctx, platformKey, logo, 'image/png', CLI_ACTOR)).logoUrl!;
  }

  it('the onboarding page of a branded platform, in German: its name, logo and colour; the account center’s header unchanged', { timeout: 120_000 }, async () => {
    const logoUrl = await brandedPlatform('HARBOUR_ONBOARDING');
    const context = await stack.browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'de-DE' });
    const page = await context.newPage();
    const errors = collectPageErrors(page);
    try {
      const start = new URL('/v1/auth/start', stack.harness.baseUrl);
      start.searchParams.set('platformKey', 'HARBOUR_ONBOARDING');
      start.searchParams.set('returnTo', `${platformUrl}/home`);
      await page.goto(start.href);
      await page.getByLabel('Username').fill(USERS.alice.username);
      await page.getByLabel('Password').fill(USERS.alice.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL((url) => url.href.startsWith(`${stack.url}/onboarding/HARBOUR_ONBOARDING?resume=`));

      const frame = page.locator('.platform-frame-branded');
      await expect.poll(() => frame.locator('.platform-brand').getByText('Hafen Logistik', { exact: true }).isVisible()).toBe(true);
      await expect.poll(() => frame.locator('.platform-brand').getByText('Anmeldung bei').isVisible()).toBe(true);
      // The step inside names the platform as its frame does.
      await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toMatch(/Hafen Logistik$/);
      const logo = frame.locator('img.platform-brand-logo');
      expect(await logo.getAttribute('src')).toBe(logoUrl);
      expect(await logo.getAttribute('alt')).toBe('');
      await expect.poll(() => logo.evaluate((img) => (img as HTMLImageElement).naturalWidth)).toBeGreaterThan(0);
      // The step's primary action wears the platform's colour; the account center's header does not.
      const primary = frame.locator('form button[type="submit"]').first();
      await primary.waitFor();
      // The branding arrives beside the form's own requests: the colour once it has.
      await expect.poll(() => background(primary)).toBe(TEAL);
      expect(await page.locator('.topbar').evaluate((header) => getComputedStyle(header).getPropertyValue('--accent').trim())).toBe('#2457d6');

      // The account center's CSP is as strict as before: no inline style, images only from itself and the gateway.
      const csp = (await fetch(`${stack.url}/onboarding/HARBOUR_ONBOARDING`)).headers.get('content-security-policy')!;
      expect(csp).toContain("style-src 'self';");
      expect(/img-src ([^;]+)/.exec(csp)![1]!.split(' ').sort()).toEqual(["'self'", 'blob:', 'data:', new URL(stack.harness.baseUrl).origin].sort());
      expect(new URL(logoUrl).origin).toBe(new URL(stack.harness.baseUrl).origin);

      await expectAccessible(page, 'branded onboarding page');
      await screenshots(page, 'branding-onboarding-de');
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('the admin’s branding editor: live contrast, the gateway’s refusal, a live preview in the onboarding frame, names and logo saved', { timeout: 120_000 }, async () => {
    await brandedPlatform('HARBOUR_ADMIN');
    const { context, page } = await stack.newPage();
    const errors = collectPageErrors(page);
    try {
      await signIn(stack, page, '/admin/platforms/HARBOUR_ADMIN', USERS.admin);
      await page.getByRole('link', { name: 'Branding' }).click();
      await page.getByRole('heading', { level: 1, name: 'Branding of Harbour Logistics' }).waitFor();
      const preview = page.locator('.branding-preview');
      const previewButton = preview.getByRole('button', { name: 'Continue' });
      await expect.poll(() => background(previewButton)).toBe(TEAL);

      // A light yellow: the live contrast says it is too low, and the gateway refuses it.
      const code = page.getByLabel('Colour code (#rrggbb)');
      await code.fill('#ffcc00');
      await page.getByText(/Too little contrast/).waitFor();
      await page.getByRole('button', { name: 'Save colour and names' }).click();
      await page.getByText('The colour and names were not saved').waitFor();
      await expect.poll(async () => (await page.locator('.field-error').allTextContents()).join(' ')).toMatch(/WCAG 2\.x AA contrast/);

      // A dark purple: the preview follows as it is typed, before saving.
      await code.fill('#5a2d82');
      await expect.poll(() => background(previewButton)).toBe('rgb(90, 45, 130)');
      await page.getByRole('button', { name: 'Add a language' }).click();
      await page.getByLabel('Language tag', { exact: true }).last().fill('en');
      await page.getByLabel('Name', { exact: true }).last().fill('Harbour Logistics Ltd');
      await expect.poll(() => preview.getByText('Harbour Logistics Ltd', { exact: true }).isVisible()).toBe(true);
      await page.getByRole('button', { name: 'Save colour and names' }).click();
      await page.getByText('The colour and names are saved.').waitFor();

      const png = await sharp({ create: { width: 300, height: 100, channels: 4, background: { r: 90, g: 45, b: 130, alpha: 1 } } }).png().toBuffer();
      await page.getByLabel('Logo image').setInputFiles({ name: 'logo.png', mimeType: 'image/png', buffer: png });
      await page.getByRole('button', { name: 'Upload logo' }).click();
      await page.getByText('The new logo is in use.').waitFor();
      await expect.poll(() => preview.locator('img.platform-brand-logo').evaluate((img) => (img as HTMLImageElement).naturalWidth)).toBeGreaterThan(0);

      const stored = await stack.harness.database.db.raw(`SELECT brand_color, display_names FROM platforms WHERE platform_key = 'HARBOUR_ADMIN'`);
      expect(stored.rows[0]).toEqual({ brand_color: '#5a2d82', display_names: { de: 'Hafen Logistik', en: 'Harbour Logistics Ltd' } });

      await expectAccessible(page, 'branding editor');
      await screenshots(page, 'branding-editor');
      expect(errors.filter((error) => !/status of 400/.test(error))).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
