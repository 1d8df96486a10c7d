import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import { startHarness, addPlatform, startUrl, PLATFORM_CALLBACK, type Harness } from '../helpers/flowHarness.ts';
import { OidcBrowser } from '../helpers/oidcBrowser.ts';

// GUIDE §5: HEAD never changes state. Start creates a login, the callback and resume
// spend one; Express (and openapi-backend) would run their GET handlers for HEAD, so
// these three answer HEAD with 405 and `Allow: GET` before anything else runs.

const ALICE = { username: 'alice', password: 'alice-password' };

describe('HEAD on the login flow endpoints changes nothing', () => {
  let harness: Harness;

  beforeAll(async () => {
    harness = await startHarness();
  });
  afterAll(async () => {
    await harness?.close();
  });

  /** The path and query of a start URL, for supertest. */
  const startPath = (platformKey: string) => {
    const url = new URL(startUrl(harness, platformKey));
    return `${url.pathname}${url.search}`;
  };
  const transactionCount = async () => Number((await harness.database.db.raw('SELECT count(*) AS n FROM auth_transactions')).rows[0].n);

  it('HEAD on start is 405 with Allow: GET and writes no auth_transactions row', async () => {
    const platform = await addPlatform(harness);
    const before = await transactionCount();
    const res = await request(harness.gateway.app).head(startPath(platform.key));
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('GET');
    expect(res.headers['set-cookie']).toBeUndefined();
    expect(await transactionCount()).toBe(before);
    // GET still starts a login.
    await request(harness.gateway.app).get(startPath(platform.key)).expect(302);
    expect(await transactionCount()).toBe(before + 1);
  });

  it('HEAD on the callback with a valid state leaves the login usable', async () => {
    const platform = await addPlatform(harness, { defaultOnboardingMode: 'none' });
    const browser = new OidcBrowser();
    const start = await browser.get(startUrl(harness, platform.key));
    expect(start.status).toBe(302);
    const toLogin = await browser.followRedirects(start, { maxHops: 10 });
    const afterLogin = await browser.loginAtDevIdp(toLogin.response, ALICE.username, ALICE.password);
    const callbackPath = `${harness.baseUrl}/v1/auth/callback`;
    const toCallback = await browser.followRedirects(afterLogin, { stopWhen: (url) => url.startsWith(callbackPath), maxHops: 10 });
    const callbackUrl = toCallback.stoppedAt;
    expect(callbackUrl).toEqual(expect.stringContaining('state='));

    // The same request a browser would make, cookies included, but HEAD.
    const cookies = browser.cookiesFor(callbackUrl!);
    const head = await fetch(callbackUrl!, {
      method: 'HEAD',
      redirect: 'manual',
      headers: { cookie: Object.entries(cookies).map(([name, value]) => `${name}=${value}`).join('; '), accept: 'text/html' },
    });
    expect(head.status).toBe(405);
    expect(head.headers.get('allow')).toBe('GET');
    expect(head.headers.getSetCookie()).toEqual([]);
    const { rows } = await harness.database.db.raw('SELECT count(*) AS n FROM auth_transactions WHERE consumed_at IS NOT NULL');
    expect(Number(rows[0].n)).toBe(0);

    // The GET that follows completes the login.
    const callback = await browser.get(callbackUrl!);
    expect(callback.status).toBe(302);
    expect(callback.location).toEqual(expect.stringMatching(new RegExp(`^${PLATFORM_CALLBACK}\\?code=handoff_`)));
  });

  it('HEAD on resume is 405 with Allow: GET, before authentication', async () => {
    const res = await request(harness.gateway.app).head('/v1/auth/resume').query({ transaction: '00000000-0000-4000-8000-000000000000' });
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('GET');
  });

  it('a wrong method on the three paths lists only GET; other GETs still answer HEAD', async () => {
    for (const path of ['/v1/auth/start', '/v1/auth/callback', '/v1/auth/resume']) {
      const res = await request(harness.gateway.app).delete(path);
      expect({ path, status: res.status, allow: res.headers.allow }).toEqual({ path, status: 405, allow: 'GET' });
    }
    await request(harness.gateway.app).head('/health/live').expect(200);
    await request(harness.gateway.app).head('/openapi.json').expect(200);
  });
});
