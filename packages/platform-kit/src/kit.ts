// The kit: a platform back end's side of the gateway's login, as request handlers on Node's
// http request and response (Express's extend them; src/express.ts mounts them).
//   signIn     GET   one login: a fresh handoff verifier and correlation value, kept in a sealed
//                    cookie of its own, then the browser to the gateway's start
//   callback   GET   that login's verifier found by the correlation value the gateway hands
//                    back; the code exchanged with the platform's credentials; a step-up's
//                    exchange checked against what it asked (stepUp.ts); the session kept
//                    server side; the browser to returnTo (or a page with "Start again")
//   backchannelLogout POST  the gateway's logout token verified; the sessions of its sid ended
//   signOut    POST  the gateway's one-step sign-out (a sign-out token, then its logout page)
import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import { AmbiguousCookieError, appendSetCookie, HOST_PREFIX, readCookies, serializeCookie } from './cookies.ts';
import { loginCookieName, loginSeal, newLogin, sameState, type LoginInFlight } from './logins.ts';
import { MemorySessionStore, type Session, type SessionStore } from './sessions.ts';
import { clientWithCredential, clientWithPlatformSecret, type Exchanged, type GatewayClient } from './client.ts';
import { needsOnboarding, onboardingGrace, onboardingToDo, type OnboardingGrace, type OnboardingToDo } from './onboarding.ts';
import { gatewayKeySet, verifyLogoutToken, type GatewayKeySet } from './verify.ts';
import { failurePage, type SignInFailure } from './pages.ts';
import { readForm, localPath, sameOriginRequest } from './requests.ts';
import { stepUpAsked, stepUpShortfall } from './stepUp.ts';

export interface KitPaths {
  signIn: string;
  callback: string;
  backchannelLogout: string;
  signOut: string;
}

export interface PlatformKitOptions {
  /** The gateway's public base URL (its PUBLIC_BASE_URL, also the issuer of its tokens). */
  gatewayUrl: string;
  platformKey: string;
  clientId: string;
  clientSecret: string;
  /** How browsers reach this back end; the registered callbackUrl is publicUrl + paths.callback. */
  publicUrl: string;
  /** Seals the login cookies: at least 32 characters of a random secret, the same on every instance. */
  cookieSecret: string;
  /** Where sessions are kept (default: in memory, for development); false keeps none (the gateway's own cookie is all the app uses). */
  sessions?: SessionStore | false;
  /** The kit's routes (defaults /auth/login, /auth/callback, /auth/backchannel-logout, /auth/logout). */
  paths?: Partial<KitPaths>;
  /** Where a sign-in without a returnTo ends, and the sign-out's way back (default '/'). */
  defaultReturnTo?: string;
  /** Cookie names start with it (default 'pk'; after `__Host-` when the cookies are Secure): one kit per platform in one back end needs one each. */
  cookiePrefix?: string;
  /** The gateway's cookie name (GATEWAY_COOKIE_NAME), default gw_session. */
  gatewayCookieName?: string;
  /** How long a login may take (default 600 s, the gateway's AUTH_TRANSACTION_TTL_SECONDS default). */
  loginTtlSeconds?: number;
  /** Logins one browser may have in flight (default 5); starting one more drops the oldest. */
  maxLogins?: number;
  /** Secure cookies (default: publicUrl is https); their names then start with `__Host-`, with Path=/. */
  secureCookies?: boolean;
  /** The gateway's signing keys (default: its JWKS, cached). */
  keys?: GatewayKeySet;
  /** Called after a successful exchange; what it answers is kept as the session's `data`. */
  onSignIn?: (exchanged: Exchanged, client: GatewayClient) => Promise<Record<string, unknown>> | Record<string, unknown>;
  /** Called when sessions end: the person signed out, or the gateway ended their gateway session. */
  onSessionsEnded?: (sessionIds: string[], why: 'signed-out' | 'back-channel') => void | Promise<void>;
  /** The page a sign-in that could not finish shows (default: a plain page with "Start again"). */
  renderFailure?: (failure: SignInFailure) => string;
}

export interface StartOptions {
  /** A path of this back end (default defaultReturnTo). */
  returnTo?: string;
  /** A support sign-in (issue 35): the access id of the gateway's link, forwarded to the start; the gateway decides the rest. */
  supportAccess?: string;
}
const SUPPORT_ACCESS_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export interface StepUpOptions extends StartOptions {
  maxAge?: number;
  forceLogin?: boolean;
  requireSecondFactor?: boolean;
}

type Handler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

const MAX_CARRIED_RETURN_TO = 256;

