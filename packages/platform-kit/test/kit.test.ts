// The platform kit against the real gateway, dev identity provider and PostgreSQL, in an
// Express back end written as its README says (issue 24 §2, §3): two logins of one browser in
// flight finish in either order; a code is never exchanged without its login's verifier; a
// replayed code, an expired login and a forged correlation value end on a page with a way
// forward; back-channel logout ends the right session and no other; the typed client calls
// the gateway with the platform credential.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import express from 'express';
import request from 'supertest';
import { randomBytes } from 'node:crypto';
import { startHarness, type Harness } from '../../../test/helpers/flowHarness.ts';
import { OidcBrowser, type BrowserResponse } from '../../../test/helpers/oidcBrowser.ts';
import { freePort } from '../../../src/db/embedded.ts';
import { CLI_ACTOR, createPlatform, updatePlatform } from '../../../src/services/registry/index.ts';
import { startBackchannelWorker, type BackchannelWorker } from '../../../src/services/backchannel/worker.ts';
import { createFieldDefinition } from '../../../src/services/onboarding/schema.ts';
import { createDraft, publishVersion } from '../../../src/services/documents/administration.ts';
import { generateSigningKeySpec } from '../../../src/security/signingKeys.ts';
import { createPlatformKit, MemorySessionStore, type PlatformKit } from '../src/index.ts';
import { platformKitRouter, requireSession } from '../src/express.ts';
import { loginCookieName, loginSeal } from '../src/logins.ts';

const ALICE = { username: 'alice', password: 'alice-password' };
const PLATFORM = 'KIT_E2E';

