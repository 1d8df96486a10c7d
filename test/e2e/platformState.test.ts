// Issue 24 §1: the platform's correlation value (`platformState`). A back end with several
// logins in flight passes its own opaque value at start; the gateway hands it back beside the
// code, only on the redirect to the platform's registered callback, stores it sealed (never in
// the clear) and keeps it out of its logs. A start without it works as before.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import { randomBytes } from 'node:crypto';
import { startHarness, addPlatform, browserLogin, startUrl, PLATFORM_CALLBACK, type Harness } from '../helpers/flowHarness.ts';
import { OidcBrowser } from '../helpers/oidcBrowser.ts';
import { REDACT_PATHS } from '../../src/logger.ts';

const ALICE = { username: 'alice', password: 'alice-password' };
const ADMIN = { username: 'admin', password: 'admin-password' };
const ACCOUNT_CENTER = 'http://account.test';
const pathOf = (url: string) => {
  const parsed = new URL(url);
  return parsed.pathname + parsed.search;
};

describe('platformState at start', () => {
  let harness: Harness;

  beforeAll(async () => {
    harness = await startHarness();
  });
  afterAll(async () => {
    await harness?.close();
  });

  it('comes back unchanged beside the code on the redirect to the registered callback, and is stored sealed', async () => {
    const platform = await addPlatform(harness);
    const platformState = randomBytes(32).toString('base64url');
    const { location } = await browserLogin(harness, platform.key, ALICE, new OidcBrowser(), { platformState });
    expect(`${location.origin}${location.pathname}`).toBe(PLATFORM_CALLBACK);
    expect(location.searchParams.get('code')).toMatch(/^handoff_/);
    expect(location.searchParams.get('platformState')).toBe(platformState);
    const { rows } = await harness.database.db.raw<{ rows: Array<{ sealed: string | null }> }>(
      `SELECT t.platform_state_sealed AS sealed FROM auth_transactions t JOIN platforms p ON p.id = t.platform_id WHERE p.platform_key = ?`,
      [platform.key],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]!.sealed).toMatch(/^v1\./);
    expect(rows[0]!.sealed).not.toContain(platformState);
  });

  it('two logins of one browser in flight at once each get their own value back (start A, start B, finish B, finish A)', async () => {
    const platform = await addPlatform(harness);
    const browser = new OidcBrowser();
    const isOwn = (url: string) => url.startsWith(harness.baseUrl) || url.startsWith(harness.idp.issuer);
    const startA = await browser.get(startUrl(harness, platform.key, undefined, { platformState: 'tab-A' }));
    const startB = await browser.get(startUrl(harness, platform.key, undefined, { platformState: 'tab-B' }));
    const loginPageB = await browser.followRedirects(startB, { maxHops: 10 });
    const finishB = await browser.followRedirects(await browser.loginAtDevIdp(loginPageB.response, ALICE.username, ALICE.password), { stopWhen: (url) => !isOwn(url), maxHops: 10 });
    // A: the provider's session now exists, so A's authorize comes straight back.
    const finishA = await browser.followRedirects(startA, { stopWhen: (url) => !isOwn(url), maxHops: 10 });
    expect(new URL(finishB.stoppedAt!).searchParams.get('platformState')).toBe('tab-B');
    expect(new URL(finishA.stoppedAt!).searchParams.get('platformState')).toBe('tab-A');
  });

  it('comes back after central onboarding too: the resume hands it to the callback beside its code', async () => {
    const admin = await browserLogin(harness, (await addPlatform(harness)).key, ADMIN);
    const cookieOf = (browser: OidcBrowser) => `gw_session=${browser.cookiesFor(`${harness.baseUrl}/`).gw_session}`;
    const platform = await addPlatform(harness, { defaultOnboardingMode: 'central' });
    await request(harness.gateway.app).post(`/v1/platforms/${platform.key}/onboarding/fields`).set('Cookie', cookieOf(admin.browser)).set('Origin', ACCOUNT_CENTER)
      .send({ fieldKey: 'company', label: 'Company', fieldType: 'TEXT', required: true, sortOrder: 1 }).expect(201);
    const { location, browser } = await browserLogin(harness, platform.key, ALICE, new OidcBrowser(), { platformState: 'resumed.login~1' });
    expect(`${location.origin}${location.pathname}`).toBe(`${ACCOUNT_CENTER}/onboarding/${platform.key}`);
    expect(location.searchParams.get('platformState')).toBeNull(); // only ever to the platform's callback
    const asPerson = (req: request.Test) => req.set('Cookie', cookieOf(browser)).set('Origin', ACCOUNT_CENTER);
    await asPerson(request(harness.gateway.app).put(`/v1/onboarding/${platform.key}/values`)).send({ values: { company: 'Acme' } }).expect(200);
    await asPerson(request(harness.gateway.app).post(`/v1/onboarding/${platform.key}/complete`)).expect(200);
    const resumed = await browser.get(`${harness.baseUrl}/v1/auth/resume?transaction=${location.searchParams.get('resume')}`);
    expect(resumed.status, resumed.text).toBe(302);
    const callback = new URL(resumed.location!);
    expect(`${callback.origin}${callback.pathname}`).toBe(PLATFORM_CALLBACK);
    expect(callback.searchParams.get('code')).toMatch(/^handoff_/);
    expect(callback.searchParams.get('platformState')).toBe('resumed.login~1');
  });

  it('is absent from the callback when the start carried none (as before)', async () => {
    const platform = await addPlatform(harness);
    const { location } = await browserLogin(harness, platform.key, ALICE);
    expect([...location.searchParams.keys()]).toEqual(['code']);
  });

  it.each([
    ['too long', 'a'.repeat(129)],
    ['a character outside the unreserved set', 'tab A'],
    ['a delimiter that would need escaping', 'a&code=handoff_x'],
    ['empty', ''],
  ])('is refused when %s (400, nothing written)', async (_why, platformState) => {
    const platform = await addPlatform(harness);
    const res = await request(harness.gateway.app).get(pathOf(startUrl(harness, platform.key, undefined, { platformState }))).set('Accept', 'application/json');
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_FAILED');
    const { rows } = await harness.database.db.raw<{ rows: Array<{ n: number }> }>(
      `SELECT count(*)::int AS n FROM auth_transactions t JOIN platforms p ON p.id = t.platform_id WHERE p.platform_key = ?`,
      [platform.key],
    );
    expect(rows[0]!.n).toBe(0);
  });

  it('accepts the longest allowed value', async () => {
    const platform = await addPlatform(harness);
    const res = await request(harness.gateway.app).get(pathOf(startUrl(harness, platform.key, undefined, { platformState: '~'.repeat(128) })));
    expect(res.status).toBe(302);
  });

  it('is censored wherever the log carries request data', () => {
    expect(REDACT_PATHS).toEqual(expect.arrayContaining(['platformState', 'query.platformState', 'input.platformState']));
  });
});
