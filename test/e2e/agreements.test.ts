// Issue 25: a platform's documents in the login, end to end. A person signs in through the dev
// identity provider's login page; the account center's calls are made as it makes them (the
// browser session cookie, its Origin); the platform BFF exchanges the code and reads the record
// with its own credential. Every response is checked against the contract.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import { startHarness, addPlatform, browserLogin, PLATFORM_CALLBACK, type Harness, type TestPlatform } from '../helpers/flowHarness.ts';
import type { OidcBrowser } from '../helpers/oidcBrowser.ts';
import { person } from '../helpers/dataRights.ts';
import { DEV_USERS } from '../../src/devidp/users.ts';
import { purgeDeletedAccounts } from '../../src/services/account/deletion.ts';

const ALICE = { username: 'alice', password: 'alice-password' };
const ADMIN = { username: 'admin', password: 'admin-password' };
const ACCOUNT_CENTER = 'http://account.test';
const LEO = person('leo');
const MIA = person('mia');
const login = (user: { username: string; password: string }) => ({ username: user.username, password: user.password });

describe('documents and agreements in the login (issue 25)', () => {
  let harness: Harness;
  let adminCookie: string;

  beforeAll(async () => {
    harness = await startHarness({}, { users: [...DEV_USERS, LEO, MIA] });
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

  async function publish(key: string, documentKey: string, kind: 'terms' | 'privacy' | 'custom', material: boolean, text: string): Promise<number> {
    const draft = await admin(request(harness.gateway.app).post(`/v1/platforms/${key}/documents/${documentKey}/versions`))
      .send({ kind, material, defaultLanguage: 'en', texts: { en: { title: `${documentKey} title`, markdown: text } } })
      .expect(201);
    await admin(request(harness.gateway.app).post(`/v1/platforms/${key}/documents/${documentKey}/versions/${draft.body.version}/publish`)).expect(200);
    return draft.body.version as number;
  }

  /** What the account center does, with the browser's session cookie. */
  function accountCenter(browser: OidcBrowser) {
    const as = (req: request.Test) => req.set('Cookie', cookieOf(browser)).set('Origin', ACCOUNT_CENTER);
    return {
      agreements: (key: string) => as(request(harness.gateway.app).get(`/v1/agreements/${key}`)),
      accept: (key: string, body: Record<string, unknown>) => as(request(harness.gateway.app).post(`/v1/agreements/${key}/acceptances`)).send(body),
      complete: (key: string) => as(request(harness.gateway.app).post(`/v1/onboarding/${key}/complete`)),
    };
  }

  /** Accepts every pending document as the onboarding step does: one request per document, with what was shown. */
  async function acceptPending(browser: OidcBrowser, key: string): Promise<string[]> {
    const center = accountCenter(browser);
    const { body } = await center.agreements(key).expect(200);
    const pending = body.documents.filter((document: { state: string }) => document.state === 'pending');
    for (const document of pending) {
      const shown = document.current.texts[document.current.defaultLanguage];
      await center.accept(key, { documentKey: document.documentKey, version: document.current.version, language: document.current.defaultLanguage, sha256: shown.sha256 }).expect(200);
    }
    return pending.map((document: { documentKey: string }) => document.documentKey);
  }

  const exchange = (platform: TestPlatform, code: string) => request(harness.gateway.app).post('/v1/auth/exchange').set('Authorization', platform.basic).send({ code });

  function codeAt(location: string | URL): string {
    const url = new URL(location);
    expect(`${url.origin}${url.pathname}`).toBe(PLATFORM_CALLBACK);
    return url.searchParams.get('code')!;
  }

  it('central: a new person accepts terms and privacy in the account center, then lands on the platform; a material version sends the next login back, a non-material one does not', async () => {
    const platform = await addPlatform(harness, { defaultOnboardingMode: 'central' });
    await publish(platform.key, 'terms', 'terms', true, '# Terms\n\nBe kind.');
    await publish(platform.key, 'privacy', 'privacy', false, '# Privacy\n\nWe keep little.');

    const first = await browserLogin(harness, platform.key, ALICE);
    expect(`${first.location.origin}${first.location.pathname}`).toBe(`${ACCOUNT_CENTER}/onboarding/${platform.key}`);
    const resumeUrl = `${harness.baseUrl}/v1/auth/resume?transaction=${first.location.searchParams.get('resume')}`;

    // Nothing is accepted for the person: a resume before the acceptances goes back to the account center.
    const early = await first.browser.get(resumeUrl);
    expect(early.location).toBe(first.location.href);

    expect((await acceptPending(first.browser, platform.key)).sort()).toEqual(['privacy', 'terms']);
    expect((await accountCenter(first.browser).complete(platform.key).expect(200)).body.status).toBe('COMPLETE');
    const resumed = await first.browser.get(resumeUrl);
    const handed = await exchange(platform, codeAt(resumed.location!)).expect(200);
    expect(handed.body.onboarding).toMatchObject({
      status: 'COMPLETE',
      missingDocuments: [],
      acceptedDocuments: [
        { documentKey: 'privacy', kind: 'privacy', version: 1 },
        { documentKey: 'terms', kind: 'terms', version: 1 },
      ],
    });

    // The platform reads the record with its own credential: its own documents, with the text shown.
    const platformCookie = `gw_session=${handed.body.session.gatewayToken}`;
    const seen = await request(harness.gateway.app).get(`/v1/agreements/${platform.key}`).set('Cookie', platformCookie).expect(200);
    expect(seen.body.records.map((record: { documentKey: string; action: string }) => `${record.documentKey}:${record.action}`).sort()).toEqual(['privacy:accept', 'terms:accept']);
    expect(seen.body.records[0].text.markdown).toMatch(/^# /);

    // A non-material version: the next login goes straight to the platform; the person sees "updated".
    await publish(platform.key, 'privacy', 'privacy', false, '# Privacy\n\nWe keep little, now in plainer words.');
    const second = await browserLogin(harness, platform.key, ALICE);
    const secondExchange = await exchange(platform, codeAt(second.location)).expect(200);
    expect(secondExchange.body.onboarding.missingDocuments).toEqual([]);
    const privacy = (await accountCenter(second.browser).agreements(platform.key).expect(200)).body.documents.find((document: { documentKey: string }) => document.documentKey === 'privacy');
    expect(privacy).toMatchObject({ state: 'updated', acceptedVersion: 1, current: { version: 2 } });

    // A material version of the terms: the next login goes back through acceptance.
    await publish(platform.key, 'terms', 'terms', true, '# Terms\n\nBe kind, and be on time.');
    const third = await browserLogin(harness, platform.key, ALICE);
    expect(`${third.location.origin}${third.location.pathname}`).toBe(`${ACCOUNT_CENTER}/onboarding/${platform.key}`);
    expect(await acceptPending(third.browser, platform.key)).toEqual(['terms']);
    await accountCenter(third.browser).complete(platform.key).expect(200);
    const thirdResumed = await third.browser.get(`${harness.baseUrl}/v1/auth/resume?transaction=${third.location.searchParams.get('resume')}`);
    const thirdExchange = await exchange(platform, codeAt(thirdResumed.location!)).expect(200);
    expect(thirdExchange.body.onboarding.acceptedDocuments).toContainEqual({ documentKey: 'terms', kind: 'terms', version: 2 });
  });

  it('platform mode: the handoff is issued at once and the exchange says what is still to be accepted', async () => {
    const platform = await addPlatform(harness, { defaultOnboardingMode: 'platform' });
    await publish(platform.key, 'terms', 'terms', true, 'Terms.');
    const { location } = await browserLogin(harness, platform.key, ALICE);
    const res = await exchange(platform, codeAt(location)).expect(200);
    expect(res.body.onboarding).toMatchObject({ status: 'NOT_STARTED', missingDocuments: [{ documentKey: 'terms', kind: 'terms', version: 1 }], acceptedDocuments: [] });
  });

  /** The person's rows of the record for a platform, oldest first (straight from the table). */
  async function recordRows(userId: string, key: string): Promise<string[]> {
    const { rows } = await harness.database.db.raw(
      `SELECT d.document_key || ':' || r.action || ':' || r.version AS row FROM agreement_records r
         JOIN platform_documents d ON d.id = r.document_id JOIN platforms p ON p.id = r.platform_id
        WHERE r.user_id = ? AND p.platform_key = ? ORDER BY r.id`,
      [userId, key],
    );
    return rows.map((row: { row: string }) => row.row);
  }

  /** Signs in (central onboarding), accepts what is pending, completes and resumes: the exchange's answer. */
  async function signInAccepting(platform: TestPlatform, user: { username: string; password: string }) {
    const login = await browserLogin(harness, platform.key, user);
    expect(`${login.location.origin}${login.location.pathname}`).toBe(`${ACCOUNT_CENTER}/onboarding/${platform.key}`);
    const accepted = await acceptPending(login.browser, platform.key);
    await accountCenter(login.browser).complete(platform.key).expect(200);
    const resumed = await login.browser.get(`${harness.baseUrl}/v1/auth/resume?transaction=${login.location.searchParams.get('resume')}`);
    const handed = await exchange(platform, codeAt(resumed.location!)).expect(200);
    return { browser: login.browser, accepted, userId: handed.body.user.id as string, onboarding: handed.body.onboarding };
  }

  it('leaving a platform keeps the record, and the next sign-in asks for the documents again (a new membership); the new acceptance is a new row', async () => {
    const platform = await addPlatform(harness, { defaultOnboardingMode: 'central' });
    await publish(platform.key, 'terms', 'terms', true, '# Terms\n\nBe kind.');
    await publish(platform.key, 'news', 'custom', false, 'A letter a month.');
    const first = await signInAccepting(platform, login(LEO));
    expect(first.accepted).toEqual(['terms']);
    // The optional document too, so that leaving has a consent to speak for.
    const news = (await accountCenter(first.browser).agreements(platform.key).expect(200)).body.documents.find((document: { documentKey: string }) => document.documentKey === 'news');
    await accountCenter(first.browser).accept(platform.key, { documentKey: 'news', version: 1, language: 'en', sha256: news.current.texts.en.sha256 }).expect(200);
    expect(await recordRows(first.userId, platform.key)).toEqual(['terms:accept:1', 'news:accept:1']);

    // Signed in again while a member: nothing to accept.
    const member = await browserLogin(harness, platform.key, login(LEO));
    expect((await exchange(platform, codeAt(member.location)).expect(200)).body.onboarding).toMatchObject({ status: 'COMPLETE', missingDocuments: [] });

    await request(harness.gateway.app).delete(`/v1/account/apps/${platform.key}`).set('Cookie', cookieOf(first.browser)).set('Origin', ACCOUNT_CENTER).expect(204);
    // The record is untouched (append-only while the account exists; leaving writes no row either).
    expect(await recordRows(first.userId, platform.key)).toEqual(['terms:accept:1', 'news:accept:1']);
    await expect(harness.database.db.raw(`DELETE FROM agreement_records WHERE user_id = ?`, [first.userId])).rejects.toThrow(/append-only/);

    // The next sign-in is a new membership: the terms are asked for again, the old consent does not carry over.
    const again = await browserLogin(harness, platform.key, login(LEO));
    expect(`${again.location.origin}${again.location.pathname}`).toBe(`${ACCOUNT_CENTER}/onboarding/${platform.key}`);
    const standing = (await accountCenter(again.browser).agreements(platform.key).expect(200)).body;
    expect(standing.documents.map((document: { documentKey: string; state: string }) => `${document.documentKey}:${document.state}`).sort()).toEqual(['news:not_accepted', 'terms:pending']);
    // Withdrawing the consent of the earlier membership records nothing: there is none now.
    await request(harness.gateway.app).post(`/v1/agreements/${platform.key}/withdrawals`).set('Cookie', cookieOf(again.browser)).set('Origin', ACCOUNT_CENTER).send({ documentKey: 'news' }).expect(200);
    expect(await acceptPending(again.browser, platform.key)).toEqual(['terms']);
    await accountCenter(again.browser).complete(platform.key).expect(200);
    const resumed = await again.browser.get(`${harness.baseUrl}/v1/auth/resume?transaction=${again.location.searchParams.get('resume')}`);
    const handed = await exchange(platform, codeAt(resumed.location!)).expect(200);
    expect(handed.body.onboarding).toMatchObject({ status: 'COMPLETE', missingDocuments: [], acceptedDocuments: [{ documentKey: 'terms', kind: 'terms', version: 1 }] });
    expect(await recordRows(first.userId, platform.key)).toEqual(['terms:accept:1', 'news:accept:1', 'terms:accept:1']);
  });

  it('platform mode: after leaving, the exchange lists the documents as missing again', async () => {
    const platform = await addPlatform(harness, { defaultOnboardingMode: 'platform' });
    await publish(platform.key, 'terms', 'terms', true, 'Terms.');
    const first = await browserLogin(harness, platform.key, login(LEO));
    expect((await exchange(platform, codeAt(first.location)).expect(200)).body.onboarding.missingDocuments).toEqual([{ documentKey: 'terms', kind: 'terms', version: 1 }]);
    await acceptPending(first.browser, platform.key);
    const member = await browserLogin(harness, platform.key, login(LEO));
    expect((await exchange(platform, codeAt(member.location)).expect(200)).body.onboarding).toMatchObject({ missingDocuments: [], acceptedDocuments: [{ documentKey: 'terms', kind: 'terms', version: 1 }] });
    await request(harness.gateway.app).delete(`/v1/account/apps/${platform.key}`).set('Cookie', cookieOf(first.browser)).set('Origin', ACCOUNT_CENTER).expect(204);
    const again = await browserLogin(harness, platform.key, login(LEO));
    expect((await exchange(platform, codeAt(again.location)).expect(200)).body.onboarding).toMatchObject({
      status: 'NOT_STARTED',
      missingDocuments: [{ documentKey: 'terms', kind: 'terms', version: 1 }],
      acceptedDocuments: [],
    });
  });

  it('an erased account: the record stays through the retention period, and the purge at its end erases it', async () => {
    const platform = await addPlatform(harness, { defaultOnboardingMode: 'central' });
    await publish(platform.key, 'terms', 'terms', true, 'Terms.');
    const mia = await signInAccepting(platform, login(MIA));
    expect(await recordRows(mia.userId, platform.key)).toEqual(['terms:accept:1']);

    await request(harness.gateway.app).delete('/v1/account/me').set('Cookie', cookieOf(mia.browser)).set('Origin', ACCOUNT_CENTER).expect(204);
    // Deleted but within the retention: nothing is erased yet.
    expect((await purgeDeletedAccounts(harness.gateway.deps, 30)).purged).toBe(0);
    expect(await recordRows(mia.userId, platform.key)).toEqual(['terms:accept:1']);

    await harness.database.db.raw(`UPDATE users SET deleted_at = now() - interval '31 days' WHERE id = ?`, [mia.userId]);
    expect((await purgeDeletedAccounts(harness.gateway.deps, 30)).purged).toBe(1);
    expect(await recordRows(mia.userId, platform.key)).toEqual([]);
    // Another person's record is not touched by it.
    const { rows } = await harness.database.db.raw(`SELECT count(*)::int AS n FROM agreement_records WHERE user_id <> ?`, [mia.userId]);
    expect(rows[0].n).toBeGreaterThan(0);
  });

  it("a platform's credential reads only its own platform's agreements", async () => {
    const mine = await addPlatform(harness, { defaultOnboardingMode: 'none' });
    const other = await addPlatform(harness, { defaultOnboardingMode: 'none' });
    await publish(other.key, 'terms', 'terms', true, 'Other terms.');
    const { location } = await browserLogin(harness, mine.key, ALICE);
    const handed = await exchange(mine, codeAt(location)).expect(200);
    const platformCookie = `gw_session=${handed.body.session.gatewayToken}`;
    const refused = await request(harness.gateway.app).get(`/v1/agreements/${other.key}`).set('Cookie', platformCookie).expect(403);
    expect(refused.body.code).toBe('FORBIDDEN');
    // Nor the list over every platform, nor an acceptance on another platform.
    await request(harness.gateway.app).get('/v1/agreements').set('Cookie', platformCookie).expect(403);
    await request(harness.gateway.app).post(`/v1/agreements/${other.key}/acceptances`).set('Cookie', platformCookie)
      .send({ documentKey: 'terms', version: 1, language: 'en', sha256: '0'.repeat(64) }).expect(403);
  });
});