describe('the platform kit in an Express back end', () => {
  let harness: Harness;
  let worker: BackchannelWorker;
  let server: http.Server;
  let appUrl: string;
  let kit: PlatformKit;
  const sessions = new MemorySessionStore();
  const cookieSecret = randomBytes(32).toString('base64url');

  beforeAll(async () => {
    harness = await startHarness({ GATEWAY_SIGNING_KEYS: generateSigningKeySpec('kit-e2e'), OUTBOUND_ALLOWED_PRIVATE_RANGES: '127.0.0.0/8' });
    worker = await startBackchannelWorker(harness.gateway.deps, { pollIntervalMs: 100 });
    const port = await freePort();
    appUrl = `http://127.0.0.1:${port}`;
    const created = await createPlatform(
      harness.database.db,
      { platformKey: PLATFORM, displayName: 'Kit', callbackUrl: `${appUrl}/auth/callback`, allowedReturnUrls: [`${appUrl}/`], defaultOnboardingMode: 'none' },
      CLI_ACTOR,
    );
    await updatePlatform(harness.database.db, PLATFORM, { backchannelLogoutUrl: `${appUrl}/auth/backchannel-logout` }, CLI_ACTOR, { requireHttps: false, outbound: harness.gateway.config.outbound });
    // The README's ten lines.
    kit = createPlatformKit({ gatewayUrl: harness.baseUrl, platformKey: PLATFORM, clientId: created.platform.clientId!, clientSecret: created.clientSecret, publicUrl: appUrl, cookieSecret, sessions });
    // A second platform in `platform` onboarding mode, with a required field, under /p.
    const onboarding = await createPlatform(
      harness.database.db,
      { platformKey: `${PLATFORM}_ONBOARDS`, displayName: 'Kit onboards', callbackUrl: `${appUrl}/p/auth/callback`, allowedReturnUrls: [`${appUrl}/`], defaultOnboardingMode: 'platform' },
      CLI_ACTOR,
    );
    await createFieldDefinition(harness.database.db, `${PLATFORM}_ONBOARDS`, { fieldKey: 'company', label: 'Company', fieldType: 'TEXT', required: true }, CLI_ACTOR);
    // And terms to accept (a required document).
    const terms = await createDraft(harness.database.db, `${PLATFORM}_ONBOARDS`, 'terms', { kind: 'terms', material: true, defaultLanguage: 'en', texts: { en: { title: 'Terms', markdown: 'Be kind.' } } });
    await publishVersion(harness.database.db, `${PLATFORM}_ONBOARDS`, 'terms', terms.version, CLI_ACTOR);
    const onboardingKit = createPlatformKit({
      gatewayUrl: harness.baseUrl, platformKey: `${PLATFORM}_ONBOARDS`, clientId: onboarding.platform.clientId!, clientSecret: onboarding.clientSecret, publicUrl: appUrl, cookieSecret,
      paths: { signIn: '/p/auth/login', callback: '/p/auth/callback', backchannelLogout: '/p/auth/backchannel-logout', signOut: '/p/auth/logout' },
      cookiePrefix: 'pk_onboards',
    });
    const app = express();
    app.use(platformKitRouter(kit));
    app.use(platformKitRouter(onboardingKit));
    app.get('/p/onboarding', requireSession(onboardingKit), async (_req, res) => {
      const requirements = await onboardingKit.onboardingRequirements(res.locals.session);
      res.json({
        needsOnboarding: onboardingKit.needsOnboarding(res.locals.session),
        fields: requirements.fields.map((field) => [field.fieldKey, field.required, field.currentValue]),
        missingFields: requirements.missingFields,
        missingDocuments: requirements.missingDocuments,
        acceptedDocuments: requirements.acceptedDocuments,
        documents: requirements.documents.map((document) => [document.documentKey, document.state, document.current.texts.en?.title]),
      });
    });
    // The platform's page records what the person accepted on it, with its own credential.
    app.post('/p/onboarding/accept', requireSession(onboardingKit), async (_req, res) => {
      const session = res.locals.session;
      for (const document of (await onboardingKit.onboardingRequirements(session)).documents.filter((candidate) => candidate.state === 'pending')) {
        const language = document.current.defaultLanguage;
        const accepted = await onboardingKit.client(session).POST('/v1/agreements/{platformKey}/acceptances', {
          params: { path: { platformKey: `${PLATFORM}_ONBOARDS` } },
          body: { documentKey: document.documentKey, version: document.current.version, language, sha256: document.current.texts[language]!.sha256 },
        });
        if (!accepted.data) return void res.status(502).json(accepted.error);
      }
      res.status(204).end();
    });
    app.get('/me', requireSession(kit), async (_req, res) => {
      const me = await kit.client(res.locals.session).GET('/v1/me');
      res.json({ sub: me.data?.user.sub, displayName: me.data?.user.displayName, gatewaySessionId: res.locals.session.gatewaySessionId });
    });
    app.get(/^\/(a|b|)$/, (req, res) => res.send(`page ${req.path}`));
    server = await new Promise((resolve) => {
      const listening = app.listen(port, '127.0.0.1', () => resolve(listening));
    });
  });
  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    await worker?.stop();
    await harness?.close();
  });

  const isGatewayOrProvider = (url: string) => url.startsWith(harness.baseUrl) || url.startsWith(harness.idp.issuer);
  const unspentCodes = async () =>
    (await harness.database.db.raw(`SELECT count(*)::int AS n FROM handoff_codes h JOIN platforms p ON p.id = h.platform_id WHERE p.platform_key = ? AND h.consumed_at IS NULL`, [PLATFORM])).rows[0].n as number;

  /** A login started at the kit's sign-in route, up to the provider's login page. */
  async function startAt(browser: OidcBrowser, returnTo: string): Promise<{ loginPage: BrowserResponse; state: string }> {
    const signIn = await browser.get(`${appUrl}/auth/login?returnTo=${encodeURIComponent(returnTo)}`);
    expect(signIn.status).toBe(302);
    const start = new URL(signIn.location!);
    expect(start.searchParams.get('handoffChallenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const state = start.searchParams.get('platformState')!;
    expect(state).toMatch(/^[A-Za-z0-9_-]{43}$/);
    return { loginPage: (await browser.followRedirects(signIn, { maxHops: 10 })).response, state };
  }

  /** Signs in on that page (or passes the provider's session) and stops at the kit's callback. */
  async function finishUpToCallback(browser: OidcBrowser, loginPage: BrowserResponse): Promise<string> {
    const submitted = /name="password"/.test(loginPage.text) ? await browser.loginAtDevIdp(loginPage, ALICE.username, ALICE.password) : loginPage;
    const followed = await browser.followRedirects(submitted, { stopWhen: (url) => !isGatewayOrProvider(url), maxHops: 10 });
    expect(followed.stoppedAt).toMatch(new RegExp(`^${appUrl}/auth/callback\\?`));
    return followed.stoppedAt!;
  }

  async function signedIn(browser: OidcBrowser) {
    const me = await browser.get(`${appUrl}/me`);
    return me.status === 200 ? (JSON.parse(me.text) as { sub: string; displayName: string; gatewaySessionId: string }) : null;
  }

  it.each([
    ['A start, B start, finish B, finish A', ['b', 'a']],
    ['A start, B start, finish A, finish B', ['a', 'b']],
  ])('two logins of one browser in flight both finish (%s)', async (_order, finishing) => {
    const browser = new OidcBrowser();
    const started = { a: await startAt(browser, '/a'), b: await startAt(browser, '/b') };
    for (const tab of finishing as Array<'a' | 'b'>) {
      const callback = await browser.get(await finishUpToCallback(browser, started[tab].loginPage));
      expect(callback.status, callback.text).toBe(303);
      expect(callback.location).toBe(`${appUrl}/${tab}`);
      expect(await signedIn(browser)).toMatchObject({ sub: 'dev-user-alice', displayName: 'Alice Example' });
    }
  });

  it('refuses, without exchanging it, a code whose login this browser did not start (another browser\'s link)', async () => {
    const attacker = new OidcBrowser();
    const { loginPage } = await startAt(attacker, '/');
    const injected = await finishUpToCallback(attacker, loginPage);
    const victim = new OidcBrowser();
    await startAt(victim, '/'); // a login of the victim's own in flight: its verifier is not this code's
    const before = await unspentCodes();
    const page = await victim.get(injected);
    expect(page.status).toBe(400);
    expect(page.text).toContain('data-reason="no-login"');
    expect(page.text).toContain('<a href="/auth/login">Start again</a>');
    expect(await unspentCodes()).toBe(before);
    expect(await signedIn(victim)).toBeNull();
  });

  it("refuses a code carried beside the victim's own correlation value: the victim's verifier is not that code's (the gateway refuses the pair)", async () => {
    const attacker = new OidcBrowser();
    const { loginPage } = await startAt(attacker, '/');
    const code = new URL(await finishUpToCallback(attacker, loginPage)).searchParams.get('code')!;
    const victim = new OidcBrowser();
    const { state } = await startAt(victim, '/b');
    const page = await victim.get(`${appUrl}/auth/callback?code=${encodeURIComponent(code)}&platformState=${state}`);
    expect(page.status).toBe(404);
    expect(page.text).toContain('data-reason="refused"');
    expect(page.text).toContain('HANDOFF_CODE_INVALID');
    expect(page.text).toContain(`<a href="/auth/login?returnTo=%2Fb">Start again</a>`);
    expect(await signedIn(victim)).toBeNull();
  });

  it('a replayed callback ends on a page with a way forward; with the login cookie kept, the gateway refuses the spent code', async () => {
    const browser = new OidcBrowser();
    const { loginPage, state } = await startAt(browser, '/a');
    const callbackUrl = await finishUpToCallback(browser, loginPage);
    const loginCookie = browser.cookiesFor(callbackUrl)[loginCookieName('pk', state)]!;
    expect((await browser.get(callbackUrl)).status).toBe(303);
    // The browser's reload: its login is spent (the cookie went with the first use).
    const reload = await browser.get(callbackUrl);
    expect(reload.status).toBe(400);
    expect(reload.text).toContain('Start again');
    // Someone who kept the login cookie and replays the whole request: the gateway refuses the code.
    const replay = await fetch(callbackUrl, { headers: { Cookie: `${loginCookieName('pk', state)}=${loginCookie}` }, redirect: 'manual' });
    expect(replay.status).toBe(404);
    const text = await replay.text();
    expect(text).toContain('HANDOFF_CODE_INVALID');
    expect(text).toContain('<a href="/auth/login?returnTo=%2Fa">Start again</a>');
  });

  it('a HEAD of the callback spends nothing (Express runs GET routes for HEAD): the login still finishes after it', async () => {
    const browser = new OidcBrowser();
    const { loginPage, state } = await startAt(browser, '/a');
    const callbackUrl = await finishUpToCallback(browser, loginPage);
    const before = await unspentCodes();
    const head = await fetch(callbackUrl, { method: 'HEAD', headers: { Cookie: `${loginCookieName('pk', state)}=${browser.cookiesFor(callbackUrl)[loginCookieName('pk', state)]!}` }, redirect: 'manual' });
    expect(head.status).toBe(405);
    expect(head.headers.get('allow')).toBe('GET');
    expect(await unspentCodes()).toBe(before);
    expect((await browser.get(callbackUrl)).status).toBe(303);
  });

  it('an expired login ends on a page that says so, with a way forward, and its code is not exchanged', async () => {
    const browser = new OidcBrowser();
    const { loginPage, state } = await startAt(browser, '/a');
    const callbackUrl = await finishUpToCallback(browser, loginPage);
    // The same login's cookie, sealed as the kit does with no time left (its Max-Age would have removed it from a browser).
    const expired = await loginSeal(cookieSecret).seal({ verifier: 'x'.repeat(43), state, returnTo: '/a' }, 0);
    const before = await unspentCodes();
    const page = await fetch(callbackUrl, { headers: { Cookie: `${loginCookieName('pk', state)}=${expired}` }, redirect: 'manual' });
    expect(page.status).toBe(400);
    const text = await page.text();
    expect(text).toContain('data-reason="expired"');
    expect(text).toContain('took too long');
    expect(text).toContain('Start again');
    expect(await unspentCodes()).toBe(before);
  });

  it('a forged correlation value, or a forged login cookie, ends on a page with a way forward and exchanges nothing', async () => {
    const browser = new OidcBrowser();
    const { loginPage, state } = await startAt(browser, '/a');
    const code = new URL(await finishUpToCallback(browser, loginPage)).searchParams.get('code')!;
    const before = await unspentCodes();
    const forged = await browser.get(`${appUrl}/auth/callback?code=${encodeURIComponent(code)}&platformState=${randomBytes(32).toString('base64url')}`);
    expect(forged.status).toBe(400);
    expect(forged.text).toContain('Start again');
    // A cookie of the right name but sealed under another key (someone else's back end, or made up).
    const other = await loginSeal(randomBytes(32).toString('base64url')).seal({ verifier: 'v'.repeat(43), state, returnTo: '/a' }, 600);
    const made = await fetch(`${appUrl}/auth/callback?code=${encodeURIComponent(code)}&platformState=${state}`, { headers: { Cookie: `${loginCookieName('pk', state)}=${other}` }, redirect: 'manual' });
    expect(made.status).toBe(400);
    expect(await made.text()).toContain('data-reason="no-login"');
    expect(await unspentCodes()).toBe(before);
    // The person's own login still finishes.
    expect((await browser.get(`${appUrl}/auth/callback?code=${encodeURIComponent(code)}&platformState=${state}`)).status).toBe(303);
  });

  it('keeps at most five logins of one browser in flight: a sixth drops the oldest', async () => {
    const browser = new OidcBrowser();
    for (let i = 0; i < 6; i += 1) await browser.get(`${appUrl}/auth/login`);
    const loginCookies = Object.keys(browser.cookiesFor(`${appUrl}/auth/callback`)).filter((name) => name.startsWith('pk_login_'));
    expect(loginCookies).toHaveLength(5);
  });

  it('keeps a login cookie small whatever the returnTo (up to five go with every request under the kit\'s path), and a long returnTo still ends where it asked', async () => {
    const browser = new OidcBrowser();
    const longReturnTo = `/a?q=${'x'.repeat(1900)}`;
    const { loginPage } = await startAt(browser, longReturnTo);
    const [value] = Object.entries(browser.cookiesFor(`${appUrl}/auth/callback`)).filter(([name]) => name.startsWith('pk_login_')).map(([, sealed]) => sealed);
    expect(value!.length).toBeLessThan(700);
    const callback = await browser.get(await finishUpToCallback(browser, loginPage));
    expect(callback.status).toBe(303);
    expect(callback.location).toBe(`${appUrl}${longReturnTo}`);
  });

  it('back-channel logout ends the session of that gateway session and no other', async () => {
    const first = new OidcBrowser();
    const second = new OidcBrowser();
    for (const browser of [first, second]) {
      const { loginPage } = await startAt(browser, '/');
      expect((await browser.get(await finishUpToCallback(browser, loginPage))).status).toBe(303);
    }
    const ofFirst = (await signedIn(first))!;
    const ofSecond = (await signedIn(second))!;
    expect(ofFirst.gatewaySessionId).not.toBe(ofSecond.gatewaySessionId);
    // The first person signs out at the gateway (the account center's sign-out): the gateway tells the kit.
    const gatewayCookie = `gw_session=${first.cookiesFor(`${harness.baseUrl}/`).gw_session}`;
    await request(harness.gateway.app).post('/v1/auth/logout').set('Cookie', gatewayCookie).set('Origin', harness.gateway.config.accountCenterUrl).expect(204);
    await expect.poll(async () => (await signedIn(first)) === null, { timeout: 10_000 }).toBe(true);
    expect(await signedIn(second)).toMatchObject({ gatewaySessionId: ofSecond.gatewaySessionId });
  });

  it('onboarding helpers: a person who has not been through the platform\'s own onboarding needs it, and gets its fields and the documents still to accept', async () => {
    const browser = new OidcBrowser();
    const guarded = await browser.get(`${appUrl}/p/onboarding`);
    expect(guarded.location).toBe(`${appUrl}/p/auth/login?returnTo=%2Fp%2Fonboarding`);
    const signIn = await browser.get(guarded.location!);
    const loginPage = (await browser.followRedirects(signIn, { maxHops: 10 })).response;
    const callbackUrl = await (async () => {
      const submitted = await browser.loginAtDevIdp(loginPage, ALICE.username, ALICE.password);
      return (await browser.followRedirects(submitted, { stopWhen: (url) => !isGatewayOrProvider(url), maxHops: 10 })).stoppedAt!;
    })();
    expect(callbackUrl.startsWith(`${appUrl}/p/auth/callback?`)).toBe(true);
    const page = await browser.followRedirects(await browser.get(callbackUrl), { maxHops: 3 });
    const terms = { documentKey: 'terms', kind: 'terms', version: 1 };
    expect(JSON.parse(page.response.text)).toEqual({
      needsOnboarding: true,
      fields: [['company', true, null]],
      missingFields: ['company'],
      missingDocuments: [terms],
      acceptedDocuments: [],
      documents: [['terms', 'pending', 'Terms']],
    });

    // Accepted on the platform's page: the documents are done, the field is still missing.
    expect((await browser.postForm(`${appUrl}/p/onboarding/accept`, {}, { origin: appUrl })).status).toBe(204);
    expect(JSON.parse((await browser.get(`${appUrl}/p/onboarding`)).text)).toMatchObject({
      missingFields: ['company'],
      missingDocuments: [],
      acceptedDocuments: [terms],
      documents: [['terms', 'accepted', 'Terms']],
    });
  });

  it('its back-channel endpoint answers 400 to a bad or missing token and 405 to anything but POST', async () => {
    const bad = await fetch(`${appUrl}/auth/backchannel-logout`, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'logout_token=eyJhbGciOiJub25lIn0.e30.' });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: 'invalid_request' });
    expect((await fetch(`${appUrl}/auth/backchannel-logout`, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: '' })).status).toBe(400);
    expect((await fetch(`${appUrl}/auth/backchannel-logout`)).status).toBe(405);
  });

  it('signs out in one step: its own POST only, a sign-out token, the gateway ends its session', async () => {
    const browser = new OidcBrowser();
    const { loginPage } = await startAt(browser, '/');
    await browser.get(await finishUpToCallback(browser, loginPage));
    const { gatewaySessionId } = (await signedIn(browser))!;
    expect((await browser.postForm(`${appUrl}/auth/logout`, {}, { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    const posted = await browser.postForm(`${appUrl}/auth/logout`, {}, { origin: appUrl });
    expect(posted.status).toBe(303);
    const target = new URL(posted.location!);
    expect(`${target.origin}${target.pathname}`).toBe(`${harness.baseUrl}/v1/auth/logout`);
    expect(target.searchParams.get('signOutToken')).toEqual(expect.any(String));
    expect(await signedIn(browser)).toBeNull();
    await browser.get(posted.location!);
    const { rows } = await harness.database.db.raw(`SELECT ended_at FROM gateway_sessions WHERE id = ?`, [gatewaySessionId]);
    expect(rows[0].ended_at).not.toBeNull();
  });
});
