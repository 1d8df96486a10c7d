// Sign-out that any page could trigger (issue 3): GET /v1/auth/logout signs out in one step only
// with the platform's sign-out token (OpenID RP-Initiated Logout 1.0 §2 and §6); without one the
// person confirms on a page whose button posts, origin-checked, to /v1/auth/logout/confirm. Every
// cookie-authenticated write is origin-checked with or without a cookie. Real logins through the
// dev identity provider, real PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import { startHarness, addPlatform, browserLogin, startUrl, PLATFORM_CALLBACK, PLATFORM_ROOT, type Harness, type TestPlatform } from '../helpers/flowHarness.ts';
import type { OidcBrowser } from '../helpers/oidcBrowser.ts';
import { updatePlatform, CLI_ACTOR } from '../../src/services/registry/index.ts';

const ALICE = { username: 'alice', password: 'alice-password' };
const ADMIN = { username: 'admin', password: 'admin-password' };
const FOREIGN = 'https://evil.example';

describe('sign-out needs a proof or the person’s confirmation', () => {
  let harness: Harness;
  let platform: TestPlatform;
  let other: TestPlatform;

  beforeAll(async () => {
    harness = await startHarness();
    platform = await addPlatform(harness);
    other = await addPlatform(harness);
    // A back-channel URL, so that ending a session it exchanged queues a logout job to look for.
    await updatePlatform(harness.database.db, platform.key, { backchannelLogoutUrl: `${PLATFORM_ROOT}backchannel-logout` }, CLI_ACTOR);
  });
  afterAll(async () => {
    await harness?.close();
  });

  const api = () => request(harness.gateway.app);
  const cookieOf = (browser: OidcBrowser) => `gw_session=${browser.cookiesFor(`${harness.baseUrl}/`).gw_session}`;
  const me = (cookie: string) => api().get('/v1/me').set('Cookie', cookie);
  const query = (key = platform.key) => `platformKey=${key}&returnTo=${encodeURIComponent(`${PLATFORM_ROOT}bye`)}`;
  const ownOrigin = () => new URL(harness.baseUrl).origin;

  /** A person signed in through the platform: the browser's cookie, the platform's credential, the session id. */
  async function signedIn(user = ALICE) {
    const { browser, location } = await browserLogin(harness, platform.key, user);
    expect(`${location.origin}${location.pathname}`).toBe(PLATFORM_CALLBACK);
    const exchanged = await api().post('/v1/auth/exchange').set('Authorization', platform.basic).send({ code: location.searchParams.get('code') }).expect(200);
    return { browser, cookie: cookieOf(browser), credential: `gw_session=${exchanged.body.session.gatewayToken}`, sessionId: exchanged.body.session.id as string };
  }

  async function state(sessionId: string) {
    const { rows } = await harness.database.db.raw(`SELECT ended_at FROM gateway_sessions WHERE id = ?`, [sessionId]);
    const jobs = await harness.database.db.raw(`SELECT count(*)::int AS n FROM graphile_worker.jobs WHERE key LIKE ?`, [`logout:${sessionId}:%`]);
    return { ended: rows[0].ended_at !== null, logoutJobs: jobs.rows[0].n as number };
  }

  const setCookies = (res: { headers: Record<string, unknown> }) => [res.headers['set-cookie'] ?? []].flat() as string[];

  it('a GET without a proof answers a confirmation page: nothing ends, no job, no cookie', async () => {
    const alice = await signedIn();
    const res = await api().get(`/v1/auth/logout?${query()}`).set('Cookie', alice.cookie).set('Accept', 'text/html').expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(setCookies(res)).toEqual([]);
    // A page a person understands, with no script, posting only to the gateway's own path.
    expect(res.text).toContain('<html lang="en">');
    // The same frame as the error pages and the account center's look (src/web/page.ts).
    expect(res.text).toMatch(/<header class="topbar">[\s\S]*--accent:#2457d6|--accent:#2457d6[\s\S]*<header class="topbar">/);
    expect(res.text).toContain(`<title>Sign out of Platform ${platform.key}?</title>`);
    expect(res.text).toMatch(/<h1[^>]*>Sign out of Platform [^<]+\?<\/h1>/);
    expect(res.text).toMatch(/<button type="submit"[^>]*>Sign out<\/button>/);
    expect(res.text).toContain(`<a class="button button-secondary" href="${PLATFORM_ROOT}">Cancel, stay signed in</a>`);
    expect(res.text).not.toMatch(/<script|\son[a-z]+=/i);
    const action = /<form method="post" action="([^"]+)"/.exec(res.text)![1]!.replaceAll('&#38;', '&');
    const target = new URL(action, `${harness.baseUrl}/v1/auth/logout?${query()}`);
    expect(`${target.origin}${target.pathname}`).toBe(`${harness.baseUrl}/v1/auth/logout/confirm`);
    expect(target.searchParams.get('returnTo')).toBe(`${PLATFORM_ROOT}bye`);
    // A strict policy: nothing loads, no script, forms only to the gateway; its post carries the Origin.
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toContain("default-src 'none'");
    // form-action: the gateway, and the redirects after the POST (Chromium checks them too): the provider, returnTo.
    expect(csp).toContain(`form-action 'self' ${new URL(harness.idp.issuer).origin} ${new URL(PLATFORM_ROOT).origin}`);
    expect(csp).not.toContain('script-src');
    expect(res.headers['referrer-policy']).toBe('same-origin');

    expect(await state(alice.sessionId)).toEqual({ ended: false, logoutJobs: 0 });
    await me(alice.cookie).expect(200);
    await me(alice.credential).expect(200);

    // The page's button: the gateway's own origin signs out (and tells the platform).
    const confirmed = await api().post(`/v1/auth/logout/confirm?${query()}`).set('Cookie', alice.cookie).set('Origin', ownOrigin()).expect(303);
    expect(setCookies(confirmed).join('\n')).toMatch(/gw_session=;/);
    const endSession = new URL(confirmed.headers.location!);
    expect(endSession.origin).toBe(new URL(harness.idp.issuer).origin);
    expect(endSession.searchParams.get('id_token_hint')).toMatch(/^eyJ/);
    expect(await state(alice.sessionId)).toEqual({ ended: true, logoutJobs: 1 });
    await me(alice.cookie).expect(401);
  });

  it.each([
    ['a foreign Origin', { Origin: FOREIGN }],
    ['a foreign Referer', { Referer: `${FOREIGN}/page` }],
    ['Sec-Fetch-Site: cross-site', { 'Sec-Fetch-Site': 'cross-site' }],
    ['Origin: null without Sec-Fetch-Site', { Origin: 'null' }],
    ['Origin: null from another site', { Origin: 'null', 'Sec-Fetch-Site': 'same-site' }],
  ])('the confirmation posted with %s is refused (403 ORIGIN_NOT_ALLOWED) and changes nothing', async (_name, headers) => {
    const alice = await signedIn();
    const res = await api().post(`/v1/auth/logout/confirm?${query()}`).set('Cookie', alice.cookie).set(headers).set('Accept', 'application/json').expect(403);
    expect(res.body.code).toBe('ORIGIN_NOT_ALLOWED');
    expect(setCookies(res)).toEqual([]);
    expect(await state(alice.sessionId)).toEqual({ ended: false, logoutJobs: 0 });
    // A browser sees a page, still without a cookie change.
    const page = await api().post(`/v1/auth/logout/confirm?${query()}`).set('Cookie', alice.cookie).set(headers).set('Accept', 'text/html').expect(403);
    expect(page.text).toContain('ORIGIN_NOT_ALLOWED');
    expect(setCookies(page)).toEqual([]);
    await me(alice.cookie).expect(200);
  });

  it('the confirmation follows Accept-Language: German words, the platform name escaped, the same form', async () => {
    const alice = await signedIn();
    const res = await api().get(`/v1/auth/logout?${query()}`).set('Cookie', alice.cookie).set('Accept', 'text/html').set('Accept-Language', 'de-AT, en;q=0.5').expect(200);
    expect(res.headers['content-language']).toBe('de');
    expect(res.text).toContain('<html lang="de">');
    expect(res.text).toContain(`<title>Von Platform ${platform.key} abmelden?</title>`);
    expect(res.text).toMatch(/<button type="submit"[^>]*>Abmelden<\/button>/);
    expect(res.text).toContain(`<a class="button button-secondary" href="${PLATFORM_ROOT}">Abbrechen, angemeldet bleiben</a>`);
    expect(res.text).toContain('Wir fragen nach, weil der Link');
    expect(res.text).not.toMatch(/<script|\son[a-z]+=/i);
  });

  it('a browser that hides its Origin (Origin: null) on the gateway’s own page still signs out: Sec-Fetch-Site says same-origin', async () => {
    const alice = await signedIn();
    await api().post(`/v1/auth/logout/confirm?${query()}`).set('Cookie', alice.cookie).set({ Origin: 'null', 'Sec-Fetch-Site': 'same-origin' }).expect(303);
    await me(alice.cookie).expect(401);
  });

  it('a cross-site write without a cookie is refused and gets no Set-Cookie (POST sign-out included)', async () => {
    for (const headers of [{ Origin: FOREIGN }, { 'Sec-Fetch-Site': 'cross-site' }, { Referer: `${FOREIGN}/` }]) {
      const signOut = await api().post('/v1/auth/logout').set(headers).expect(403);
      expect(signOut.body.code).toBe('ORIGIN_NOT_ALLOWED');
      expect(setCookies(signOut)).toEqual([]);
      const confirm = await api().post(`/v1/auth/logout/confirm?${query()}`).set(headers).set('Accept', 'application/json').expect(403);
      expect(setCookies(confirm)).toEqual([]);
    }
    // The same without a cookie from the gateway's own origin or a server (no Origin): harmless.
    await api().post('/v1/auth/logout').set('Origin', ownOrigin()).expect(204);
    await api().post('/v1/auth/logout').expect(204);
  });

  it('a platform signs out in one step with its sign-out token; the token works once', async () => {
    const alice = await signedIn();
    // The platform's back end, server to server, with the credential of that session (no Origin).
    const issued = await api().post('/v1/auth/logout/token').set('Cookie', alice.credential).expect(200);
    expect(issued.headers['cache-control']).toBe('no-store');
    expect(issued.body).toEqual({ signOutToken: expect.any(String), expiresAt: expect.any(String) });
    expect(Date.parse(issued.body.expiresAt) - Date.now()).toBeLessThanOrEqual(120_000);
    // Asking for a token changes nothing.
    expect(await state(alice.sessionId)).toEqual({ ended: false, logoutJobs: 0 });

    const url = `/v1/auth/logout?${query()}&signOutToken=${encodeURIComponent(issued.body.signOutToken)}`;
    const res = await api().get(url).set('Cookie', alice.cookie).expect(302);
    expect(setCookies(res).join('\n')).toMatch(/gw_session=;/);
    expect(new URL(res.headers.location!).origin).toBe(new URL(harness.idp.issuer).origin);
    expect(await state(alice.sessionId)).toEqual({ ended: true, logoutJobs: 1 });
    await me(alice.credential).expect(401);

    // Again, in a browser of a later sign-in of the same person: the token is spent; the person is asked.
    const later = await signedIn();
    const again = await api().get(url).set('Cookie', later.cookie).expect(200);
    expect(again.text).toContain('Sign out of');
    expect(setCookies(again)).toEqual([]);
    expect(await state(later.sessionId)).toEqual({ ended: false, logoutJobs: 0 });
  });

  it('a spent token stays spent for a later sign-in at the same provider session (same sid)', async () => {
    const first = await signedIn();
    const token = (await api().post('/v1/auth/logout/token').set('Cookie', first.credential).expect(200)).body.signOutToken as string;
    const url = `/v1/auth/logout?${query()}&signOutToken=${encodeURIComponent(token)}`;
    await api().get(url).set('Cookie', first.cookie).expect(302);
    // The browser never reached the provider's sign-out: its provider session lives on, and the
    // next login in this browser is silent, of the same provider session.
    const isOwn = (url: string) => url.startsWith(harness.baseUrl) || url.startsWith(harness.idp.issuer);
    const again = await first.browser.followRedirects(await first.browser.get(startUrl(harness, platform.key)), { stopWhen: (url) => !isOwn(url), maxHops: 10 });
    const code = new URL(again.stoppedAt!).searchParams.get('code');
    const exchanged = await api().post('/v1/auth/exchange').set('Authorization', platform.basic).send({ code }).expect(200);
    const { rows } = await harness.database.db.raw(`SELECT count(DISTINCT idp_sid)::int AS n FROM gateway_sessions WHERE id IN (?, ?)`, [first.sessionId, exchanged.body.session.id]);
    expect(rows[0].n).toBe(1);
    const replayed = await api().get(url).set('Cookie', cookieOf(first.browser)).expect(200);
    expect(setCookies(replayed)).toEqual([]);
    expect(await state(exchanged.body.session.id)).toEqual({ ended: false, logoutJobs: 0 });
  });

  it('a token is no proof for another platform’s sign-out, nor for another person’s browser', async () => {
    const alice = await signedIn();
    const token = (await api().post('/v1/auth/logout/token').set('Cookie', alice.credential).expect(200)).body.signOutToken as string;
    const forOther = await api().get(`/v1/auth/logout?${query(other.key)}&signOutToken=${encodeURIComponent(token)}`).set('Cookie', alice.cookie).expect(200);
    expect(forOther.text).toContain(`Sign out of Platform ${other.key}?`);
    expect(await state(alice.sessionId)).toEqual({ ended: false, logoutJobs: 0 });

    // An attacker gets a token for their own session and puts it in a link for Alice.
    const mallory = await signedIn(ADMIN);
    const ownToken = (await api().post('/v1/auth/logout/token').set('Cookie', mallory.credential).expect(200)).body.signOutToken as string;
    const planted = await api().get(`/v1/auth/logout?${query()}&signOutToken=${encodeURIComponent(ownToken)}`).set('Cookie', alice.cookie).expect(200);
    expect(setCookies(planted)).toEqual([]);
    expect(await state(alice.sessionId)).toEqual({ ended: false, logoutJobs: 0 });
    await me(alice.cookie).expect(200);

    const forged = await api().get(`/v1/auth/logout?${query()}&signOutToken=${encodeURIComponent(`${token.split('.')[0]}.AAAA`)}`).set('Cookie', alice.cookie).expect(200);
    expect(setCookies(forged)).toEqual([]);
  });

  it('the account center’s browser session gets a token with an origin-checked request', async () => {
    const alice = await signedIn();
    await api().post('/v1/auth/logout/token').set('Cookie', alice.cookie).set('Origin', FOREIGN).expect(403);
    await api().post('/v1/auth/logout/token').expect(401);
    const issued = await api().post('/v1/auth/logout/token').set('Cookie', alice.cookie).set('Origin', 'http://account.test').expect(200);
    await api().get(`/v1/auth/logout?${query()}&signOutToken=${encodeURIComponent(issued.body.signOutToken)}`).set('Cookie', alice.cookie).expect(302);
    expect(await state(alice.sessionId)).toEqual({ ended: true, logoutJobs: 1 });
  });
});
