// The kit's step-up ("Confirm it's you") against the real gateway, dev identity provider and
// PostgreSQL (issue 37): what the step-up asked is sealed into its login cookie, and the callback
// refuses an exchange that is weaker, with "Try again" and the session left as it was. The attack:
// someone at the person's unlocked, signed-in browser removes `stepUp=` from the start URL
// (keeping handoffChallenge and platformState), so the provider's session signs in silently. The
// gateway refuses that start (400 STEP_UP_TOKEN_MISSING); the kit must refuse it too where the
// gateway does not (a gateway from before the check, or whose record of the step-up is gone).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Harness } from '../../../test/helpers/flowHarness.ts';
import { OidcBrowser, type BrowserResponse } from '../../../test/helpers/oidcBrowser.ts';
import { DEV_TOTP_SECRETS } from '../../../src/devidp/index.ts';
import { base32Decode, totp } from '../../../src/devidp/totp.ts';
import { CLOCK_SKEW_SECONDS, stepUpShortfall, type Session, type StepUpAsked } from '../src/index.ts';
import { requireSession } from '../src/express.ts';
import { startKitApp, type KitApp } from './kitApp.ts';

const ALICE = { username: 'alice', password: 'alice-password', sub: 'dev-user-alice' };
const PLATFORM = 'KIT_STEP_UP';

describe("the kit's step-up, against the real gateway", () => {
  let app: KitApp;
  let harness: Harness;
  let appUrl: string;

  beforeAll(async () => {
    app = await startKitApp({
      platformKey: PLATFORM,
      displayName: 'Kit step-up',
      routes: (routes, kitOfApp) => {
        routes.get('/me', requireSession(kitOfApp), (_req, res) => {
          const session = res.locals.session as Session;
          res.json({ id: session.id, authentication: session.authentication });
        });
        // The app's "Confirm it's you": what it asks comes from the query (maxAge, requireSecondFactor, forceLogin).
        routes.post('/confirm', requireSession(kitOfApp), async (req, res) => {
          const query = req.query as Record<string, string | undefined>;
          const refused = await kitOfApp.stepUp(req, res, res.locals.session, {
            returnTo: '/account',
            ...(query.maxAge ? { maxAge: Number(query.maxAge) } : {}),
            ...(query.requireSecondFactor ? { requireSecondFactor: true } : {}),
            ...(query.forceLogin ? { forceLogin: true } : {}),
          });
          if (refused) res.status(502).send(refused.problem);
        });
        routes.get('/account', (_req, res) => res.send('account'));
      },
    });
    ({ harness, appUrl } = app);
  });
  afterAll(async () => {
    await app?.close();
  });

  const isGatewayOrProvider = (url: string) => app.isGatewayOrProvider(url);
  const me = async (browser: OidcBrowser) => JSON.parse((await browser.get(`${appUrl}/me`)).text) as { id: string; authentication: Session['authentication'] };

  /** Alice signed in to the app (password only), the provider's session fresh. */
  async function signedIn(): Promise<OidcBrowser> {
    const browser = new OidcBrowser();
    const page = (await browser.followRedirects(await browser.get(`${appUrl}/auth/login?returnTo=%2Faccount`), { maxHops: 10 })).response;
    const done = await browser.followRedirects(await browser.loginAtDevIdp(page, ALICE.username, ALICE.password), { maxHops: 10 });
    expect(done.response.url).toBe(`${appUrl}/account`);
    return browser;
  }

  /** The app's "Confirm it's you": the gateway's start URL it sends the browser to. */
  async function confirmStart(browser: OidcBrowser, query: string): Promise<URL> {
    const posted = await browser.postForm(`${appUrl}/confirm?${query}`, {}, { origin: appUrl });
    expect(posted.status, posted.text).toBe(303);
    const start = new URL(posted.location!);
    expect(start.searchParams.get('stepUp')).toMatch(/^v1\./);
    return start;
  }

  /** Follows a start URL through the gateway and the provider (signing in when its page asks) to the kit's callback, and answers the kit's page. */
  async function toCallback(browser: OidcBrowser, start: string, otp?: boolean): Promise<BrowserResponse> {
    let followed = await browser.followRedirects(await browser.get(start), { stopWhen: (url) => !isGatewayOrProvider(url), maxHops: 10 });
    if (!followed.stoppedAt) {
      const extra: Record<string, string> = otp ? { otp: totp(base32Decode(DEV_TOTP_SECRETS[ALICE.sub]!), Date.now() / 1000) } : {};
      followed = await browser.followRedirects(await browser.loginAtDevIdp(followed.response, ALICE.username, ALICE.password, extra), { stopWhen: (url) => !isGatewayOrProvider(url), maxHops: 10 });
    }
    expect(followed.stoppedAt).toMatch(new RegExp(`^${appUrl}/auth/callback\\?`));
    return browser.get(followed.stoppedAt!);
  }

  it('an honest step-up (second factor, a minute at most) upgrades the session', async () => {
    const browser = await signedIn();
    const before = await me(browser);
    expect(before.authentication.requested.stepUp).toBe(false);
    const callback = await toCallback(browser, (await confirmStart(browser, 'maxAge=60&requireSecondFactor=1')).href, true);
    expect(callback.status, callback.text).toBe(303);
    expect(callback.location).toBe(`${appUrl}/account`);
    const after = await me(browser);
    expect(after.id).not.toBe(before.id);
    expect(after.authentication.requested).toEqual({ maxAge: 60, forceLogin: false, secondFactor: true, stepUp: true });
    expect(after.authentication.amr).toContain('mfa');
  });

  it.each([
    ['a second factor', 'requireSecondFactor=1', {}],
    ['a maximum age', 'maxAge=60', {}],
    ['a forced sign-in (a step-up that asks nothing else)', '', {}],
    ['a second factor and a maximum age, the start asking a looser age instead', 'maxAge=60&requireSecondFactor=1', { maxAge: '3600' }],
  ])('a step-up asking %s, with stepUp= removed from its start URL: the gateway refuses the start, and the kit refuses the single sign-on where the gateway does not', async (_what, query, added: Record<string, string>) => {
    const browser = await signedIn();
    const before = await me(browser);
    const start = await confirmStart(browser, query);
    const stripped = new URL(start);
    stripped.searchParams.delete('stepUp');
    for (const [name, value] of Object.entries(added)) stripped.searchParams.set(name, value);
    expect(stripped.searchParams.get('handoffChallenge')).toBe(start.searchParams.get('handoffChallenge'));
    expect(stripped.searchParams.get('platformState')).toBe(start.searchParams.get('platformState'));

    // The gateway binds the step-up to its handoff challenge.
    const refused = await fetch(stripped, { headers: { Accept: 'application/json' }, redirect: 'manual' });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { code: string }).code).toBe('STEP_UP_TOKEN_MISSING');

    // A gateway that does not (one from before that check, or whose record of the step-up is gone):
    // the provider's session signs in silently, the exchange says what was (not) asked, and the kit refuses it.
    await harness.database.db.raw('DELETE FROM step_up_challenges WHERE handoff_challenge = ?', [start.searchParams.get('handoffChallenge')]);
    const page = await toCallback(browser, stripped.href);
    expect(page.status, page.text).toBe(403);
    expect(page.text).toContain('data-reason="not-confirmed"');
    expect(page.text).toContain('<a href="/account">Try again</a>');
    // Nothing signed in or upgraded: the session is the one from before.
    expect(await me(browser)).toEqual(before);
    // And the way forward works: the page that asked offers the confirmation again.
    await confirmStart(browser, query);
  });
});

