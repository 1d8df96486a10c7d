// After a deletion, in Chromium against the real stack: the signed-out page lists the platforms
// told of the deletion (Security Event Tokens, issue 26) and whether each acknowledged it; a
// platform polls and acknowledges, "Check again" shows it; /account-deleted shows the same later
// in that browser. By labels and roles, axe clean.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import { collectPageErrors, expectAccessible, screenshots, hasChromium, signIn, startAccountCenterStack, USERS, type AccountCenterStack } from '../../helpers/accountCenter.ts';
import { addPlatform, browserLogin } from '../../helpers/flowHarness.ts';
import { CLI_ACTOR, updatePlatform } from '../../../src/services/registry/index.ts';

describe.skipIf(!hasChromium)(`account center: deletion acknowledgements in Chromium${hasChromium ? '' : ' (skipped: /usr/bin/chromium is not installed)'}`, () => {
  let stack: AccountCenterStack;

  beforeAll(async () => {
    stack = await startAccountCenterStack();
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('shows which platforms acknowledged the deletion, and updates when one does', async () => {
    const platform = await addPlatform(stack.harness);
    await updatePlatform(stack.harness.database.db, platform.key, { eventDelivery: 'poll' }, CLI_ACTOR);
    await browserLogin(stack.harness, platform.key, USERS.alice); // alice uses the platform

    const { context, page } = await stack.newPage();
    const errors = collectPageErrors(page);
    await signIn(stack, page, '/profile', USERS.alice);
    await page.getByRole('heading', { name: 'Your profile', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Delete my account…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete your account?' });
    await dialog.getByLabel('Type DELETE to confirm').fill('DELETE');
    await dialog.getByRole('button', { name: 'Delete my account' }).click();
    await page.waitForURL(`${stack.url}/signed-out`);

    const section = page.getByRole('region', { name: 'Platforms told about the deletion' });
    const row = section.getByRole('row', { name: new RegExp(`Platform ${platform.key}`) });
    await row.getByText('Not acknowledged yet').waitFor();
    await expectAccessible(page, 'deletion acknowledgements, pending');

    // The platform polls and acknowledges.
    const api = () => request(stack.harness.gateway.app);
    const polled = await api().post('/v1/events/poll').set('Authorization', platform.basic).send({}).expect(200);
    const jtis = Object.keys(polled.body.sets);
    expect(jtis).toHaveLength(1);
    await api().post('/v1/events/poll').set('Authorization', platform.basic).send({ ack: jtis, maxEvents: 0 }).expect(200);

    await section.getByRole('button', { name: 'Check again' }).click();
    await row.getByText(/^Acknowledged on /).waitFor();
    await expectAccessible(page, 'deletion acknowledgements, acknowledged');
    await screenshots(page, 'deletion-acknowledgements');

    // Later, in the same browser.
    await page.goto(`${stack.url}/account-deleted`);
    await page.getByRole('heading', { name: 'Platforms told about the deletion', level: 1 }).waitFor();
    await page.getByRole('row', { name: new RegExp(`Platform ${platform.key}`) }).getByText(/^Acknowledged on /).waitFor();
    await expectAccessible(page, '/account-deleted');
    expect(errors).toEqual([]);

    // Another browser has no receipt: it is told so, and sees no platform.
    const other = await stack.newPage();
    await other.page.goto(`${stack.url}/account-deleted`);
    await other.page.getByText(/can no longer show which platforms were told/).waitFor();
    expect(await other.page.getByRole('table').count()).toBe(0);
    await other.context.close();
    await context.close();
  }, 90_000);
});
