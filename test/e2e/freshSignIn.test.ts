// Fresh sign-in and second factor through the real stack: gateway, PostgreSQL and the dev identity
// provider (oidc-provider), driven over HTTP as a browser and a platform back end would. The
// provider keeps a session, so a plain second login skips its login page (single sign-on); a
// `maxAge` the session exceeds, or `forceLogin`, brings the page back; a second factor asks for the
// one-time code of the user's seeded TOTP secret, computed here as an authenticator app would.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import { startHarness, addPlatform, startUrl, type Harness, type TestPlatform } from '../helpers/flowHarness.ts';
import { OidcBrowser, type BrowserResponse } from '../helpers/oidcBrowser.ts';
import { randomToken, s256Challenge } from '../../src/security/crypto.ts';
import { DEV_TOTP_SECRETS } from '../../src/devidp/index.ts';
import { base32Decode, totp } from '../../src/devidp/totp.ts';

const ALICE = { username: 'alice', password: 'alice-password', sub: 'dev-user-alice' };
const ADMIN = { username: 'admin', password: 'admin-password' };

const aliceCode = () => totp(base32Decode(DEV_TOTP_SECRETS[ALICE.sub]!), Date.now() / 1000);

describe('fresh sign-in through the dev identity provider', () => {
  let harness: Harness;
  let platform: TestPlatform;

  beforeAll(async () => {
    harness = await startHarness();
    platform = await addPlatform(harness);
  });
  afterAll(async () => {
    await harness?.close();
  });

  const isOwn = (url: string) => url.startsWith(harness.baseUrl) || url.startsWith(harness.idp.issuer);

  interface Started {
    /** The first page that is not a redirect (the provider's login page), or where the flow left the gateway and provider. */
    page: BrowserResponse;
    leftAt: string | undefined;
    verifier: string;
  }

  /** A start (with a handoff challenge) followed to the login page, or out to the platform when the provider's session suffices. */
  async function start(browser: OidcBrowser, url: string): Promise<Started> {
    const verifier = randomToken();
    const started = await browser.get(`${url}&handoffChallenge=${s256Challenge(verifier)}`);
    expect(started.status, started.text).toBe(302);
    const followed = await browser.followRedirects(started, { stopWhen: (next) => !isOwn(next) });
    return { page: followed.response, leftAt: followed.stoppedAt, verifier };
  }

  async function signIn(browser: OidcBrowser, started: Started, user: { username: string; password: string }, extra: Record<string, string> = {}): Promise<string> {
    expect(started.page.text).toContain('name="password"');
    const after = await browser.loginAtDevIdp(started.page, user.username, user.password, extra);
    const followed = await browser.followRedirects(after, { stopWhen: (next) => !isOwn(next) });
    if (!followed.stoppedAt) throw new Error(`the flow did not leave the gateway: ${followed.response.status} ${followed.response.text.slice(0, 300)}`);
    return followed.stoppedAt;
  }

  async function exchange(leftAt: string, verifier: string) {
    const code = new URL(leftAt).searchParams.get('code');
    expect(code, leftAt).toMatch(/^handoff_/);
    return (await request(harness.gateway.app).post('/v1/auth/exchange').set('Authorization', platform.basic).send({ code, handoffVerifier: verifier }).expect(200)).body;
  }

  it('maxAge older than the provider session, and forceLogin, bring back the login page that single sign-on skips; the exchange carries authTime and amr', async () => {
    const browser = new OidcBrowser();
    const first = await start(browser, startUrl(harness, platform.key));
    const firstBody = await exchange(await signIn(browser, first, ALICE), first.verifier);
    expect(firstBody.authentication.amr).toEqual(['pwd']);
    const signedInAt = Date.parse(firstBody.authentication.authTime as string);
    expect(Math.abs(signedInAt - Date.now())).toBeLessThan(10_000);

    // Single sign-on: the provider's session suffices, no login page.
    const again = await start(browser, startUrl(harness, platform.key));
    expect(again.leftAt).toBeDefined();
    expect((await exchange(again.leftAt!, again.verifier)).authentication.authTime).toBe(firstBody.authentication.authTime);

    // A session older than maxAge: the login page again (a minute in the demo; a second here).
    await new Promise((resolve) => setTimeout(resolve, 2100));
    const fresh = await start(browser, startUrl(harness, platform.key, undefined, { maxAge: '1' }));
    expect(fresh.leftAt).toBeUndefined();
    const freshBody = await exchange(await signIn(browser, fresh, ALICE), fresh.verifier);
    expect(Date.parse(freshBody.authentication.authTime as string)).toBeGreaterThan(signedInAt);
    expect(freshBody.authentication.requested).toEqual({ maxAge: 1, forceLogin: false, secondFactor: false, stepUp: false });

    // forceLogin (prompt=login): the page at once, however recent the session.
    const forced = await start(browser, startUrl(harness, platform.key, undefined, { forceLogin: 'true' }));
    expect(forced.leftAt).toBeUndefined();
    const forcedBody = await exchange(await signIn(browser, forced, ALICE), forced.verifier);
    expect(forcedBody.authentication.requested.forceLogin).toBe(true);
  });

  it('a second factor: the page asks for the one-time code, a wrong one is refused, the right one puts otp and mfa in amr', async () => {
    const browser = new OidcBrowser();
    await exchange(...(await (async () => {
      const s = await start(browser, startUrl(harness, platform.key));
      return [await signIn(browser, s, ALICE), s.verifier] as const;
    })()));

    // The provider's session has no second factor: the login page asks for the code.
    const started = await start(browser, startUrl(harness, platform.key, undefined, { requireSecondFactor: 'true' }));
    expect(started.leftAt).toBeUndefined();
    expect(started.page.text).toContain('name="otp"');
    const wrongCode = String((Number(aliceCode()) + 1) % 1_000_000).padStart(6, '0');
    const wrong = await browser.loginAtDevIdp(started.page, ALICE.username, ALICE.password, { otp: wrongCode });
    expect(wrong.status).toBe(200);
    expect(wrong.text).toContain('Invalid one-time code.');

    const leftAt = await signIn(browser, { ...started, page: wrong }, ALICE, { otp: aliceCode() });
    const body = await exchange(leftAt, started.verifier);
    expect(body.authentication.amr).toEqual(['pwd', 'otp', 'mfa']);
    expect(body.authentication.requested.secondFactor).toBe(true);
  });

  it('a step-up asked by the platform for alice, completed by admin at the provider, is refused with a page offering to try again', async () => {
    const browser = new OidcBrowser();
    const first = await start(browser, startUrl(harness, platform.key));
    const credential = (await exchange(await signIn(browser, first, ALICE), first.verifier)).session.gatewayToken as string;

    const verifier = randomToken();
    const stepUp = await request(harness.gateway.app).post('/v1/auth/step-up').set('Cookie', `gw_session=${credential}`)
      .send({ returnTo: '/account', handoffChallenge: s256Challenge(verifier) }).expect(200);
    const started = await browser.get(stepUp.body.url as string);
    const page = (await browser.followRedirects(started, { stopWhen: (next) => !isOwn(next) })).response;
    const after = await browser.loginAtDevIdp(page, ADMIN.username, ADMIN.password);
    // Another account than the provider session's: oidc-provider ends that session first, with a
    // form its page's script submits (as a browser would), then completes the login as admin.
    let current = (await browser.followRedirects(after, { stopWhen: (next) => !isOwn(next) })).response;
    for (let hops = 0; current.text.includes('<title>Submitting Callback</title>') && hops < 3; hops++) {
      const action = /<form method="post" action="([^"]+)"/.exec(current.text)![1]!.replaceAll('&amp;', '&');
      const fields = Object.fromEntries([...current.text.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"\/>/g)].map((m) => [m[1]!, m[2]!]));
      const posted = await browser.postForm(new URL(action, current.url).href, fields);
      current = (await browser.followRedirects(posted, { stopWhen: (next) => !isOwn(next) })).response;
    }
    const refused = current;
    expect(refused.status, `${refused.url} ${refused.text.slice(0, 600)}`).toBe(403);
    expect(refused.text).toContain('Try again');
  });
});