export interface PlatformKit {
  readonly paths: KitPaths;
  readonly sessions: SessionStore | null;
  signIn: Handler;
  callback: Handler;
  backchannelLogout: Handler;
  signOut: Handler;
  /** Starts a login from any handler of yours (what signIn does with ?returnTo=). */
  startLogin(req: IncomingMessage, res: ServerResponse, options?: StartOptions): Promise<void>;
  /**
   * "Confirm it's you": a fresh sign-in of this session's person (POST /v1/auth/step-up), bound like
   * any login. What it asks is sealed into the login's cookie; the callback refuses an exchange that
   * does not meet it (a page with "Try again" at `returnTo`), and the session stays as it was.
   */
  stepUp(req: IncomingMessage, res: ServerResponse, session: Session, options?: StepUpOptions): Promise<{ problem: string } | undefined>;
  /** This browser's session, or undefined. Rejects with AmbiguousCookieError (status 400) when the request carries the session cookie twice. */
  session(req: IncomingMessage): Promise<Session | undefined>;
  /** The session cookie's value (also after its session ended); throws AmbiguousCookieError as session() does. */
  sessionId(req: IncomingMessage): string | undefined;
  /** `__Host-{cookiePrefix}_session` when the cookies are Secure, else `{cookiePrefix}_session`. */
  sessionCookieName: string;
  /** Lets the browser forget the session cookie (with the attributes it was set with, which a `__Host-` cookie needs). */
  clearSessionCookie(res: ServerResponse): void;
  /** The typed client, calling as the session's person with its platform credential. */
  client(session: Session): GatewayClient;
  /**
   * `platform` onboarding: whether the person still has to go through this platform's own
   * onboarding page (fields to fill, or documents to accept), as the exchange said at sign-in.
   */
  needsOnboarding(session: Session): boolean;
  /**
   * A requirement change in its grace period (status GRACE): from when it blocks and what is
   * missing, or null. The person is let through until then; remind them if you wish.
   */
  onboardingGrace(session: Session): OnboardingGrace | null;
  /**
   * What to render on that page, read now: the fields with their values (GET
   * /v1/onboarding/{platformKey}/requirements), what is still missing (`missingFields`,
   * `missingDocuments`), what is accepted, and the documents with their texts.
   */
  onboardingRequirements(session: Session): Promise<OnboardingToDo>;
  /** The link that starts a login returning to `returnTo`. */
  signInHref(returnTo?: string): string;
}

