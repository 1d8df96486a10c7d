import http from 'node:http';
import { createHash, randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { confirmHtml, requestStepUp, type SignIn } from './demoBffConfirm.ts';
import { accessHtml, escapeHtml, page, personHtml, type BffSession } from './demoBffPages.ts';
import { fetchPerson, localReturnPath, readBody, readCookie } from './demoBffHttp.ts';
import { createEventReceiver } from './demoBffEvents.ts';

/**
 * A minimal example platform back end (BFF), served by the demo stack so a
 * person can click through a whole login. It does what a real BFF must:
 * send the browser to /v1/auth/start, receive the handoff code at its callback,
 * exchange it server to server with HTTP Basic, and keep the gatewayToken on the
 * server, in a server-side session of its own behind a random cookie.
 *
 * It also binds each login to itself with a handoff challenge (optional for
 * platforms, the RFC 7636 pattern): a secret per login in an HttpOnly cookie of
 * its own, its SHA-256 sent at start, the secret sent with the exchange. A handoff
 * code injected into its callback from someone else's login is then refused.
 *
 * After the exchange it asks the gateway who signed in (GET /v1/me with the platform credential
 * forwarded as the gateway cookie), keeps that in its session and redirects (303) to the page the person
 * wanted (`returnTo`, a path inside this BFF): a reload then shows the page, not a second use
 * of a single-use code. Any page can send a person to `{basePath}/login?returnTo=/the/page`.
 *
 * And it receives back-channel logout (OpenID Connect Back-Channel Logout 1.0): when the
 * gateway session it exchanged a code for ends (sign-out, revocation, account deletion,
 * expiry...), the gateway POSTs a logout token to {basePath}/backchannel-logout (registered
 * as the platform's backchannelLogoutUrl). The BFF verifies it against the gateway's JWKS and
 * ends its own sessions of that gateway session. This file is the reference for platform
 * teams: see handleBackchannelLogout.
 *
 * Its "Sign out" is a one-step sign-out (see handleSignOut): a POST to its own {basePath}/logout
 * (origin-checked: no other site can sign a person out), a sign-out token from the gateway,
 * server to server with the platform credential, then the browser to the gateway's
 * GET /v1/auth/logout with that token, which signs out without asking the person again.
 */
export interface DemoBffPlatform {
  platformKey: string;
  /** What the home page calls it. */
  name: string;
  clientId: string;
  clientSecret: string;
  /** Where its pages live in this BFF: '' (the root) or a prefix such as '/central'. */
  basePath?: string;
}

export interface DemoBffOptions {
  port: number;
  gatewayUrl: string;
  /** One platform (registered with callback {publicUrl}/auth/callback)… */
  platformKey?: string;
  clientId?: string;
  clientSecret?: string;
  /** …or several, each under its own basePath (callback {publicUrl}{basePath}/auth/callback). */
  platforms?: DemoBffPlatform[];
  /** How browsers reach this BFF (its registered callback and return root); default http://localhost:<port>. */
  publicUrl?: string;
  /** The gateway's cookie name (GATEWAY_COOKIE_NAME), under which the platform credential is forwarded; default gw_session. */
  gatewayCookieName?: string;
  /** Listen address (HOST); default 127.0.0.1: its demo credentials are published, so only this machine reaches it. */
  host?: string;
}

export interface DemoBff {
  url: string;
  /** Live server-side sessions (for tests and the curious). */
  sessionCount(): number;
  close(): Promise<void>;
}

const VERIFIER_COOKIE = 'demo_handoff_verifier';
/** The BFF's own session cookie, one per platform it serves (a random id; the session stays on the server). */
const sessionCookieName = (platform: DemoBffPlatform) => `demo_session_${platform.platformKey}`;
const BACKCHANNEL_LOGOUT_EVENT = 'http://schemas.openid.net/event/backchannel-logout';

export async function startDemoBff(options: DemoBffOptions): Promise<DemoBff> {
  let selfUrl = options.publicUrl ?? '';
  const platforms: DemoBffPlatform[] = options.platforms ?? [
    { platformKey: options.platformKey!, name: 'Demo platform', clientId: options.clientId!, clientSecret: options.clientSecret!, basePath: '' },
  ];
  const byLongestPrefix = [...platforms].sort((a, b) => (b.basePath ?? '').length - (a.basePath ?? '').length);
  // Server-side sessions: cookie value → session. A real BFF keeps them in its own store
  // (Redis, its database), indexed by the gateway session id too, for back-channel logout.
  const sessions = new Map<string, BffSession>();
  // How each session's person last signed in (the exchange's `authentication`): "Confirm it's you".
  const signIns = new Map<string, SignIn>();
  // Cookies whose session ended, and how (the person's own sign-out, or a logout token from the
  // gateway): the next page says so once, so the person knows why they are no longer signed in.
  const ended = new Map<string, 'signed-out' | 'back-channel'>();
  // The gateway's signing keys, fetched (and refetched for an unknown kid) from its JWKS.
  const gatewayKeys = createRemoteJWKSet(new URL('/.well-known/jwks.json', options.gatewayUrl));
  // Security Event Tokens pushed by the gateway (RFC 8935), at {basePath}/security-events: demoBffEvents.ts.
  const securityEvents = createEventReceiver(options.gatewayUrl);

  /** The signed-in state of a platform for this browser: its session, "signed out by the gateway", or none. */
  function sessionState(req: http.IncomingMessage, platform: DemoBffPlatform): { session: BffSession | null; ended: 'signed-out' | 'back-channel' | undefined; cookie: string | undefined } {
    const cookie = readCookie(req.headers.cookie, sessionCookieName(platform));
    const session = cookie ? sessions.get(cookie) : undefined;
    return { session: session?.platformKey === platform.platformKey ? session : null, ended: cookie === undefined ? undefined : ended.get(cookie), cookie };
  }

  function statusHtml(req: http.IncomingMessage, platform: DemoBffPlatform, clearEnded: string[]): string {
    const { session, ended: how, cookie } = sessionState(req, platform);
    if (session) {
      return `<p class="status" id="status-${escapeHtml(platform.platformKey)}">Signed in as ${personHtml(session)} to ${escapeHtml(platform.name)}
 (gateway session <code class="gateway-session">${escapeHtml(session.gatewaySessionId)}</code>).</p>
<form method="post" action="${escapeHtml(platform.basePath ?? '')}/logout"><button type="submit" class="button" id="sign-out-${escapeHtml(platform.platformKey)}">Sign out of ${escapeHtml(platform.name)}</button></form>`;
    }
    if (how && cookie) {
      // Said once: the cookie is cleared with this page.
      ended.delete(cookie);
      clearEnded.push(`${sessionCookieName(platform)}=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax`);
      const why = how === 'back-channel' ? ': the gateway session ended (back-channel logout).' : '.';
      return `<p class="status" id="status-${escapeHtml(platform.platformKey)}">You were signed out of ${escapeHtml(platform.name)}${why}</p>`;
    }
    return '';
  }

  /**
   * POST {basePath}/backchannel-logout (OpenID Connect Back-Channel Logout 1.0 §2.6-§2.8):
   * verify the logout token, end this platform's sessions of its `sid`, answer 200; a token
   * that fails any check is 400 with an OAuth-style error. Idempotent: a repeated token (the
   * gateway delivers at least once) finds nothing left to end and still answers 200.
   */
  async function handleBackchannelLogout(req: http.IncomingMessage, res: http.ServerResponse, platform: DemoBffPlatform): Promise<void> {
    const answer = (status: number, body?: object) => {
      res.writeHead(status, { 'Cache-Control': 'no-store', ...(body ? { 'Content-Type': 'application/json' } : {}) });
      res.end(body ? JSON.stringify(body) : undefined);
    };
    if (req.method !== 'POST') {
      res.setHeader('Allow', 'POST');
      return answer(405);
    }
    const form = new URLSearchParams(await readBody(req, 16 * 1024).catch(() => ''));
    const logoutToken = form.get('logout_token');
    if (!logoutToken) return answer(400, { error: 'invalid_request', error_description: 'logout_token is required' });
    let sid: string;
    try {
      // Signature (the gateway's JWKS, ES256), issuer, audience (this platform's client id),
      // explicit type, and a recent iat/exp.
      const { payload } = await jwtVerify(logoutToken, gatewayKeys, {
        issuer: options.gatewayUrl,
        audience: platform.clientId,
        typ: 'logout+jwt',
        algorithms: ['ES256'],
        maxTokenAge: '5 minutes',
      });
      // §2.6: the back-channel logout event must be there, a nonce must not; the gateway always sends sid.
      const events = payload.events as Record<string, unknown> | undefined;
      if (!events || typeof events[BACKCHANNEL_LOGOUT_EVENT] !== 'object' || events[BACKCHANNEL_LOGOUT_EVENT] === null) throw new Error('no back-channel logout event');
      if ('nonce' in payload) throw new Error('a logout token carries no nonce');
      if (typeof payload.sid !== 'string' || payload.sid === '') throw new Error('no sid');
      sid = payload.sid;
      // A stricter BFF also remembers each jti until exp and refuses a replay; ending sessions
      // twice is harmless here, so this one does not.
    } catch (error) {
      return answer(400, { error: 'invalid_request', error_description: `the logout token is not valid: ${(error as Error).message}` });
    }
    for (const [cookie, session] of sessions) {
      if (session.platformKey === platform.platformKey && session.gatewaySessionId === sid) {
        sessions.delete(cookie);
        ended.set(cookie, 'back-channel');
      }
    }
    return answer(200);
  }

  /**
   * POST {basePath}/account/confirm, "Confirm it's you" before something sensitive: the gateway's
   * step-up (POST /v1/auth/step-up with the platform credential) answers a start URL that asks for
   * a sign-in at most a minute old with a second factor, which only this session's person may
   * complete; the browser goes there, with a fresh handoff challenge as for any login. The login
   * ends at the callback like any other, back on /account, whose page then checks `authentication`.
   */
  async function confirmItsYou(req: http.IncomingMessage, res: http.ServerResponse, platform: DemoBffPlatform): Promise<void> {
    // Posted from this BFF's own account page only, as its sign-out is (see handleSignOut).
    if (req.headers.origin !== new URL(selfUrl).origin && req.headers['sec-fetch-site'] !== 'same-origin') {
      res.writeHead(403, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' });
      return void res.end('Confirm from this site\'s own page.');
    }
    const basePath = platform.basePath ?? '';
    const { session } = sessionState(req, platform);
    if (!session) {
      res.writeHead(303, { Location: `${basePath}/login?returnTo=${encodeURIComponent(`${basePath}/account`)}`, 'Cache-Control': 'no-store' });
      return void res.end();
    }
    const stepUp = await requestStepUp(options.gatewayUrl, options.gatewayCookieName ?? 'gw_session', session.platformCredential, new URL(`${basePath}/account`, selfUrl).href);
    if ('problem' in stepUp) {
      res.writeHead(502, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' });
      return void res.end(page('Could not confirm', `<h1>Could not ask the gateway to confirm it's you</h1><p>${escapeHtml(stepUp.problem)}</p><p><a href="${escapeHtml(basePath)}/account">Back</a></p>`));
    }
    res.writeHead(303, {
      Location: stepUp.url,
      'Cache-Control': 'no-store',
      'Set-Cookie': `${VERIFIER_COOKIE}=${stepUp.verifier}; Path=${basePath}/auth/callback; Max-Age=600; HttpOnly; SameSite=Lax`,
    });
    res.end();
  }

  /**
   * POST {basePath}/logout: the person's "Sign out". Posted from this BFF's own pages only (a
   * cross-site form must not sign anyone out): the Origin, or the browser's Sec-Fetch-Site when
   * the no-referrer policy of these pages makes the Origin `null`. Then a sign-out token from the
   * gateway, server to server with the platform credential of this session (the proof that the
   * platform asks, OpenID RP-Initiated Logout 1.0 §2), this BFF's own session ends, and the
   * browser goes to the gateway's GET /v1/auth/logout with the token: the gateway ends its
   * session and the provider's, then sends the browser back to {basePath}/welcome. Without a token
   * (the gateway unreachable, the session already over) the gateway asks the person instead.
   */
  async function handleSignOut(req: http.IncomingMessage, res: http.ServerResponse, platform: DemoBffPlatform): Promise<void> {
    if (req.method !== 'POST') {
      res.writeHead(405, { Allow: 'POST', 'Cache-Control': 'no-store' });
      res.end();
      return;
    }
    const origin = req.headers.origin;
    if (origin !== new URL(selfUrl).origin && req.headers['sec-fetch-site'] !== 'same-origin') {
      res.writeHead(403, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' });
      res.end('Sign out from this site\'s own page.');
      return;
    }
    const basePath = platform.basePath ?? '';
    const { session, cookie } = sessionState(req, platform);
    if (!session || !cookie) {
      res.writeHead(303, { Location: `${basePath}/welcome`, 'Cache-Control': 'no-store' });
      res.end();
      return;
    }
    const signOut = new URL('/v1/auth/logout', options.gatewayUrl);
    signOut.searchParams.set('platformKey', platform.platformKey);
    signOut.searchParams.set('returnTo', new URL(`${basePath}/welcome`, selfUrl).href);
    const issued = await fetch(new URL('/v1/auth/logout/token', options.gatewayUrl), {
      method: 'POST',
      headers: { Cookie: `${options.gatewayCookieName ?? 'gw_session'}=${session.platformCredential}`, Accept: 'application/json' },
    }).catch(() => null);
    const token = issued?.ok ? ((await issued.json()) as { signOutToken?: string }).signOutToken : undefined;
    if (token) signOut.searchParams.set('signOutToken', token);
    sessions.delete(cookie);
    // The cookie stays until the welcome page the gateway returns to has said "You were signed
    // out" (it then clears it); it names no session any more.
    ended.set(cookie, 'signed-out');
    res.writeHead(303, { Location: signOut.href, 'Cache-Control': 'no-store' });
    res.end();
  }

  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', selfUrl);
    const send = (status: number, html: string, cookies: string[] = []) => {
      res.writeHead(status, {
        'Content-Type': 'text/html; charset=utf-8',
        'Cache-Control': 'no-store',
        'Referrer-Policy': 'no-referrer',
        ...(cookies.length > 0 ? { 'Set-Cookie': cookies } : {}),
      });
      res.end(html);
    };
    if (url.pathname === '/') {
      const cookies: string[] = [];
      const buttons = platforms
        .map((platform) => `${statusHtml(req, platform, cookies)}<p><a class="button" id="sign-in${platform.basePath ? `-${escapeHtml(platform.basePath.slice(1))}` : ''}" href="${escapeHtml(platform.basePath ?? '')}/login">Sign in to ${escapeHtml(platform.name)}</a></p>${securityEvents.html(platform.platformKey)}`)
        .join('\n');
      return send(200, page('Demo platform', `<h1>Demo platform</h1>
<p>This is an example platform back end. Signing in goes through the authentication gateway and its identity provider.</p>
${buttons}`), cookies);
    }
    const platform = byLongestPrefix.find((candidate) => url.pathname.startsWith(`${candidate.basePath ?? ''}/`));
    const path = platform ? url.pathname.slice((platform.basePath ?? '').length) : url.pathname;
    if (platform && path === '/backchannel-logout') return handleBackchannelLogout(req, res, platform);
    if (platform && path === '/security-events') return securityEvents.handle(req, res, platform);
    if (platform && path === '/logout') return handleSignOut(req, res, platform);
    if (platform && path === '/login') {
      // Where to go after sign-in: ?returnTo=/a/page of this BFF, else its welcome page.
      const basePath = platform.basePath ?? '';
      const returnPath = localReturnPath(url.searchParams.get('returnTo'), selfUrl, basePath, `${basePath}/welcome`);
      // A fresh secret per login, kept in this BFF's own HttpOnly cookie (sent only to its callback).
      const verifier = randomBytes(32).toString('base64url');
      const start = new URL('/v1/auth/start', options.gatewayUrl);
      start.searchParams.set('platformKey', platform.platformKey);
      // The gateway keeps returnTo through the login and hands it back with the exchange.
      start.searchParams.set('returnTo', new URL(returnPath, selfUrl).href);
      start.searchParams.set('handoffChallenge', createHash('sha256').update(verifier).digest('base64url'));
      res.writeHead(302, {
        Location: start.href,
        'Cache-Control': 'no-store',
        'Set-Cookie': `${VERIFIER_COOKIE}=${verifier}; Path=${platform.basePath ?? ''}/auth/callback; Max-Age=600; HttpOnly; SameSite=Lax`,
      });
      return res.end();
    }
    if (platform && path === '/auth/callback') {
      const code = url.searchParams.get('code');
      if (!code) return send(400, page('No code', '<h1>No handoff code</h1><p><a href="/">Start again</a></p>'));
      const handoffVerifier = readCookie(req.headers.cookie, VERIFIER_COOKIE);
      const clearVerifier = `${VERIFIER_COOKIE}=; Path=${platform.basePath ?? ''}/auth/callback; Max-Age=0; HttpOnly; SameSite=Lax`;
      // No verifier: this browser did not start this login here (its cookie expired, or someone
      // sent the person a callback link of his own login: login CSRF). Never exchange such a code.
      if (!handoffVerifier) {
        return send(400, page('Sign in again', `<h1>This sign-in did not start here</h1>
<p id="no-verifier">This browser holds no record of starting this sign-in, so it was not completed. It may have taken too long, or you may have opened a sign-in link someone else sent you.</p>
<p><a class="button" href="${escapeHtml(platform.basePath ?? '')}/login">Sign in again</a></p>`));
      }
      const response = await fetch(new URL('/v1/auth/exchange', options.gatewayUrl), {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          Authorization: `Basic ${Buffer.from(`${encodeURIComponent(platform.clientId)}:${encodeURIComponent(platform.clientSecret)}`).toString('base64')}`,
        },
        body: JSON.stringify({ code, handoffVerifier }),
      }).catch(() => null);
      if (!response) return send(502, page('Gateway unreachable', '<h1>The gateway could not be reached</h1>'), [clearVerifier]);
      const body = (await response.json()) as Record<string, unknown> & { session?: { id?: string; gatewayToken?: string }; user?: { id: string; sub: string } };
      if (!response.ok) {
        // The gateway's problem+json names what happened; the person gets a way to start again.
        const problem = `${String(body.title ?? 'Refused')}: ${String(body.detail ?? '')}`;
        return send(response.status, page('Sign-in failed', `<h1>Sign-in failed</h1><p>${escapeHtml(problem)} (<code>${escapeHtml(String(body.code ?? response.status))}</code>)</p>
<p><a class="button" href="${escapeHtml(platform.basePath ?? '')}/login">Start again</a></p>`), [clearVerifier]);
      }
      // Who signed in: the gateway's API, called with the platform credential.
      const person = await fetchPerson(options.gatewayUrl, options.gatewayCookieName ?? 'gw_session', body.session!.gatewayToken!);
      // The BFF's own session: a random cookie for the browser; the platform credential and the
      // gateway session id (what a logout token names in `sid`) stay on the server.
      const cookie = randomBytes(32).toString('base64url');
      const onboarding = (body.onboarding as { status?: string } | undefined)?.status ?? null;
      const permissions = Array.isArray(body.permissions) ? body.permissions.map(String) : [];
      sessions.set(cookie, { platformKey: platform.platformKey, gatewaySessionId: body.session!.id!, platformCredential: body.session!.gatewayToken!, user: body.user!, person, onboarding, permissions });
      signIns.set(cookie, body.authentication as SignIn);
      const sessionCookie = `${sessionCookieName(platform)}=${cookie}; Path=/; HttpOnly; SameSite=Lax`;
      // Redirect (303) to the page the person wanted, checked again as a path of this BFF: the
      // callback URL with its used code leaves the address bar, so a reload shows that page.
      const returnTo = typeof body.returnTo === 'string' && URL.canParse(body.returnTo) ? new URL(body.returnTo) : null;
      const sameOrigin = returnTo !== null && returnTo.origin === new URL(selfUrl).origin;
      const basePath = platform.basePath ?? '';
      const next = localReturnPath(sameOrigin ? `${returnTo.pathname}${returnTo.search}` : null, selfUrl, basePath, `${basePath}/welcome`);
      res.writeHead(303, { Location: next, 'Cache-Control': 'no-store', 'Set-Cookie': [clearVerifier, sessionCookie] });
      return res.end();
    }
    if (platform && path === '/account') {
      // A page that needs a signed-in person: without a session, sign in and come back here.
      const { session } = sessionState(req, platform);
      if (!session) {
        const login = `${platform.basePath ?? ''}/login?returnTo=${encodeURIComponent(`${platform.basePath ?? ''}/account`)}`;
        res.writeHead(303, { Location: login, 'Cache-Control': 'no-store' });
        return res.end();
      }
      return send(200, page('Your account', `<h1>Your account at ${escapeHtml(platform.name)}</h1><p id="person">${personHtml(session)}</p>${accessHtml(session)}${statusHtml(req, platform, [])}
${confirmHtml(signIns.get(sessionState(req, platform).cookie!), platform.basePath ?? '')}<p><a href="/">Home</a></p>`));
    }
    if (platform && path === '/account/confirm' && req.method === 'POST') return confirmItsYou(req, res, platform);
    if (platform && path === '/welcome') {
      const cookies: string[] = [];
      // Read before statusHtml, which says "You were signed out" once and forgets it.
      const { session, ended: how } = sessionState(req, platform);
      const status = statusHtml(req, platform, cookies) || `<p class="status" id="status-${escapeHtml(platform.platformKey)}">Not signed in to ${escapeHtml(platform.name)}.</p>`;
      const title = session ? 'Welcome' : how ? 'Signed out' : 'Welcome';
      const heading = session ? `<h1 id="signed-in">Welcome, ${escapeHtml(session.person?.displayName ?? session.user.sub)}</h1>` : `<h1>${title}</h1>`;
      const account = session
        ? `${accessHtml(session)}<p><a href="${escapeHtml(platform.basePath ?? '')}/account">Your account</a></p>`
        : `<p><a class="button" href="${escapeHtml(platform.basePath ?? '')}/login">Sign ${how ? 'in again' : 'in'}</a></p>`;
      return send(200, page(title, `${heading}${status}${account}<p><a href="/">Home</a></p>`), cookies);
    }
    return send(404, page('Not found', '<h1>Not found</h1>'));
  });
  // Loopback unless HOST widens it: the demo credentials are published. Browsers and Node's fetch
  // try both families for localhost, so 127.0.0.1 serves http://localhost (as the dev IdP does).
  await new Promise<void>((resolve) => server.listen(options.port, options.host ?? '127.0.0.1', resolve));
  selfUrl ||= `http://localhost:${(server.address() as AddressInfo).port}`;
  return {
    url: selfUrl,
    sessionCount: () => sessions.size,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}
