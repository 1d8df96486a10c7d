// The account center's /data ("Your data", issue 26) in Chromium, against the real stack: the
// export prepared by the job and downloaded through a single-use link, the apps with the
// person's data by their labels, and leaving one after a confirmation; axe at 1280 and 390 px.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFile } from 'node:fs/promises';
import request from 'supertest';
import { collectPageErrors, expectAccessible, hasChromium, screenshots, signIn, startAccountCenterStack, USERS, type AccountCenterStack } from '../../helpers/accountCenter.ts';
import { addPlatform, browserLogin } from '../../helpers/flowHarness.ts';
import { OidcBrowser } from '../../helpers/oidcBrowser.ts';
import { CLI_ACTOR } from '../../../src/services/registry/index.ts';
import { createFieldDefinition } from '../../../src/services/onboarding/schema.ts';
import { startBackchannelWorker, type BackchannelWorker } from '../../../src/services/backchannel/worker.ts';

describe.skipIf(!hasChromium)(`account center /data in Chromium${hasChromium ? '' : ' (skipped: /usr/bin/chromium is not installed)'}`, () => {
  let stack: AccountCenterStack;
  let worker: BackchannelWorker;
  beforeAll(async () => {
    stack = await startAccountCenterStack();
    worker = await startBackchannelWorker(stack.harness.gateway.deps, { pollIntervalMs: 100 });
  });
  afterAll(async () => {
    await worker?.stop();
    await stack?.close();
  });

  const gateway = () => request(stack.harness.gateway.app);

  /** alice signs in to a platform elsewhere and answers its onboarding question there. */
  async function aliceUses(platform: { key: string; basic: string }): Promise<string> {
    const login = await browserLogin(stack.harness, platform.key, USERS.alice, new OidcBrowser());
    const exchanged = await gateway().post('/v1/auth/exchange').set('Authorization', platform.basic).send({ code: login.location.searchParams.get('code') }).expect(200);
    const credential = `gw_session=${exchanged.body.session.gatewayToken}`;
    await gateway().put(`/v1/onboarding/${platform.key}/values`).set('Cookie', credential).send({ values: { team: 'Red' } }).expect(200);
    return credential;
  }

  it('prepares and downloads alice\'s data, lists the apps with it, and leaves one after a confirmation', async () => {
    const platform = await addPlatform(stack.harness);
    await createFieldDefinition(stack.harness.database.db, platform.key, { fieldKey: 'team', label: 'Team', fieldType: 'TEXT' }, CLI_ACTOR);
    const credential = await aliceUses(platform);
    const name = `Platform ${platform.key}`;

    const { context, page } = await stack.newPage();
    const errors = collectPageErrors(page);
    await signIn(stack, page, '/data', USERS.alice);
    await page.getByRole('heading', { name: 'Your data', level: 1 }).waitFor();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Your data' }).waitFor();

    // Apps with my data: the platform, not the account center itself, with what it receives.
    const apps = page.getByRole('list', { name: 'Apps with your data' });
    const card = apps.getByRole('listitem').filter({ has: page.getByRole('heading', { name, level: 3 }) });
    await card.waitFor();
    expect(await apps.getByRole('heading', { level: 3 }).allTextContents()).toEqual([name]);
    expect(await card.getByRole('definition').allTextContents()).toEqual([expect.any(String), expect.any(String), 'Not completed']);
    await card.getByText('Team (your answer for this app)').waitFor();
    await card.getByText('Your sign-in identity').waitFor();

    await expectAccessible(page, 'data page at 1280 px');
    await page.setViewportSize({ width: 390, height: 900 });
    await expectAccessible(page, 'data page at 390 px');
    await page.setViewportSize({ width: 1280, height: 900 });

    // Download my data: prepared by the job, then one click downloads the file.
    await page.getByRole('button', { name: 'Prepare my data' }).click();
    await page.getByText(/^Your data is ready \(/).waitFor({ timeout: 20_000 });
    await screenshots(page, 'data-rights');
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download my data' }).click()]);
    expect(download.suggestedFilename()).toMatch(/^my-data-\d{4}-\d{2}-\d{2}\.json$/);
    const document = JSON.parse(await readFile((await download.path())!, 'utf8'));
    expect(document.user.sub).toBe('dev-user-alice');
    expect(document.onboarding.map((entry: { platformKey: string }) => entry.platformKey)).toContain(platform.key);
    await page.getByText(/^Last downloaded /).waitFor();

    // Leave this platform, after a confirmation.
    await card.getByRole('button', { name: `Leave this app (${name})` }).click();
    const dialog = page.getByRole('dialog', { name: `Leave ${name}?` });
    await dialog.waitFor();
    await expectAccessible(page, 'leave dialog');
    await dialog.getByRole('button', { name: `Leave ${name}` }).click();
    await page.getByText(`You have left ${name}.`).waitFor();
    await expect.poll(() => apps.getByRole('listitem').count()).toBe(0);
    await page.getByText('You have not signed in to any app yet.').waitFor();
    expect((await gateway().get('/v1/me').set('Cookie', credential)).status).toBe(401);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('cancelling the confirmation leaves nothing', async () => {
    const platform = await addPlatform(stack.harness);
    await createFieldDefinition(stack.harness.database.db, platform.key, { fieldKey: 'team', label: 'Team', fieldType: 'TEXT' }, CLI_ACTOR);
    const credential = await aliceUses(platform);
    const name = `Platform ${platform.key}`;
    const { context, page } = await stack.newPage({ width: 390 });
    await signIn(stack, page, '/data', USERS.alice);
    await page.getByRole('button', { name: `Leave this app (${name})` }).click();
    const dialog = page.getByRole('dialog', { name: `Leave ${name}?` });
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    expect((await gateway().get('/v1/me').set('Cookie', credential)).status).toBe(200);
    expect(await page.getByRole('list', { name: 'Apps with your data' }).getByRole('heading', { name, level: 3 }).count()).toBe(1);
    await context.close();
  });
});
