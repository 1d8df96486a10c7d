// Shared steps of the data-rights tests (issue 26): people of the dev identity provider,
// a sign-in to a platform with its exchange, and the export's life from start to download.
import request from 'supertest';
import { expect } from 'vitest';
import { browserLogin, startUrl, type Harness, type TestPlatform } from './flowHarness.ts';
import { OidcBrowser } from './oidcBrowser.ts';
import type { DevIdpUser } from '../../src/devidp/users.ts';

export const ACCOUNT_CENTER = 'http://account.test';

/** A person of the dev identity provider, one per test so that limits and lists do not mix. */
export function person(name: string): DevIdpUser {
  return {
    sub: `dev-user-${name}`,
    username: name,
    password: `${name}-password`,
    email: `${name}@example.test`,
    givenName: name[0]!.toUpperCase() + name.slice(1),
    familyName: 'Tester',
    permissions: [],
  };
}

export interface SignedIn {
  browser: OidcBrowser;
  /** The browser's gateway cookie (the account center's session): `gw_session=…`. */
  cookie: string;
  /** The platform back end's credential from the exchange, as its cookie header. */
  credential: string;
  gatewayToken: string;
  sessionId: string;
  userId: string;
  onboardingStatus: string;
}

/**
 * A login to `platform` and its exchange by the platform's back end. The first login of a
 * browser signs in at the provider's page; later ones ride its session (single sign-on), each
 * with a new gateway session.
 */
export async function signIn(harness: Harness, platform: TestPlatform, user: { username: string; password: string }, browser = new OidcBrowser()): Promise<SignedIn> {
  const isOwn = (url: string) => url.startsWith(harness.baseUrl) || url.startsWith(harness.idp.issuer);
  let location: URL;
  if (Object.keys(browser.cookiesFor(`${harness.baseUrl}/`)).length === 0) {
    location = (await browserLogin(harness, platform.key, user, browser)).location;
  } else {
    const followed = await browser.followRedirects(await browser.get(startUrl(harness, platform.key)), { stopWhen: (url) => !isOwn(url), maxHops: 10 });
    expect(followed.stoppedAt, followed.response.text.slice(0, 300)).toBeDefined();
    location = new URL(followed.stoppedAt!);
  }
  const res = await request(harness.gateway.app).post('/v1/auth/exchange').set('Authorization', platform.basic).send({ code: location.searchParams.get('code') }).expect(200);
  return {
    browser,
    cookie: `gw_session=${browser.cookiesFor(`${harness.baseUrl}/`).gw_session}`,
    credential: `gw_session=${res.body.session.gatewayToken}`,
    gatewayToken: res.body.session.gatewayToken,
    sessionId: res.body.session.id,
    userId: res.body.user.id,
    onboardingStatus: res.body.onboarding.status,
  };
}

/** Calls as the account center does: the browser's cookie, from the account center's origin. */
export function asPerson(harness: Harness, cookie: string) {
  const api = request(harness.gateway.app);
  return {
    get: (path: string) => api.get(path).set('Cookie', cookie),
    post: (path: string) => api.post(path).set('Cookie', cookie).set('Origin', ACCOUNT_CENTER),
    put: (path: string) => api.put(path).set('Cookie', cookie).set('Origin', ACCOUNT_CENTER),
    delete: (path: string) => api.delete(path).set('Cookie', cookie).set('Origin', ACCOUNT_CENTER),
  };
}

/** The path and query of a gateway URL, for supertest. */
export const pathOf = (url: string) => {
  const parsed = new URL(url);
  return parsed.pathname + parsed.search;
};