export function createPlatformKit(options: PlatformKitOptions): PlatformKit {
  const publicUrl = new URL(options.publicUrl);
  const gatewayUrl = options.gatewayUrl.replace(/\/+$/, '');
  const paths: KitPaths = { signIn: '/auth/login', callback: '/auth/callback', backchannelLogout: '/auth/backchannel-logout', signOut: '/auth/logout', ...options.paths };
  const secure = options.secureCookies ?? publicUrl.protocol === 'https:';
  // `__Host-` whenever Secure: no sibling subdomain (Domain=) and no other path can set a cookie
  // of these names beside the kit's (cookie tossing: a login cookie of the attacker's own login,
  // tossed into a victim's browser, would sign the victim in as the attacker).
  const prefix = `${secure ? HOST_PREFIX : ''}${options.cookiePrefix ?? 'pk'}`;
  const sessionCookieName = `${prefix}_session`;
  const loginTtl = options.loginTtlSeconds ?? 600;
  const maxLogins = options.maxLogins ?? 5;
  const defaultReturnTo = options.defaultReturnTo ?? '/';
  const sessions = options.sessions === false ? null : (options.sessions ?? new MemorySessionStore());
  const seal = loginSeal(options.cookieSecret);
  const keys = options.keys ?? gatewayKeySet(gatewayUrl);
  const clientOptions = { gatewayUrl, cookieName: options.gatewayCookieName ?? 'gw_session' };
  const asPlatform = clientWithPlatformSecret(clientOptions, options);
  // Login cookies go to both the sign-in route (which counts them) and the callback; a `__Host-`
  // cookie must have Path=/, so Secure ones go with every request to this site while in flight.
  const loginCookiePath = secure ? '/' : commonPath(paths.signIn, paths.callback);
  const loginCookiePrefix = `${prefix}_login_`;
  const render = options.renderFailure ?? failurePage;

  const signInHref = (returnTo?: string) => (returnTo && returnTo !== defaultReturnTo ? `${paths.signIn}?returnTo=${encodeURIComponent(returnTo)}` : paths.signIn);
  const redirect = (res: ServerResponse, status: number, location: string) => {
    res.writeHead(status, { Location: location, 'Cache-Control': 'no-store' });
    res.end();
  };
  /** A page with a way forward: "Start again" (a sign-in returning to returnTo), or "Try again" at `tryAgainAt` (a step-up's page). */
  const fail = (res: ServerResponse, { returnTo, tryAgainAt, ...failure }: Omit<SignInFailure, 'startAgain' | 'label'> & { returnTo?: string; tryAgainAt?: string }) => {
    res.writeHead(failure.status, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer' });
    res.end(render({ ...failure, ...(tryAgainAt ? { startAgain: tryAgainAt, label: 'Try again' } : { startAgain: signInHref(returnTo), label: 'Start again' }) }));
  };
  /** The kit's routes refuse a request that carries one of its cookies twice (cookies.ts), having done nothing. */
  const refusingAmbiguous = (handler: Handler): Handler => async (req, res) => {
    try {
      await handler(req, res);
    } catch (error) {
      if (!(error instanceof AmbiguousCookieError) || res.headersSent) throw error;
      res.removeHeader('Set-Cookie');
      fail(res, { status: 400, reason: 'ambiguous-cookie', message: error.message });
    }
  };

  /**
   * A new login's cookie, and the oldest ones dropped beyond maxLogins. A returnTo longer than
   * MAX_CARRIED_RETURN_TO is not carried: up to maxLogins of these cookies go with every request
   * under the kit's path, and a few 2 KiB paths would pass a proxy's header limit (8 KiB is
   * common) and fail every callback. The gateway hands the returnTo back in the exchange anyway;
   * the cookie's is the fallback and the failure page's "Start again".
   */
  async function keepLogin(req: IncomingMessage, res: ServerResponse, started: Omit<LoginInFlight, 'expiresAt' | 'startedAt'>): Promise<void> {
    const login = started.returnTo.length <= MAX_CARRIED_RETURN_TO ? started : { ...started, returnTo: defaultReturnTo };
    const held: Array<{ name: string; expiresAt: number }> = [];
    for (const [name, value] of readCookies(req).startingWith(loginCookiePrefix)) {
      const opened = await seal.open(value);
      held.push({ name, expiresAt: typeof opened === 'object' ? opened.expiresAt : 0 });
    }
    held.sort((a, b) => a.expiresAt - b.expiresAt);
    const dropped = held.slice(0, Math.max(0, held.length - (maxLogins - 1)));
    appendSetCookie(res, [
      ...dropped.map(({ name }) => serializeCookie(name, '', { path: loginCookiePath, secure, maxAge: 0 })),
      serializeCookie(loginCookieName(prefix, login.state), await seal.seal(login, loginTtl), { path: loginCookiePath, secure, maxAge: loginTtl }),
    ]);
  }

  async function startLogin(req: IncomingMessage, res: ServerResponse, start: StartOptions = {}): Promise<void> {
    const returnTo = localPath(start.returnTo ?? null, publicUrl) ?? defaultReturnTo;
    const login = newLogin(returnTo);
    await keepLogin(req, res, login);
    const target = new URL(`${gatewayUrl}/v1/auth/start`);
    target.searchParams.set('platformKey', options.platformKey);
    target.searchParams.set('returnTo', new URL(returnTo, publicUrl).href);
    target.searchParams.set('handoffChallenge', login.challenge);
    target.searchParams.set('platformState', login.state);
    if (start.supportAccess && SUPPORT_ACCESS_ID.test(start.supportAccess)) target.searchParams.set('supportAccess', start.supportAccess);
    redirect(res, 302, target.href);
  }

  async function callback(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // GET only: the callback spends a single-use code, and Express (and a plain server that
    // answers HEAD like GET) would otherwise exchange it for a HEAD, whose answer a browser never sees.
    if (req.method !== 'GET') {
      res.writeHead(405, { Allow: 'GET', 'Cache-Control': 'no-store' });
      return void res.end();
    }
    const query = new URL(req.url ?? '/', publicUrl).searchParams;
    const code = query.get('code');
    const state = query.get('platformState');
    if (!code) return fail(res, { status: 400, reason: 'incomplete', message: 'The sign-in link is incomplete.' });
    const cookieName = state ? loginCookieName(prefix, state) : undefined;
    const cookies = readCookies(req);
    const sealed = cookieName ? cookies.get(cookieName) : undefined;
    // Read before the code is spent: a session cookie sent twice is refused with nothing exchanged.
    const previous = sessions ? cookies.get(sessionCookieName) : undefined;
    const opened = sealed ? await seal.open(sealed) : undefined;
    const login = typeof opened === 'object' && state !== null && sameState(opened.state, state) ? opened : undefined;
    // No login of this browser with this correlation value: it expired, the browser dropped the
    // cookie, or the link comes from someone else's login (login CSRF). Never exchange such a code.
    if (!login) {
      const expired = opened === 'expired';
      if (cookieName && sealed) appendSetCookie(res, [serializeCookie(cookieName, '', { path: loginCookiePath, secure, maxAge: 0 })]);
      return fail(res, {
        status: 400,
        reason: expired ? 'expired' : 'no-login',
        message: expired
          ? 'This sign-in took too long, so it was not completed.'
          : 'This browser holds no record of starting this sign-in, so it was not completed. It may have taken too long, or you may have opened a sign-in link someone else sent you.',
      });
    }
    // Spent whatever the exchange answers: a code is single use.
    appendSetCookie(res, [serializeCookie(cookieName!, '', { path: loginCookiePath, secure, maxAge: 0 })]);
    let exchanged: Exchanged;
    try {
      const answer = await asPlatform.POST('/v1/auth/exchange', { body: { code, handoffVerifier: login.verifier } });
      if (!answer.data) {
        const problem = answer.error as { code?: string; title?: string } | undefined;
        const status = answer.response.status;
        return fail(res, {
          status: status >= 500 ? 502 : status,
          reason: 'refused',
          code: problem?.code ?? String(status),
          message: status >= 500 ? 'The sign-in service could not finish this sign-in. Try again in a moment.' : 'This sign-in link has expired or was already used.',
          returnTo: login.returnTo,
        });
      }
      exchanged = answer.data;
    } catch {
      return fail(res, { status: 502, reason: 'unreachable', message: 'The sign-in service could not be reached. Try again in a moment.', returnTo: login.returnTo });
    }
    // A step-up: the exchange must meet what it asked, or nothing is signed in or upgraded (the
    // session stays as it was; the new credential is dropped unused) and the page that asked offers it again.
    const shortfall = login.stepUp ? stepUpShortfall(login.stepUp, exchanged, login.startedAt) : undefined;
    if (shortfall) return fail(res, { status: 403, reason: 'not-confirmed', message: `${shortfall} Nothing was confirmed.`, tryAgainAt: login.returnTo });
    if (sessions) {
      const client = clientWithCredential(clientOptions, exchanged.session.gatewayToken);
      const data = options.onSignIn ? await options.onSignIn(exchanged, client) : {};
      if (previous) await sessions.delete(previous);
      const id = randomBytes(32).toString('base64url');
      await sessions.set({
        id,
        gatewaySessionId: exchanged.session.id,
        platformCredential: exchanged.session.gatewayToken,
        expiresAt: exchanged.session.expiresAt,
        user: exchanged.user,
        onboarding: exchanged.onboarding,
        permissions: exchanged.permissions,
        authentication: exchanged.authentication,
        ...(exchanged.act && exchanged.supportAccess ? { support: { act: exchanged.act, endsAt: exchanged.supportAccess.endsAt } } : {}),
        data,
      });
      appendSetCookie(res, [serializeCookie(sessionCookieName, id, { path: '/', secure })]);
    } else if (options.onSignIn) {
      await options.onSignIn(exchanged, clientWithCredential(clientOptions, exchanged.session.gatewayToken));
    }
    // The gateway checked returnTo against the platform's allowed roots; it must be ours too.
    const returned = URL.canParse(exchanged.returnTo) ? new URL(exchanged.returnTo) : null;
    const next = (returned?.origin === publicUrl.origin ? localPath(`${returned.pathname}${returned.search}`, publicUrl) : null) ?? login.returnTo;
    // 303: the used code leaves the address bar, so a reload shows the page, not a spent code.
    redirect(res, 303, next);
  }

  async function backchannelLogout(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // OpenID Connect Back-Channel Logout 1.0 §2.8: 200 when done (also when nothing was left to
    // end: the gateway delivers at least once), 400 with an OAuth-style error otherwise.
    const answer = (status: number, body?: object) => {
      res.writeHead(status, { 'Cache-Control': 'no-store', ...(body ? { 'Content-Type': 'application/json' } : {}) });
      res.end(body ? JSON.stringify(body) : undefined);
    };
    if (req.method !== 'POST') {
      res.setHeader('Allow', 'POST');
      return answer(405);
    }
    const token = (await readForm(req).catch(() => new URLSearchParams())).get('logout_token');
    if (!token) return answer(400, { error: 'invalid_request', error_description: 'logout_token is required' });
    let sid: string;
    try {
      ({ sid } = await verifyLogoutToken(token, { keys, issuer: gatewayUrl, audience: options.clientId }));
    } catch (error) {
      return answer(400, { error: 'invalid_request', error_description: `the logout token is not valid: ${(error as Error).message}` });
    }
    const ended = sessions ? await sessions.deleteByGatewaySession(sid) : [];
    if (ended.length > 0) await options.onSessionsEnded?.(ended, 'back-channel');
    return answer(200);
  }

  async function signOut(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== 'POST') {
      res.writeHead(405, { Allow: 'POST', 'Cache-Control': 'no-store' });
      return void res.end();
    }
    // A form of another site must not sign anyone out.
    if (!sameOriginRequest(req, publicUrl)) {
      res.writeHead(403, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' });
      return void res.end("Sign out from this site's own page.");
    }
    const back = new URL(defaultReturnTo, publicUrl).href;
    const session = await currentSession(req);
    if (!session || !sessions) return redirect(res, 303, defaultReturnTo);
    // A sign-out token (OpenID RP-Initiated Logout 1.0 §2: the platform proves it asks), then the
    // gateway's logout page, which ends its session and the provider's without asking again.
    // Without a token (the gateway unreachable, the session already over) the gateway asks the person.
    const issued = await clientWithCredential(clientOptions, session.platformCredential).POST('/v1/auth/logout/token').catch(() => null);
    await sessions.delete(session.id);
    await options.onSessionsEnded?.([session.id], 'signed-out');
    const target = new URL(`${gatewayUrl}/v1/auth/logout`);
    target.searchParams.set('platformKey', options.platformKey);
    target.searchParams.set('returnTo', back);
    const token = issued?.data?.signOutToken;
    if (token) target.searchParams.set('signOutToken', token);
    redirect(res, 303, target.href);
  }

  async function currentSession(req: IncomingMessage): Promise<Session | undefined> {
    // Throws (the promise rejects) on a session cookie sent twice: never a guess between two sessions.
    const id = readCookies(req).get(sessionCookieName);
    return id && sessions ? sessions.get(id) : undefined;
  }

  async function stepUp(req: IncomingMessage, res: ServerResponse, session: Session, step: StepUpOptions = {}): Promise<{ problem: string } | undefined> {
    const returnTo = localPath(step.returnTo ?? null, publicUrl) ?? defaultReturnTo;
    const login = { ...newLogin(returnTo), stepUp: stepUpAsked(session.user.sub, step) };
    const answer = await clientWithCredential(clientOptions, session.platformCredential)
      .POST('/v1/auth/step-up', {
        body: {
          returnTo: new URL(returnTo, publicUrl).href,
          handoffChallenge: login.challenge,
          platformState: login.state,
          ...(step.maxAge !== undefined ? { maxAge: step.maxAge } : {}),
          ...(step.forceLogin !== undefined ? { forceLogin: step.forceLogin } : {}),
          ...(step.requireSecondFactor !== undefined ? { requireSecondFactor: step.requireSecondFactor } : {}),
        },
      })
      .catch(() => null);
    if (!answer?.data) return { problem: (answer?.error as { title?: string } | undefined)?.title ?? 'The gateway could not be reached.' };
    await keepLogin(req, res, login);
    redirect(res, 303, answer.data.url);
    return undefined;
  }

  return {
    paths,
    sessions,
    signIn: refusingAmbiguous((req, res) => {
      const query = new URL(req.url ?? '/', publicUrl).searchParams;
      const supportAccess = query.get('supportAccess');
      return startLogin(req, res, { returnTo: query.get('returnTo') ?? defaultReturnTo, ...(supportAccess ? { supportAccess } : {}) });
    }),
    callback: refusingAmbiguous(callback),
    backchannelLogout,
    signOut: refusingAmbiguous(signOut),
    startLogin,
    stepUp,
    session: currentSession,
    sessionId: (req) => readCookies(req).get(sessionCookieName),
    sessionCookieName,
    clearSessionCookie: (res) => appendSetCookie(res, [serializeCookie(sessionCookieName, '', { path: '/', secure, maxAge: 0 })]),
    client: (session) => clientWithCredential(clientOptions, session.platformCredential),
    needsOnboarding,
    onboardingGrace,
    onboardingRequirements: (session) => onboardingToDo(clientWithCredential(clientOptions, session.platformCredential), options.platformKey),
    signInHref,
  };
}

/** The longest path both routes are under ("/auth/login" and "/auth/callback": "/auth"). */
function commonPath(a: string, b: string): string {
  const left = a.split('/');
  const right = b.split('/');
  const common: string[] = [];
  for (let i = 0; i < Math.min(left.length, right.length) - 1 && left[i] === right[i]; i += 1) common.push(left[i]!);
  return common.join('/') || '/';
}
