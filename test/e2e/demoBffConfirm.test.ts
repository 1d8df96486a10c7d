// The example BFF's "Confirm it's you" (fresh sign-in and step-up): on its account page, the
// button asks the gateway for a step-up of its session (a sign-in at most a minute old, with a
// second factor, by the same person); the dev provider shows its login page again, with the
// one-time code, although its session is fresh; back on the account page, the BFF decides from
// the exchange's `authentication` that the person confirmed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Harness } from '../helpers/flowHarness.ts';
import { startDemoBffHarness, type DemoBffHarness } from '../helpers/demoBffHarness.ts';
import { OidcBrowser } from '../helpers/oidcBrowser.ts';
import type { DemoBff } from '../../src/devstack/demoBff.ts';
import { DEV_TOTP_SECRETS } from '../../src/devidp/index.ts';
import { base32Decode, totp } from '../../src/devidp/totp.ts';

const ALICE = { username: 'alice', password: 'alice-password', sub: 'dev-user-alice' };

describe("the example BFF's Confirm it's you", () => {
  let harness: Harness;
  let bff: DemoBff;
  let stack: DemoBffHarness;

  beforeAll(async () => {
    stack = await startDemoBffHarness('BFF_CONFIRM');
    ({ harness, bff } = stack);
  });
  afterAll(async () => {
    await stack?.close();
  });

  const toBff = (url: string) => url.startsWith(bff.url);

  it('asks for a fresh sign-in with the one-time code, and shows the account as confirmed', async () => {
    const browser = new OidcBrowser();
    // Signed in through the BFF, to its account page.
    const login = await browser.followRedirects(await browser.get(`${bff.url}/login?returnTo=%2Faccount`), { maxHops: 10 });
    const signedIn = await browser.followRedirects(await browser.loginAtDevIdp(login.response, ALICE.username, ALICE.password), { maxHops: 10 });
    expect(signedIn.response.url).toBe(`${bff.url}/account`);
    expect(signedIn.response.text).toContain('id="confirm-its-you"');
    expect(signedIn.response.text).toContain('<code>pwd</code>');
    expect(signedIn.response.text).not.toContain('id="confirmed"');

    // Confirm it's you: the provider's session is seconds old, yet its login page comes back, with the code.
    const confirm = await browser.postForm(`${bff.url}/account/confirm`, {}, { origin: bff.url });
    expect(confirm.status).toBe(303);
    expect(new URL(confirm.location!).searchParams.get('stepUp')).toMatch(/^v1\./);
    const page = (await browser.followRedirects(confirm, { stopWhen: toBff, maxHops: 10 })).response;
    expect(page.text).toContain('name="otp"');
    const code = totp(base32Decode(DEV_TOTP_SECRETS[ALICE.sub]!), Date.now() / 1000);
    const back = await browser.followRedirects(await browser.loginAtDevIdp(page, ALICE.username, ALICE.password, { otp: code }), { maxHops: 10 });
    expect(back.response.url).toBe(`${bff.url}/account`);
    expect(back.response.text).toContain('id="confirmed"');
    expect(back.response.text).toContain('<code>mfa</code>');
  });

  it('without a session, the button leads to sign-in first; another site cannot press it', async () => {
    const browser = new OidcBrowser();
    expect((await browser.postForm(`${bff.url}/account/confirm`, {}, { origin: 'https://elsewhere.example' })).status).toBe(403);
    const confirm = await browser.postForm(`${bff.url}/account/confirm`, {}, { origin: bff.url });
    expect(confirm.status).toBe(303);
    expect(confirm.location).toBe(`${bff.url}/login?returnTo=%2Faccount`);
  });
});
