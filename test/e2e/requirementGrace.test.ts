// Issue 36 part 1: grace periods for requirement changes, end to end. A person signs in through
// the dev identity provider's login page; an administrator publishes a field change or a
// document version with `enforceAfter`; the platform BFF exchanges the code. Until the date the
// login goes on with GRACE, its deadline and what is missing; once the date is moved to the past,
// the next login blocks as an immediate change does. Every response is checked against the contract.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import { startHarness, addPlatform, browserLogin, PLATFORM_CALLBACK, type Harness, type TestPlatform } from '../helpers/flowHarness.ts';
import type { OidcBrowser } from '../helpers/oidcBrowser.ts';
import { person } from '../helpers/dataRights.ts';
import { DEV_USERS } from '../../src/devidp/users.ts';

const ALICE = { username: 'alice', password: 'alice-password' };
const BOB = person('bob');
const ADMIN = { username: 'admin', password: 'admin-password' };
const ACCOUNT_CENTER = 'http://account.test';
const WEEK = 7 * 24 * 3600 * 1000;

describe('grace periods for requirement changes (issue 36)', () => {
  let harness: Harness;
  let adminCookie: string;

  beforeAll(async () => {
    harness = await startHarness({}, { users: [...DEV_USERS, BOB] });
    const admin = await browserLogin(harness, (await addPlatform(harness)).key, ADMIN);
    adminCookie = cookieOf(admin.browser);
  });
  afterAll(async () => {
    await harness?.close();
  });

  function cookieOf(browser: OidcBrowser): string {
    return `gw_session=${browser.cookiesFor(`${harness.baseUrl}/`).gw_session}`;
  }
  const admin = (req: request.Test) => req.set('Cookie', adminCookie).set('Origin', ACCOUNT_CENTER);
  const app = () => request(harness.gateway.app);
  const exchange = (platform: TestPlatform, code: string) => app().post('/v1/auth/exchange').set('Authorization', platform.basic).send({ code });
  const inAWeek = () => new Date(Date.now() + WEEK).toISOString();

  function codeAt(location: string | URL): string {
    const url = new URL(location);
    expect(`${url.origin}${url.pathname}`).toBe(PLATFORM_CALLBACK);
    return url.searchParams.get('code')!;
  }

  function isOnboarding(location: URL, key: string): boolean {
    return `${location.origin}${location.pathname}` === `${ACCOUNT_CENTER}/onboarding/${key}`;
  }

  /** Signs in; when central onboarding asks, fills `values`, accepts what is pending, completes and resumes. The exchange's onboarding. */
  async function signInCompleting(platform: TestPlatform, user: { username: string; password: string }, values: Record<string, unknown>) {
    const login = await browserLogin(harness, platform.key, user);
    let location: string | URL = login.location;
    if (isOnboarding(login.location, platform.key)) {
      const as = (req: request.Test) => req.set('Cookie', cookieOf(login.browser)).set('Origin', ACCOUNT_CENTER);
      if (Object.keys(values).length > 0) await as(app().put(`/v1/onboarding/${platform.key}/values`)).send({ values }).expect(200);
      const { body } = await as(app().get(`/v1/agreements/${platform.key}`)).expect(200);
      for (const document of body.documents.filter((item: { state: string }) => item.state === 'pending')) {
        const shown = document.current.texts[document.current.defaultLanguage];
        await as(app().post(`/v1/agreements/${platform.key}/acceptances`))
          .send({ documentKey: document.documentKey, version: document.current.version, language: document.current.defaultLanguage, sha256: shown.sha256 })
          .expect(200);
      }
      expect((await as(app().post(`/v1/onboarding/${platform.key}/complete`)).expect(200)).body.status).toBe('COMPLETE');
      location = (await login.browser.get(`${harness.baseUrl}/v1/auth/resume?transaction=${login.location.searchParams.get('resume')}`)).location!;
    }
    return (await exchange(platform, codeAt(location)).expect(200)).body.onboarding;
  }

  function field(key: string, body: Record<string, unknown>, query: string) {
    return admin(app().post(`/v1/platforms/${key}/onboarding/fields?${query}`)).send(body);
  }

  async function publishDocument(key: string, material: boolean, text: string): Promise<void> {
    const draft = await admin(app().post(`/v1/platforms/${key}/documents/terms/versions`))
      .send({ kind: 'terms', material, defaultLanguage: 'en', texts: { en: { title: 'Terms', markdown: text } } })
      .expect(201);
    await admin(app().post(`/v1/platforms/${key}/documents/terms/versions/${draft.body.version}/publish`)).expect(200);
  }

  it('a required field published with a date a week ahead: the dry run counts, the person signs in with GRACE, and once the date is moved to the past the next login blocks', async () => {
    const platform = await addPlatform(harness, { defaultOnboardingMode: 'central' });
    await field(platform.key, { fieldKey: 'company', label: 'Company', fieldType: 'TEXT', required: true }, '').expect(201);
    expect(await signInCompleting(platform, ALICE, { company: 'Acme' })).toMatchObject({ status: 'COMPLETE', requirementVersion: 2 });
    expect(await signInCompleting(platform, BOB, { company: 'Bobco' })).toMatchObject({ status: 'COMPLETE' });

    const deadline = inAWeek();
    // The dry run: both complete people would be in grace; none has a team size yet.
    const teamSize = { fieldKey: 'teamSize', label: 'Team size', fieldType: 'TEXT', required: true };
    const dry = await field(platform.key, teamSize, `dryRun=true&enforceAfter=${encodeURIComponent(deadline)}`).expect(200);
    expect(dry.body).toMatchObject({ dryRun: true, reopenedUsers: 2, enforceAfter: deadline, graceUsers: 2, meetingUsers: 0 });
    // A field bound to a profile property both already gave (their first names, from the provider) is already met by both.
    const firstName = { fieldKey: 'firstName', label: 'First name', fieldType: 'TEXT', source: 'PROFILE_FIELD', profileField: 'firstName', required: true };
    const dryProfile = await field(platform.key, firstName, `dryRun=true&enforceAfter=${encodeURIComponent(deadline)}`).expect(200);
    expect(dryProfile.body).toMatchObject({ reopenedUsers: 2, graceUsers: 2, meetingUsers: 2 });
    // Immediately: no one would be in grace.
    expect((await field(platform.key, teamSize, 'dryRun=true').expect(200)).body).toMatchObject({ enforceAfter: null, graceUsers: 0, meetingUsers: 0 });

    await field(platform.key, teamSize, `enforceAfter=${encodeURIComponent(deadline)}`).expect(201);
    const grace = await admin(app().get(`/v1/platforms/${platform.key}/onboarding/grace`)).expect(200);
    expect(grace.body).toEqual({ platformKey: platform.key, requirementVersion: 3, items: [{ requirementVersion: 3, enforceAfter: deadline }] });

    // Alice signs in as before: straight to the platform, which hears GRACE, the deadline and what is missing.
    const during = await browserLogin(harness, platform.key, ALICE);
    const handed = (await exchange(platform, codeAt(during.location)).expect(200)).body.onboarding;
    expect(handed).toMatchObject({ status: 'GRACE', graceUntil: deadline, missingFields: ['teamSize'], requirementVersion: 3 });
    // The account center reads the same status.
    const status = await app().get(`/v1/onboarding/${platform.key}/status`).set('Cookie', cookieOf(during.browser)).expect(200);
    expect(status.body).toMatchObject({ status: 'GRACE', graceUntil: deadline, missingFields: ['teamSize'] });

    // Bob fills it in during the grace period and completes: COMPLETE again.
    expect(await signInCompletingNow(platform, BOB, { teamSize: '12' })).toMatchObject({ status: 'COMPLETE', requirementVersion: 3 });

    // The date moves to the past: the next login of Alice goes through onboarding, as an immediate change does.
    const moved = await admin(app().put(`/v1/platforms/${platform.key}/onboarding/grace`)).send({ enforceAfter: new Date(Date.now() - 60_000).toISOString() }).expect(200);
    expect(moved.body.items).toEqual([]);
    const after = await browserLogin(harness, platform.key, ALICE);
    expect(isOnboarding(after.location, platform.key)).toBe(true);
    const blocked = await app().get(`/v1/onboarding/${platform.key}/status`).set('Cookie', cookieOf(after.browser)).expect(200);
    expect(blocked.body).toMatchObject({ status: 'IN_PROGRESS', missingFields: ['teamSize'] });
    expect(blocked.body.graceUntil).toBeUndefined();
    // Bob, who met it, is not troubled.
    const bob = await browserLogin(harness, platform.key, BOB);
    expect((await exchange(platform, codeAt(bob.location)).expect(200)).body.onboarding.status).toBe('COMPLETE');
  });

  /** Bob, in grace, goes to the form himself (the account center's link): values, complete. */
  async function signInCompletingNow(platform: TestPlatform, user: { username: string; password: string }, values: Record<string, unknown>) {
    const login = await browserLogin(harness, platform.key, user);
    const onboarding = (await exchange(platform, codeAt(login.location)).expect(200)).body.onboarding;
    expect(onboarding.status).toBe('GRACE');
    const as = (req: request.Test) => req.set('Cookie', cookieOf(login.browser)).set('Origin', ACCOUNT_CENTER);
    await as(app().put(`/v1/onboarding/${platform.key}/values`)).send({ values }).expect(200);
    return (await as(app().post(`/v1/onboarding/${platform.key}/complete`)).expect(200)).body;
  }

  it('a material document version with a date: GRACE with the document missing until the date, then the login blocks; platform mode hears IN_PROGRESS', async () => {
    const platform = await addPlatform(harness, { defaultOnboardingMode: 'central' });
    await publishDocument(platform.key, true, '# Terms\n\nBe kind.');
    expect(await signInCompleting(platform, ALICE, {})).toMatchObject({ status: 'COMPLETE', missingDocuments: [] });

    const deadline = inAWeek();
    const draft = await admin(app().post(`/v1/platforms/${platform.key}/documents/terms/versions`))
      .send({ kind: 'terms', material: true, defaultLanguage: 'en', texts: { en: { title: 'Terms', markdown: '# Terms\n\nBe kind, and on time.' } } })
      .expect(201);
    const publishUrl = `/v1/platforms/${platform.key}/documents/terms/versions/${draft.body.version}/publish`;
    const dry = await admin(app().post(`${publishUrl}?dryRun=true&enforceAfter=${encodeURIComponent(deadline)}`)).expect(200);
    expect(dry.body).toMatchObject({ dryRun: true, blocking: true, mustAccept: 1, enforceAfter: deadline, graceUsers: 1, meetingUsers: 0 });
    // Two tabs (or a retried request) publishing at once: one publication, one version in grace.
    const both = await Promise.all([1, 2].map(() => admin(app().post(`${publishUrl}?enforceAfter=${encodeURIComponent(deadline)}`))));
    expect(both.map((res) => res.status)).toEqual([200, 200]);
    const graces = await admin(app().get(`/v1/platforms/${platform.key}/onboarding/grace`)).expect(200);
    expect(graces.body.items).toEqual([{ requirementVersion: graces.body.requirementVersion, enforceAfter: deadline }]);

    const during = await browserLogin(harness, platform.key, ALICE);
    expect((await exchange(platform, codeAt(during.location)).expect(200)).body.onboarding).toMatchObject({
      status: 'GRACE',
      graceUntil: deadline,
      missingFields: [],
      missingDocuments: [{ documentKey: 'terms', kind: 'terms', version: 2 }],
      acceptedDocuments: [{ documentKey: 'terms', kind: 'terms', version: 1 }],
    });
    // The account center lists the new version as one to accept.
    const agreements = await app().get(`/v1/agreements/${platform.key}`).set('Cookie', cookieOf(during.browser)).expect(200);
    expect(agreements.body.documents[0]).toMatchObject({ documentKey: 'terms', state: 'pending' });

    await admin(app().put(`/v1/platforms/${platform.key}/onboarding/grace`)).send({ enforceAfter: '2020-01-01T00:00:00Z' }).expect(200);
    const after = await browserLogin(harness, platform.key, ALICE);
    expect(isOnboarding(after.location, platform.key)).toBe(true);

    // The same platform in platform mode: the handoff is issued, and the exchange says IN_PROGRESS, not GRACE.
    await admin(app().patch(`/v1/platforms/${platform.key}`)).send({ defaultOnboardingMode: 'platform' }).expect(200);
    const platformMode = await browserLogin(harness, platform.key, ALICE);
    expect((await exchange(platform, codeAt(platformMode.location)).expect(200)).body.onboarding).toMatchObject({
      status: 'IN_PROGRESS',
      missingDocuments: [{ documentKey: 'terms', kind: 'terms', version: 2 }],
    });
  });

  /**
   * A central platform whose required company alice completed, then a required team size
   * published in grace until a week ahead: her login during the grace, and her browser's requests.
   */
  async function inGraceOfANewField() {
    const platform = await addPlatform(harness, { defaultOnboardingMode: 'central' });
    await field(platform.key, { fieldKey: 'company', label: 'Company', fieldType: 'TEXT', required: true }, '').expect(201);
    expect(await signInCompleting(platform, ALICE, { company: 'Acme' })).toMatchObject({ status: 'COMPLETE' });
    const deadline = inAWeek();
    await field(platform.key, { fieldKey: 'teamSize', label: 'Team size', fieldType: 'TEXT', required: true }, `enforceAfter=${encodeURIComponent(deadline)}`).expect(201);
    const during = await browserLogin(harness, platform.key, ALICE);
    expect((await exchange(platform, codeAt(during.location)).expect(200)).body.onboarding.status).toBe('GRACE');
    const as = (req: request.Test) => req.set('Cookie', cookieOf(during.browser)).set('Origin', ACCOUNT_CENTER);
    return { platform, deadline, as };
  }

  it('an immediate change after a change in grace ends the grace: everything blocks from then on', async () => {
    const { platform } = await inGraceOfANewField();
    await field(platform.key, { fieldKey: 'city', label: 'City', fieldType: 'TEXT', required: false }, '').expect(201);
    const after = await browserLogin(harness, platform.key, ALICE);
    expect(isOnboarding(after.location, platform.key)).toBe(true);
  });

  it('saving the form in grace without the new field keeps the grace; emptying a field required before takes it back', async () => {
    const { platform, deadline, as } = await inGraceOfANewField();
    // The account center's form saves every field it shows; the new one is still empty.
    const saved = await as(app().put(`/v1/onboarding/${platform.key}/values`)).send({ values: { company: 'Acme Ltd', teamSize: null } }).expect(200);
    expect(saved.body.onboarding).toMatchObject({ status: 'GRACE', graceUntil: deadline, missingFields: ['teamSize'] });
    const again = await browserLogin(harness, platform.key, ALICE);
    expect((await exchange(platform, codeAt(again.location)).expect(200)).body.onboarding.status).toBe('GRACE');

    // Emptying the company, which the completed form had: no longer a person who met the requirements before.
    const emptied = await as(app().put(`/v1/onboarding/${platform.key}/values`)).send({ values: { company: null } }).expect(200);
    expect(emptied.body.onboarding).toMatchObject({ status: 'NOT_STARTED', missingFields: ['company', 'teamSize'] });
    const blocked = await browserLogin(harness, platform.key, ALICE);
    expect(isOnboarding(blocked.location, platform.key)).toBe(true);
  });

  it('a field required before the change in grace, emptied through the profile (not the form), is not covered by the grace: the login blocks', async () => {
    const platform = await addPlatform(harness, { defaultOnboardingMode: 'central' });
    await field(platform.key, { fieldKey: 'mobile', label: 'Mobile', fieldType: 'PHONE', source: 'PROFILE_FIELD', profileField: 'phone', required: true }, '').expect(201);
    expect(await signInCompleting(platform, ALICE, { mobile: '+44 20 7183 8750' })).toMatchObject({ status: 'COMPLETE' });
    const deadline = inAWeek();
    await field(platform.key, { fieldKey: 'teamSize', label: 'Team size', fieldType: 'TEXT', required: true }, `enforceAfter=${encodeURIComponent(deadline)}`).expect(201);
    // A label change in grace too: the field was required before it, so the grace still does not cover it.
    await admin(app().patch(`/v1/platforms/${platform.key}/onboarding/fields/mobile?enforceAfter=${encodeURIComponent(deadline)}`)).send({ label: 'Mobile number' }).expect(200);

    const during = await browserLogin(harness, platform.key, ALICE);
    expect((await exchange(platform, codeAt(during.location)).expect(200)).body.onboarding).toMatchObject({ status: 'GRACE', missingFields: ['teamSize'] });
    // The profile page clears the phone number: a requirement in force before the change is no longer met.
    await app().patch('/v1/profile/me').set('Cookie', cookieOf(during.browser)).set('Origin', ACCOUNT_CENTER).send({ phone: null }).expect(200);
    const status = await app().get(`/v1/onboarding/${platform.key}/status`).set('Cookie', cookieOf(during.browser)).expect(200);
    expect(status.body).toMatchObject({ status: 'IN_PROGRESS', missingFields: ['mobile', 'teamSize'] });
    expect(status.body.graceUntil).toBeUndefined();
    const blocked = await browserLogin(harness, platform.key, ALICE);
    expect(isOnboarding(blocked.location, platform.key)).toBe(true);
  });

  it('filling in the new field in grace and clearing it again keeps the grace (the completion of what was asked before stands)', async () => {
    const { platform, deadline, as } = await inGraceOfANewField();
    await as(app().put(`/v1/onboarding/${platform.key}/values`)).send({ values: { company: 'Acme', teamSize: '12' } }).expect(200);
    const cleared = await as(app().put(`/v1/onboarding/${platform.key}/values`)).send({ values: { company: 'Acme', teamSize: null } }).expect(200);
    expect(cleared.body.onboarding).toMatchObject({ status: 'GRACE', graceUntil: deadline, missingFields: ['teamSize'] });
    const again = await browserLogin(harness, platform.key, ALICE);
    expect((await exchange(platform, codeAt(again.location)).expect(200)).body.onboarding.status).toBe('GRACE');
  });

  it('a field made required by the change in grace is covered by it', async () => {
    const platform = await addPlatform(harness, { defaultOnboardingMode: 'central' });
    await field(platform.key, { fieldKey: 'company', label: 'Company', fieldType: 'TEXT', required: true }, '').expect(201);
    await field(platform.key, { fieldKey: 'city', label: 'City', fieldType: 'TEXT', required: false }, '').expect(201);
    expect(await signInCompleting(platform, ALICE, { company: 'Acme' })).toMatchObject({ status: 'COMPLETE' });
    const deadline = inAWeek();
    await admin(app().patch(`/v1/platforms/${platform.key}/onboarding/fields/city?enforceAfter=${encodeURIComponent(deadline)}`)).send({ required: true }).expect(200);
    const during = await browserLogin(harness, platform.key, ALICE);
    expect((await exchange(platform, codeAt(during.location)).expect(200)).body.onboarding).toMatchObject({ status: 'GRACE', graceUntil: deadline, missingFields: ['city'] });
  });

  it('refuses a date past the year 9999 in UTC (an offset can carry 9999-12-31 there), which no answer could spell', async () => {
    const platform = await addPlatform(harness, { defaultOnboardingMode: 'central' });
    await field(platform.key, { fieldKey: 'company', label: 'Company', fieldType: 'TEXT', required: true }, '').expect(201);
    expect(await signInCompleting(platform, ALICE, { company: 'Acme' })).toMatchObject({ status: 'COMPLETE' });
    const beyond = encodeURIComponent('9999-12-31T23:00:00-12:00');
    const refused = await field(platform.key, { fieldKey: 'teamSize', label: 'Team size', fieldType: 'TEXT', required: true }, `enforceAfter=${beyond}`).expect(400);
    expect(refused.body).toMatchObject({ code: 'VALIDATION_FAILED', errors: [{ pointer: '/query/enforceAfter' }] });
    const deadline = inAWeek();
    await field(platform.key, { fieldKey: 'teamSize', label: 'Team size', fieldType: 'TEXT', required: true }, `enforceAfter=${encodeURIComponent(deadline)}`).expect(201);
    const move = await admin(app().put(`/v1/platforms/${platform.key}/onboarding/grace`)).send({ enforceAfter: '9999-12-31T23:00:00-12:00' }).expect(400);
    expect(move.body).toMatchObject({ code: 'VALIDATION_FAILED', errors: [{ pointer: '/body/enforceAfter' }] });
    // Nothing moved: the list and the login still answer, with the date as it was.
    expect((await admin(app().get(`/v1/platforms/${platform.key}/onboarding/grace`)).expect(200)).body.items).toEqual([{ requirementVersion: 3, enforceAfter: deadline }]);
    const during = await browserLogin(harness, platform.key, ALICE);
    expect((await exchange(platform, codeAt(during.location)).expect(200)).body.onboarding).toMatchObject({ status: 'GRACE', graceUntil: deadline });
  });

  it('refuses an enforcement date that is not in the future, or not a date, and writes nothing', async () => {
    const platform = await addPlatform(harness, { defaultOnboardingMode: 'central' });
    const body = { fieldKey: 'company', label: 'Company', fieldType: 'TEXT', required: true };
    const past = await field(platform.key, body, 'enforceAfter=2020-01-01T00:00:00Z').expect(400);
    expect(past.body).toMatchObject({ code: 'VALIDATION_FAILED', errors: [{ pointer: '/query/enforceAfter' }] });
    await field(platform.key, body, 'enforceAfter=tomorrow').expect(400);
    const list = await admin(app().get(`/v1/platforms/${platform.key}/onboarding/fields`)).expect(200);
    expect(list.body).toMatchObject({ requirementVersion: 1, items: [] });
    await admin(app().put(`/v1/platforms/${platform.key}/onboarding/grace`)).send({ enforceAfter: 'soon' }).expect(400);
  });
});
