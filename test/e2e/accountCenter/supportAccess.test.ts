// Support access (issue 35) in Chromium, against the real stack: the operator's request form,
// the person's approval, and her "End it now", by their labels; axe clean at 1280 and 390 px.
// The operator's sign-in between them goes through the gateway's start with the operator's own
// browser session (taken from the operator's Chromium), as the platform's sign-in route sends it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import { collectPageErrors, expectAccessible, hasChromium, screenshots, signIn, startAccountCenterStack, USERS, type AccountCenterStack } from '../../helpers/accountCenter.ts';
import { addPlatform, browserLogin, startUrl, type TestPlatform } from '../../helpers/flowHarness.ts';
import { CLI_ACTOR, updatePlatform } from '../../../src/services/registry/index.ts';

describe.skipIf(!hasChromium)(`account center support access in Chromium${hasChromium ? '' : ' (skipped: /usr/bin/chromium is not installed)'}`, () => {
  let stack: AccountCenterStack;
  let platform: TestPlatform;
  beforeAll(async () => {
    stack = await startAccountCenterStack();
    platform = await addPlatform(stack.harness);
    await updatePlatform(stack.harness.database.db, platform.key, { supportAccess: 'approve', supportSignInUrl: 'https://bff.example.test/auth/login' }, CLI_ACTOR, {
      requireHttps: false,
      outbound: stack.harness.gateway.config.outbound,
    });
    await browserLogin(stack.harness, platform.key, USERS.alice); // alice has used the platform
  });
  afterAll(async () => {
    await stack?.close();
  });

  const gateway = () => request(stack.harness.gateway.app);

  it('the operator asks, alice approves, the operator signs in as her once, and alice ends it now', async () => {
    const name = `Platform ${platform.key}`;
    // The operator (the demo administrator, who holds support:access) asks in the account center.
    const operator = await stack.newPage();
    const operatorErrors = collectPageErrors(operator.page);
    await signIn(stack, operator.page, '/admin/support', USERS.admin);
    await operator.page.getByRole('heading', { name: 'See a platform as a person', level: 1 }).waitFor();
    await expectAccessible(operator.page, 'support request form at 1280 px');
    await operator.page.getByLabel('Person (e-mail address or subject)').fill('alice@example.test');
    await operator.page.getByLabel('Platform key').fill(platform.key);
    await operator.page.getByLabel('Reason').fill('Alice cannot see her invoices');
    await operator.page.getByLabel('Minutes (at most 30)').fill('15');
    await operator.page.getByRole('button', { name: 'Request support access' }).click();
    await operator.page.getByText('Requested. The person is asked to approve it.').waitFor();
    const requests = operator.page.getByRole('list', { name: 'Support access requests' });
    await requests.getByText(/waiting for your answer/).waitFor();
    expect(await operator.page.getByRole('link', { name: `Sign in to ${name} as this person` }).count()).toBe(0);

    // alice sees the request, with who, where, how long and why, and approves it.
    const person = await stack.newPage();
    const personErrors = collectPageErrors(person.page);
    await signIn(stack, person.page, '/support-access', USERS.alice);
    const asked = person.page.getByRole('region', { name: `Request to see ${name} as you` });
    await asked.waitFor();
    expect(await asked.textContent()).toContain(`Support (Ada Admin) wants to see ${name} as you, for 15 minutes, because: Alice cannot see her invoices`);
    await expectAccessible(person.page, 'support access request at 1280 px');
    await person.page.setViewportSize({ width: 390, height: 900 });
    await expectAccessible(person.page, 'support access request at 390 px');
    await person.page.setViewportSize({ width: 1280, height: 900 });
    await asked.getByRole('button', { name: 'Approve' }).click();
    await person.page.getByText(`Approved: support may see ${name} as you.`).waitFor();
    const running = person.page.getByRole('region', { name: `Support access to ${name} running now` });
    await running.waitFor();

    // The operator's page now offers the sign-in link, once.
    await operator.page.reload();
    const link = operator.page.getByRole('link', { name: `Sign in to ${name} as this person` });
    await link.waitFor();
    const signInUrl = new URL((await link.getAttribute('href'))!);
    const id = signInUrl.searchParams.get('supportAccess')!;
    expect(`${signInUrl.origin}${signInUrl.pathname}`).toBe('https://bff.example.test/auth/login');
    // The platform's route sends the operator's browser to the start: the operator's own cookie.
    const cookie = (await operator.context.cookies(stack.harness.baseUrl)).find((c) => c.name === 'gw_session')!;
    const start = new URL(startUrl(stack.harness, platform.key, undefined, { supportAccess: id }));
    const started = await gateway().get(start.pathname + start.search).set('Cookie', `gw_session=${cookie.value}`).expect(302);
    const exchanged = await gateway().post('/v1/auth/exchange').set('Authorization', platform.basic).send({ code: new URL(started.headers.location!).searchParams.get('code') }).expect(200);
    expect(exchanged.body.act).toEqual({ sub: 'dev-user-admin', name: 'Ada Admin' });
    expect(exchanged.body.user.sub).toBe('dev-user-alice');
    const support = `gw_session=${exchanged.body.session.gatewayToken}`;
    await gateway().get('/v1/me').set('Cookie', support).expect(200);

    // alice ends it now: the support session stops at once.
    await running.getByRole('button', { name: 'End it now' }).click();
    await person.page.getByText(`Ended: support no longer sees ${name} as you.`).waitFor();
    await person.page.getByRole('heading', { name: 'History', level: 2 }).waitFor();
    await person.page.getByText(/you were asked, ended/).waitFor();
    await expectAccessible(person.page, 'support access history');
    expect((await gateway().get('/v1/me').set('Cookie', support)).status).toBe(401);
    expect(personErrors).toEqual([]);
    expect(operatorErrors).toEqual([]);
    await person.context.close();
    await operator.context.close();
  });

  it('the operator asking a fourth time in 10 minutes reads why and in how many minutes to ask again; the form keeps what was typed', async () => {
    const operator = await stack.newPage();
    const operatorErrors = collectPageErrors(operator.page);
    await signIn(stack, operator.page, '/admin/support', USERS.admin);
    await operator.page.getByRole('heading', { name: 'See a platform as a person', level: 1 }).waitFor();
    // alice is asked up to the limit (3 in 10 minutes, whatever asked her before), by the operator's own session.
    const cookie = (await operator.context.cookies(stack.harness.baseUrl)).find((c) => c.name === 'gw_session')!;
    for (let asked = 0; asked < 3; asked++) {
      const res = await gateway().post('/v1/support-access').set('Cookie', `gw_session=${cookie.value}`).set('Origin', stack.url).send({ person: 'alice@example.test', platformKey: platform.key, reason: `asked ${asked}` });
      if (res.status === 429) break;
      expect(res.status).toBe(201);
    }
    await operator.page.getByLabel('Person (e-mail address or subject)').fill('alice@example.test');
    await operator.page.getByLabel('Platform key').fill(platform.key);
    await operator.page.getByLabel('Reason').fill('Alice still cannot see her invoices');
    await operator.page.getByRole('button', { name: 'Request support access' }).click();
    const refusal = operator.page.getByText(/was already asked to approve support access/);
    await refusal.waitFor();
    const text = (await refusal.textContent())!;
    expect(text).toMatch(/^This person was already asked to approve support access 3 times in the last 10 minutes\. You can ask again in \d+ minutes?\.$/);
    const minutes = Number(/in (\d+) minute/.exec(text)![1]);
    expect(minutes).toBeGreaterThanOrEqual(1);
    expect(minutes).toBeLessThanOrEqual(10);
    expect(await operator.page.getByLabel('Reason').inputValue()).toBe('Alice still cannot see her invoices');
    await expectAccessible(operator.page, 'support request refused (429)');
    await screenshots(operator.page, 'support-request-refused');
    // The browser reports the 429 itself; nothing else went wrong on the page.
    expect(operatorErrors.filter((error) => !/status of 429/.test(error))).toEqual([]);
    await operator.context.close();
  });

  it('the navigation leads alice to her support access page; the operator form is not hers', async () => {
    const { context, page } = await stack.newPage({ width: 390 });
    await signIn(stack, page, '/profile', USERS.alice);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Support access' }).click();
    await page.getByRole('heading', { name: 'Support access', level: 1 }).waitFor();
    expect(await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Support', exact: true }).count()).toBe(0);
    await context.close();
  });
});