describe('stepUpShortfall: each field of the exchange against what the step-up asked', () => {
  const startedAt = 1_800_000_000;
  const at = (seconds: number) => new Date(seconds * 1000).toISOString();
  const asked: StepUpAsked = { sub: 'user-1', maxAge: 60, forceLogin: false, secondFactor: true };
  type Reported = Session['authentication'];
  const exchanged = (authentication: Partial<Omit<Reported, 'requested'>> & { requested?: Partial<Reported['requested']> }, sub = 'user-1') => ({
    user: { id: 'u', sub },
    authentication: {
      authTime: at(startedAt + 5), amr: ['pwd', 'otp', 'mfa'], acr: null,
      ...authentication,
      requested: { maxAge: 60, forceLogin: false, secondFactor: true, stepUp: true, ...authentication.requested },
    },
  }) as Parameters<typeof stepUpShortfall>[1];

  it('an exchange that meets every field passes', () => {
    expect(stepUpShortfall(asked, exchanged({}), startedAt)).toBeUndefined();
    // A stricter request than asked is fine.
    expect(stepUpShortfall(asked, exchanged({ requested: { maxAge: 30, forceLogin: true } }), startedAt)).toBeUndefined();
  });

  it('refuses a plain login, another person, a missing second factor, a looser or missing maximum age', () => {
    expect(stepUpShortfall(asked, exchanged({ requested: { stepUp: false } }), startedAt)).toMatch(/not the confirmation/);
    expect(stepUpShortfall(asked, exchanged({}, 'user-2'), startedAt)).toMatch(/Another account/);
    expect(stepUpShortfall(asked, exchanged({ requested: { secondFactor: false } }), startedAt)).toMatch(/second factor/);
    expect(stepUpShortfall(asked, exchanged({ requested: { maxAge: 61 } }), startedAt)).toMatch(/as recent/);
    expect(stepUpShortfall(asked, exchanged({ requested: { maxAge: null } }), startedAt)).toMatch(/as recent/);
  });

  it(`a maximum age: authTime within it of the step-up's start, ${CLOCK_SKEW_SECONDS} s of clock skew allowed; an unknown authTime is refused`, () => {
    expect(stepUpShortfall(asked, exchanged({ authTime: at(startedAt - 60 - CLOCK_SKEW_SECONDS) }), startedAt)).toBeUndefined();
    expect(stepUpShortfall(asked, exchanged({ authTime: at(startedAt - 60 - CLOCK_SKEW_SECONDS - 1) }), startedAt)).toMatch(/older/);
    expect(stepUpShortfall(asked, exchanged({ authTime: null }), startedAt)).toMatch(/older/);
  });

  it('a forced sign-in: asked of the provider, and authTime not before the start (less the skew)', () => {
    const forced: StepUpAsked = { sub: 'user-1', maxAge: null, forceLogin: true, secondFactor: false };
    const ok = { requested: { maxAge: null, forceLogin: true, secondFactor: false } };
    expect(stepUpShortfall(forced, exchanged({ ...ok, authTime: at(startedAt - CLOCK_SKEW_SECONDS) }), startedAt)).toBeUndefined();
    expect(stepUpShortfall(forced, exchanged({ ...ok, authTime: at(startedAt - CLOCK_SKEW_SECONDS - 1) }), startedAt)).toMatch(/before this confirmation/);
    expect(stepUpShortfall(forced, exchanged({ ...ok, authTime: null }), startedAt)).toMatch(/before this confirmation/);
    expect(stepUpShortfall(forced, exchanged({ requested: { maxAge: null, forceLogin: false, secondFactor: false } }), startedAt)).toMatch(/sign in again/);
  });
});
