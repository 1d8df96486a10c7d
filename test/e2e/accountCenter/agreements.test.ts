// Documents and agreements in the account center, in Chromium (issue 25): a person starts a login
// at a central-mode platform with terms and a privacy notice, lands on the onboarding page, reads
// each document (Markdown rendered safely), accepts each by its own button (nothing ticked in
// advance), continues to the platform, and finds the record on the Agreements page. An
// administrator writes a draft with its preview, checks who would have to accept it, and
// publishes it. Found by labels and roles; axe finds no serious violation.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { collectPageErrors, expectAccessible, screenshots, hasChromium, signIn, startAccountCenterStack, USERS, type AccountCenterStack } from '../../helpers/accountCenter.ts';
import { basicAuth } from '../../helpers/oidcBrowser.ts';
import { createPlatform, CLI_ACTOR } from '../../../src/services/registry/index.ts';
import { createDraft, publishVersion } from '../../../src/services/documents/administration.ts';

const TERMS = [
  '# Terms of use',
  '',
  'Be kind. Read the [full licence](https://licence.example/terms) and the [other one](javascript:alert(1)).',
  '',
  '<script>window.__injected = true</script><img src=x onerror="window.__injected = true">',
].join('\n');

describe.skipIf(!hasChromium)(`documents and agreements in Chromium${hasChromium ? '' : ' (skipped: /usr/bin/chromium is not installed)'}`, () => {
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

  const gateway = () => stack.harness.baseUrl;

  async function platformWithDocuments(platformKey: string, displayName: string, defaultOnboardingMode: 'central' | 'platform' = 'central') {
    const db = stack.harness.database.db;
    const created = await createPlatform(
      db,
      { platformKey, displayName, callbackUrl: `${platformUrl}/auth/callback`, allowedReturnUrls: [`${platformUrl}/`], defaultOnboardingMode, centralOnboardingEnabled: defaultOnboardingMode === 'central', handoffChallengeRequired: false },
      CLI_ACTOR,
    );
    for (const [documentKey, kind, title, markdown] of [['terms', 'terms', 'Terms of use', TERMS], ['privacy', 'privacy', 'Privacy notice', 'We keep **little**.']] as const) {
      const draft = await createDraft(db, platformKey, documentKey, { kind, material: true, defaultLanguage: 'en', texts: { en: { title, markdown } } });
      await publishVersion(db, platformKey, documentKey, draft.version, CLI_ACTOR);
    }
    return { key: platformKey, basic: basicAuth(created.platform.clientId!, created.clientSecret) };
  }

  async function loginToOnboarding(page: Page, platformKey: string): Promise<void> {
    const start = new URL('/v1/auth/start', gateway());
    start.searchParams.set('platformKey', platformKey);
    start.searchParams.set('returnTo', `${platformUrl}/home`);
    await page.goto(start.href);
    await page.getByLabel('Username').fill(USERS.alice.username);
    await page.getByLabel('Password').fill(USERS.alice.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((url) => url.href.startsWith(`${stack.url}/onboarding/${platformKey}?resume=`));
  }

  const unexpected = (errors: string[]) => errors.filter((error) => !/status of 4\d\d/.test(error));

  it('onboarding: each document read and accepted by its own button, then on to the platform; the Agreements page shows the record', { timeout: 120_000 }, async () => {
    const platform = await platformWithDocuments('TERMS_DEMO', 'Harbour Terms');
    const { context, page } = await stack.newPage();
    const errors = collectPageErrors(page);
    await loginToOnboarding(page, platform.key);

    const step = page.getByRole('region', { name: 'Terms to accept' });
    await step.waitFor();
    const terms = step.getByRole('article', { name: 'Terms of use' });
    // Markdown rendered to a safe subset: the https link opens in a new tab, the javascript: one is text, no HTML ran.
    const link = terms.getByRole('link', { name: 'full licence' });
    expect(await link.getAttribute('href')).toBe('https://licence.example/terms');
    expect(await link.getAttribute('rel')).toBe('noopener noreferrer');
    expect(await terms.getByRole('link', { name: 'other one' }).count()).toBe(0);
    expect(await terms.getByText('other one').isVisible()).toBe(true);
    expect(await page.locator('.document-text script, .document-text img').count()).toBe(0);
    expect(await page.evaluate(() => (window as { __injected?: boolean }).__injected)).toBeUndefined();
    // No box ticked in advance: one button per document.
    expect(await step.getByRole('checkbox').count()).toBe(0);
    await expectAccessible(page, 'agreements step');
    await screenshots(page, 'agreements-step');

    // Continuing before accepting names what is missing, and moves the focus to its button.
    await page.getByRole('button', { name: 'Continue to Harbour Terms' }).click();
    const summary = page.getByRole('alert', { name: 'Accept the 2 documents above to continue.' });
    await summary.waitFor();
    await summary.getByRole('link', { name: /Terms of use/ }).click();
    expect(await page.locator(':focus').textContent()).toBe('I accept “Terms of use”');

    await step.getByRole('button', { name: 'I accept “Terms of use”' }).click();
    await step.getByText('You accepted “Terms of use” (version 1).').waitFor();
    await step.getByRole('button', { name: 'I accept “Privacy notice”' }).click();
    await step.getByText('You accepted “Privacy notice” (version 1).').waitFor();
    await expectAccessible(page, 'agreements step, accepted');
    await page.getByRole('button', { name: 'Continue to Harbour Terms' }).click();

    await page.waitForURL((url) => url.href.startsWith(`${platformUrl}/auth/callback`));
    const code = new URL(page.url()).searchParams.get('code')!;
    const exchanged = await fetch(`${gateway()}/v1/auth/exchange`, { method: 'POST', headers: { Authorization: platform.basic, 'Content-Type': 'application/json' }, body: JSON.stringify({ code }) });
    expect(exchanged.status).toBe(200);
    expect(((await exchanged.json()) as { onboarding: unknown }).onboarding).toMatchObject({ status: 'COMPLETE', missingDocuments: [] });

    // The person's Agreements: what, when, which version, and the text as it was shown.
    await page.goto(`${stack.url}/agreements`);
    const section = page.getByRole('region', { name: 'Harbour Terms' });
    await section.waitFor();
    expect(await section.getByRole('heading', { name: /Terms of use/ }).first().textContent()).toContain('Accepted');
    const history = section.getByRole('listitem').filter({ hasText: 'You accepted “Privacy notice”, version 1' });
    await history.getByText('The text as you were shown it').click();
    expect(await history.locator('.document-text strong').textContent()).toBe('little');
    await expectAccessible(page, 'agreements page');
    await screenshots(page, 'agreements-page');

    // A non-material version: nothing blocks, and the next visit says "updated".
    const db = stack.harness.database.db;
    const newer = await createDraft(db, platform.key, 'privacy', { kind: 'privacy', material: false, defaultLanguage: 'en', texts: { en: { title: 'Privacy notice', markdown: 'We keep **very** little.' } } });
    await publishVersion(db, platform.key, 'privacy', newer.version, CLI_ACTOR);
    await page.goto(`${stack.url}/profile`);
    const updated = page.getByRole('status').filter({ hasText: 'Updated: Privacy notice (Harbour Terms).' });
    await updated.waitFor();
    await updated.getByRole('link', { name: 'See your agreements' }).click();
    await page.getByRole('region', { name: 'Harbour Terms' }).getByText('Updated', { exact: true }).waitFor();
    await expectAccessible(page, 'agreements page, updated');
    expect(unexpected(errors)).toEqual([]);
    await context.close();
  });

  it('a platform in platform mode records an acceptance with its own credential; the Agreements page says the platform recorded it, not the person', { timeout: 120_000 }, async () => {
    const platform = await platformWithDocuments('TERMS_OWN', 'Harbour Own', 'platform');
    const { context, page } = await stack.newPage();
    const errors = collectPageErrors(page);
    // The person signs in to the platform (platform mode: straight back to its callback with a code).
    const start = new URL('/v1/auth/start', gateway());
    start.searchParams.set('platformKey', platform.key);
    start.searchParams.set('returnTo', `${platformUrl}/home`);
    await page.goto(start.href);
    await page.getByLabel('Username').fill(USERS.alice.username);
    await page.getByLabel('Password').fill(USERS.alice.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((url) => url.href.startsWith(`${platformUrl}/auth/callback`));
    const exchanged = await fetch(`${gateway()}/v1/auth/exchange`, {
      method: 'POST',
      headers: { Authorization: platform.basic, 'Content-Type': 'application/json' },
      body: JSON.stringify({ code: new URL(page.url()).searchParams.get('code') }),
    });
    const { session } = (await exchanged.json()) as { session: { gatewayToken: string } };
    // The platform showed its terms on its own page, and records the person's acceptance with its credential.
    const asPlatform = { Cookie: `gw_session=${session.gatewayToken}`, 'Content-Type': 'application/json' };
    const agreements = (await (await fetch(`${gateway()}/v1/agreements/${platform.key}`, { headers: asPlatform })).json()) as { documents: { documentKey: string; current: { version: number; texts: { en: { sha256: string } } } }[] };
    const terms = agreements.documents.find((document) => document.documentKey === 'terms')!;
    const accepted = await fetch(`${gateway()}/v1/agreements/${platform.key}/acceptances`, {
      method: 'POST',
      headers: asPlatform,
      body: JSON.stringify({ documentKey: 'terms', version: terms.current.version, language: 'en', sha256: terms.current.texts.en.sha256 }),
    });
    expect(accepted.status).toBe(200);

    await page.goto(`${stack.url}/agreements`);
    const section = page.getByRole('region', { name: 'Harbour Own' });
    await section.waitFor();
    await section.getByText('Harbour Own recorded that you accepted version 1').waitFor();
    const row = section.getByRole('listitem').filter({ hasText: 'Harbour Own recorded that you accepted “Terms of use”, version 1' });
    await row.getByText('Recorded by Harbour Own, from what you did on its own pages, not here.').waitFor();
    // The privacy notice, still to accept, is the person's own to accept here.
    expect(await section.getByRole('button', { name: 'Accept “Privacy notice” (version 1)' }).count()).toBe(1);
    await expectAccessible(page, 'agreements page, recorded by the platform');
    await screenshots(page, 'agreements-by-platform');
    expect(unexpected(errors)).toEqual([]);
    await context.close();
  });

  it('administration: a draft written with its preview, the dry run, then publication with the count per version', { timeout: 120_000 }, async () => {
    await platformWithDocuments('TERMS_ADMIN', 'Harbour Admin');
    const { context, page } = await stack.newPage();
    const errors = collectPageErrors(page);
    await signIn(stack, page, '/admin/documents/TERMS_ADMIN', USERS.admin);
    await page.getByRole('heading', { name: 'Documents of TERMS_ADMIN' }).waitFor();
    await page.getByText('0 of 0 active users accepted version 1').first().waitFor();

    const editor = page.getByRole('form', { name: 'New draft' });
    await editor.getByLabel('Document key').fill('newsletter');
    await editor.getByLabel('Kind').selectOption({ label: 'Custom consent' });
    await editor.getByLabel('Material change: people must accept it again').uncheck();
    await editor.getByLabel('Title').fill('Newsletter');
    await editor.getByLabel('Text (Markdown)').fill('## Monthly news\n\nOne e-mail a *month*.');
    // The preview renders as people will see it.
    await editor.locator('.documents-preview em').getByText('month').waitFor();
    await expectAccessible(page, 'document editor');
    await screenshots(page, 'documents-editor');
    await editor.getByRole('button', { name: 'Save draft' }).click();
    await page.getByText('Draft 1 of newsletter is saved.').waitFor();

    await page.getByRole('button', { name: 'Who would have to accept?' }).click();
    await page.getByText(/Publishing asks no one to accept it again/).waitFor();
    await page.getByRole('button', { name: 'Publish version 1' }).click();
    await page.getByText('Version 1 of newsletter is published.').waitFor();
    await expectAccessible(page, 'documents after publication');
    expect(unexpected(errors)).toEqual([]);
    await context.close();
  });
});
