// Issue 9 §8: central onboarding end to end. A person signs in through the dev identity
// provider's login page; the account center's calls are made as it makes them (the browser
// session cookie, its Origin); the platform BFF exchanges the code.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import { startHarness, addPlatform, browserLogin, PLATFORM_CALLBACK, type Harness, type TestPlatform } from '../helpers/flowHarness.ts';
import type { OidcBrowser } from '../helpers/oidcBrowser.ts';

const ALICE = { username: 'alice', password: 'alice-password' };
const ADMIN = { username: 'admin', password: 'admin-password' };
const ACCOUNT_CENTER = 'http://account.test';

describe('central onboarding end to end', () => {
  let harness: Harness;
  let adminCookie: string;

  beforeAll(async () => {
    harness = await startHarness();
    const admin = await browserLogin(harness, (await addPlatform(harness)).key, ADMIN);
    adminCookie = cookieOf(admin.browser);
  });
  afterAll(async () => {
    await harness?.close();
  });

  function cookieOf(browser: OidcBrowser): string {
    return `gw_session=${browser.cookiesFor(`${harness.baseUrl}/`).gw_session}`;
  }

  /** What the account center does, with the browser's session cookie. */
  function accountCenter(browser: OidcBrowser) {
    const as = (req: request.Test) => req.set('Cookie', cookieOf(browser)).set('Origin', ACCOUNT_CENTER);
    return {
      requirements: (key: string) => as(request(harness.gateway.app).get(`/v1/onboarding/${key}/requirements`)),
      put: (key: string, values: Record<string, unknown>) => as(request(harness.gateway.app).put(`/v1/onboarding/${key}/values`)).send({ values }),
      complete: (key: string) => as(request(harness.gateway.app).post(`/v1/onboarding/${key}/complete`)),
    };
  }

  async function addField(key: string, definition: Record<string, unknown>) {
    await request(harness.gateway.app).post(`/v1/platforms/${key}/onboarding/fields`).set('Cookie', adminCookie).set('Origin', ACCOUNT_CENTER).send(definition).expect(201);
  }

  const exchange = (platform: TestPlatform, code: string) =>
    request(harness.gateway.app).post('/v1/auth/exchange').set('Authorization', platform.basic).send({ code });

  function codeAt(location: string | URL): string {
    const url = new URL(location);
    expect(`${url.origin}${url.pathname}`).toBe(PLATFORM_CALLBACK);
    return url.searchParams.get('code')!;
  }

  it('callback → account center → requirements → values → complete → resume → handoff → exchange says COMPLETE', async () => {
    const platform = await addPlatform(harness, { defaultOnboardingMode: 'central' });
    await addField(platform.key, { fieldKey: 'company', label: 'Company', fieldType: 'TEXT', required: true, sortOrder: 1 });
    await addField(platform.key, { fieldKey: 'country', label: 'Country', fieldType: 'COUNTRY', required: true, sortOrder: 2 });

    const { location, browser } = await browserLogin(harness, platform.key, ALICE);
    expect(`${location.origin}${location.pathname}`).toBe(`${ACCOUNT_CENTER}/onboarding/${platform.key}`);
    const transactionId = location.searchParams.get('resume')!;
    const resumeUrl = `${harness.baseUrl}/v1/auth/resume?transaction=${transactionId}`;
    const center = accountCenter(browser);

    const requirements = await center.requirements(platform.key).expect(200);
    expect(requirements.body.fields.map((field: { fieldKey: string }) => field.fieldKey)).toEqual(['company', 'country']);

    // A resume before completion goes back to the same route; a client flag changes nothing.
    const early = await browser.get(`${resumeUrl}&completed=true`);
    expect(early.status).toBe(302);
    expect(early.location).toBe(location.href);

    await center.put(platform.key, { company: 'Acme', country: 'NL' }).expect(200);
    const completed = await center.complete(platform.key).expect(200);
    expect(completed.body.status).toBe('COMPLETE');

    const resumed = await browser.get(resumeUrl);
    expect(resumed.status, resumed.text).toBe(302);
    const res = await exchange(platform, codeAt(resumed.location!)).expect(200);
    expect(res.body.onboarding).toEqual({ status: 'COMPLETE', requirementVersion: 3, missingFields: [], canCompleteCentrally: true, missingDocuments: [], acceptedDocuments: [] });

    // A second resume after the handoff: 409.
    const again = await browser.get(resumeUrl, { accept: 'application/json' });
    expect(again.status).toBe(409);
    expect(JSON.parse(again.text).code).toBe('CONFLICT');

    // A schema change after completion sends the next login back through onboarding.
    await addField(platform.key, { fieldKey: 'vat', label: 'VAT number', fieldType: 'TEXT' });
    const next = await browserLogin(harness, platform.key, ALICE);
    expect(`${next.location.origin}${next.location.pathname}`).toBe(`${ACCOUNT_CENTER}/onboarding/${platform.key}`);
    const status = await accountCenter(next.browser).complete(platform.key).expect(200);
    expect(status.body).toMatchObject({ status: 'COMPLETE', requirementVersion: 4 });
    const resumedAgain = await next.browser.get(`${harness.baseUrl}/v1/auth/resume?transaction=${next.location.searchParams.get('resume')}`);
    const second = await exchange(platform, codeAt(resumedAgain.location!)).expect(200);
    expect(second.body.onboarding).toMatchObject({ status: 'COMPLETE', requirementVersion: 4 });
  });

  it.each(['none', 'platform'] as const)('mode %s hands off at once; the exchange reports the calculated status', async (mode) => {
    const platform = await addPlatform(harness, { defaultOnboardingMode: mode });
    await addField(platform.key, { fieldKey: 'nickname', label: 'Nickname', fieldType: 'TEXT', required: true });
    const { location } = await browserLogin(harness, platform.key, ALICE);
    const res = await exchange(platform, codeAt(location)).expect(200);
    expect(res.body.onboarding).toEqual({ status: 'NOT_STARTED', requirementVersion: 2, missingFields: ['nickname'], canCompleteCentrally: true, missingDocuments: [], acceptedDocuments: [] });
  });
});
