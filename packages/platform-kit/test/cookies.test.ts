// The kit's cookies against cookie tossing (issue 37), with the real gateway, dev identity
// provider and PostgreSQL: Secure cookies are named `__Host-` (Secure, Path=/, no Domain: no
// sibling subdomain and no other path can set one beside the kit's), and a request that carries
// one of the kit's cookies twice is refused rather than the first one taken, as the gateway does
// for its session cookie. Served over http://127.0.0.1, which browsers (and the test browser)
// treat as a secure context for cookies.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import type { Harness } from '../../../test/helpers/flowHarness.ts';
import { OidcBrowser, type BrowserResponse } from '../../../test/helpers/oidcBrowser.ts';
import type { PlatformKit, Session } from '../src/index.ts';
import { requireSession } from '../src/express.ts';
import { startKitApp, type KitApp } from './kitApp.ts';
import { loginCookieName, loginSeal } from '../src/logins.ts';
import { AmbiguousCookieError, readCookies } from '../src/cookies.ts';

const ALICE = { username: 'alice', password: 'alice-password' };
const PLATFORM = 'KIT_COOKIES';

describe("the kit's cookies, Secure", () => {
  let app: KitApp;
  let harness: Harness;
  let appUrl: string;
  let kit: PlatformKit;
  const cookieSecret = randomBytes(32).toString('base64url');

  beforeAll(async () => {
    app = await startKitApp({
      platformKey: PLATFORM,
      displayName: 'Kit cookies',
      kit: { cookieSecret, secureCookies: true },
      routes: (routes, kitOfApp) => {
        routes.get('/me', requireSession(kitOfApp), (_req, res) => res.json({ id: (res.locals.session as Session).id }));
        routes.get('/', (_req, res) => res.send('home'));
      },
    });
    ({ harness, appUrl, kit } = app);
  });
  afterAll(async () => {
    await app?.close();
  });

  const isGatewayOrProvider = (url: string) => app.isGatewayOrProvider(url);
  const unspentCodes = async () =>
    (await harness.database.db.raw(`SELECT count(*)::int AS n FROM handoff_codes h JOIN platforms p ON p.id = h.platform_id WHERE p.platform_key = ? AND h.consumed_at IS NULL`, [PLATFORM])).rows[0].n as number;
  const setCookies = (headers: Headers) => headers.getSetCookie();

  /** A login up to the kit's callback: the browser, the callback URL and the login's correlation value. */
  async function upToCallback(browser = new OidcBrowser()): Promise<{ browser: OidcBrowser; callbackUrl: string; state: string; signIn: BrowserResponse }> {
    const signIn = await browser.get(`${appUrl}/auth/login`);
    const state = new URL(signIn.location!).searchParams.get('platformState')!;
    const page = (await browser.followRedirects(signIn, { maxHops: 10 })).response;
    const submitted = /name="password"/.test(page.text) ? await browser.loginAtDevIdp(page, ALICE.username, ALICE.password) : page;
    const followed = await browser.followRedirects(submitted, { stopWhen: (url) => !isGatewayOrProvider(url), maxHops: 10 });
    expect(followed.stoppedAt).toMatch(new RegExp(`^${appUrl}/auth/callback\\?`));
    return { browser, callbackUrl: followed.stoppedAt!, state, signIn };
  }

  it('names them __Host-, Secure, Path=/ and no Domain; a whole login works with them (the login cookie reaches the callback from Path=/)', async () => {
    expect(kit.sessionCookieName).toBe('__Host-pk_session');
    const { browser, callbackUrl, state, signIn } = await upToCallback();
    const [login] = setCookies(signIn.headers);
    expect(login).toMatch(new RegExp(`^${loginCookieName('__Host-pk', state)}=[^;]+; Path=/; Max-Age=600; HttpOnly; SameSite=Lax; Secure$`));

    const callback = await browser.get(callbackUrl);
    expect(callback.status).toBe(303);
    const set = setCookies(callback.headers);
    expect(set).toContainEqual(`${loginCookieName('__Host-pk', state)}=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax; Secure`);
    expect(set.find((line) => line.startsWith('__Host-pk_session='))).toMatch(/^__Host-pk_session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax; Secure$/);
    for (const line of set) expect(line).not.toMatch(/Domain=/i);
    expect((await browser.get(`${appUrl}/me`)).status).toBe(200);
  });

  it('refuses a request that carries the session cookie twice (a tossed one first): no guess between the two sessions, and sign-out ends neither', async () => {
    const victim = await upToCallback();
    await victim.browser.get(victim.callbackUrl);
    const attacker = await upToCallback();
    await attacker.browser.get(attacker.callbackUrl);
    const victimId = victim.browser.cookiesFor(`${appUrl}/`)['__Host-pk_session']!;
    const attackerId = attacker.browser.cookiesFor(`${appUrl}/`)['__Host-pk_session']!;
    // As a browser sends a cookie with a longer path (or a sibling's) first.
    const both = `__Host-pk_session=${attackerId}; __Host-pk_session=${victimId}`;

    const page = await fetch(`${appUrl}/me`, { headers: { Cookie: both }, redirect: 'manual' });
    expect(page.status).toBe(400);
    await expect(kit.session({ headers: { cookie: both } } as never)).rejects.toBeInstanceOf(AmbiguousCookieError);

    const signOut = await fetch(`${appUrl}/auth/logout`, { method: 'POST', headers: { Cookie: both, Origin: appUrl }, redirect: 'manual' });
    expect(signOut.status).toBe(400);
    expect(await signOut.text()).toContain('data-reason="ambiguous-cookie"');
    expect(await kit.sessions!.get(victimId)).toBeDefined();
    expect(await kit.sessions!.get(attackerId)).toBeDefined();
    // Each alone is that person's session.
    expect(JSON.parse((await victim.browser.get(`${appUrl}/me`)).text)).toEqual({ id: victimId });
  });

  it('refuses a callback that carries its login cookie twice, exchanging nothing; with one, the login finishes', async () => {
    const { browser, callbackUrl, state } = await upToCallback();
    const name = loginCookieName('__Host-pk', state);
    const own = browser.cookiesFor(callbackUrl)[name]!;
    // Another sealed login of the same name (a login of this back end with another verifier).
    const other = await loginSeal(cookieSecret).seal({ verifier: randomBytes(32).toString('base64url'), state, returnTo: '/' }, 600);
    const before = await unspentCodes();
    const refused = await fetch(callbackUrl, { headers: { Cookie: `${name}=${other}; ${name}=${own}` }, redirect: 'manual' });
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain('data-reason="ambiguous-cookie"');
    expect(await unspentCodes()).toBe(before);
    expect((await browser.get(callbackUrl)).status).toBe(303);
  });
});

describe('readCookies', () => {
  const request = (cookie: string) => ({ headers: { cookie } }) as never;
  it('refuses a name it is asked for that comes twice; other names, and listing by prefix, are unaffected', () => {
    const cookies = readCookies(request('a=1; pk_login_x=2; b=3; pk_login_x=4'));
    expect(cookies.get('a')).toBe('1');
    expect(cookies.get('missing')).toBeUndefined();
    expect(() => cookies.get('pk_login_x')).toThrow(AmbiguousCookieError);
    expect(cookies.startingWith('pk_login_')).toEqual([['pk_login_x', '2'], ['pk_login_x', '4']]);
  });
});
