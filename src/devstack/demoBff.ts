import http from 'node:http';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import express, { type Request, type Response } from 'express';
import { createPlatformKit, MemorySessionStore, type PlatformKit, type Session } from '../../packages/platform-kit/src/index.ts';
import { platformKitRouter } from '../../packages/platform-kit/src/express.ts';
import { confirmHtml, CONFIRM_MAX_AGE_SECONDS } from './demoBffConfirm.ts';
import { accessHtml, escapeHtml, failureHtml, page, personHtml, type Person } from './demoBffPages.ts';
import { createEventReceiver } from './demoBffEvents.ts';

/**
 * A minimal example platform back end (BFF), served by the demo stack so a person can click
 * through a whole login, built on the platform kit (packages/platform-kit), as a platform team's
 * would be: the kit's routes sign in (one handoff verifier and correlation value per login, so
 * two tabs both finish), exchange the code with HTTP Basic, keep the platform credential in a
 * server-side session, receive back-channel logout (the gateway's logout token, verified against
 * its JWKS, ends the sessions of its `sid`) and sign out in one step (a sign-out token, then the
 * gateway's logout page). What is left here is the BFF's own pages: who signed in (GET /v1/me
 * at sign-in, with the platform credential), its account page with "Confirm it's you" (a
 * step-up), and "You were signed out" once a session ended.
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

interface Site {
  platform: DemoBffPlatform;
  base: string;
  kit: PlatformKit;
  store: MemorySessionStore;
}

export async function startDemoBff(options: DemoBffOptions): Promise<DemoBff> {
  const platforms: DemoBffPlatform[] = options.platforms ?? [
    { platformKey: options.platformKey!, name: 'Demo platform', clientId: options.clientId!, clientSecret: options.clientSecret!, basePath: '' },
  ];
  // Loopback unless HOST widens it: the demo credentials are published. Browsers and Node's fetch
  // try both families for localhost, so 127.0.0.1 serves http://localhost (as the dev IdP does).
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(options.port, options.host ?? '127.0.0.1', resolve));
  const selfUrl = options.publicUrl ?? `http://localhost:${(server.address() as AddressInfo).port}`;
  // Sessions whose end the next page tells, once: the person's own sign-out, or a logout token.
  const ended = new Map<string, 'signed-out' | 'back-channel'>();
  // Seals the login cookies: per process (a restart drops the logins in flight, as it drops the sessions).
  const cookieSecret = randomBytes(32).toString('base64url');
  const sites: Site[] = platforms.map((platform) => {
    const base = platform.basePath ?? '';
    const store = new MemorySessionStore();
    const kit = createPlatformKit({
      gatewayUrl: options.gatewayUrl,
      platformKey: platform.platformKey,
      clientId: platform.clientId,
      clientSecret: platform.clientSecret,
      publicUrl: selfUrl,
      cookieSecret,
      sessions: store,
      paths: { signIn: `${base}/login`, callback: `${base}/auth/callback`, backchannelLogout: `${base}/backchannel-logout`, signOut: `${base}/logout` },
      defaultReturnTo: `${base}/welcome`,
      cookiePrefix: `demo_${platform.platformKey}`,
      ...(options.gatewayCookieName ? { gatewayCookieName: options.gatewayCookieName } : {}),
      // Who signed in, from the gateway's API with the platform credential (null when it does not answer).
      onSignIn: async (_exchanged, client) => {
        const me = await client.GET('/v1/me').catch(() => null);
        const user = me?.data?.user;
        return { person: user ? { displayName: user.displayName ?? null, email: user.email ?? null, pictureUrl: user.pictureUrl ?? null } : null };
      },
      onSessionsEnded: (ids, why) => ids.forEach((id) => ended.set(id, why)),
      renderFailure: failureHtml,
    });
    return { platform, base, kit, store };
  });

  /** This browser's session of a site, and whether one ended since the last page said so. */
  async function stateOf(req: Request, site: Site): Promise<{ session: Session | undefined; how: 'signed-out' | 'back-channel' | undefined; cookie: string | undefined }> {
    const cookie = site.kit.sessionId(req);
    return { session: await site.kit.session(req), how: cookie === undefined ? undefined : ended.get(cookie), cookie };
  }

  async function statusHtml(req: Request, res: Response, site: Site): Promise<string> {
    const { session, how, cookie } = await stateOf(req, site);
    const key = escapeHtml(site.platform.platformKey);
    if (session) {
      return `<p class="status" id="status-${key}">Signed in as ${personHtml(session)} to ${escapeHtml(site.platform.name)}
 (gateway session <code class="gateway-session">${escapeHtml(session.gatewaySessionId)}</code>).</p>${supportHtml(session, key)}
<form method="post" action="${escapeHtml(site.kit.paths.signOut)}"><button type="submit" class="button" id="sign-out-${key}">Sign out of ${escapeHtml(site.platform.name)}</button></form>`;
    }
    if (!how || !cookie) return '';
    // Said once: the cookie, which names no session any more, is cleared with this page.
    ended.delete(cookie);
    site.kit.clearSessionCookie(res);
    const why = how === 'back-channel' ? ': the gateway session ended (back-channel logout).' : '.';
    return `<p class="status" id="status-${key}">You were signed out of ${escapeHtml(site.platform.name)}${why}</p>`;
  }

  /** A support session (issue 35): who acts for the person, until when (the exchange's `act` and `supportAccess`). */
  const supportHtml = (session: Session, key: string) =>
    session.support
      ? `<p class="support-session" id="support-${key}" role="status">support session by ${escapeHtml(session.support.act.name ?? session.support.act.sub)} until ${escapeHtml(session.support.endsAt)}</p>`
      : '';

  const send = (res: Response, status: number, html: string) => {
    res.status(status).set({ 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer' }).send(html);
  };

  const app = express();
  app.disable('x-powered-by');
  // Security Event Tokens pushed by the gateway (RFC 8935) at {base}/security-events: demoBffEvents.ts.
  const securityEvents = createEventReceiver(options.gatewayUrl, sites.map((site) => ({ platformKey: site.platform.platformKey, clientId: site.platform.clientId, base: site.base })));
  app.get('/', async (req, res) => {
    const parts: string[] = [];
    for (const site of sites) {
      const id = site.base ? `sign-in-${escapeHtml(site.base.slice(1))}` : 'sign-in';
      parts.push(`${await statusHtml(req, res, site)}<p><a class="button" id="${id}" href="${escapeHtml(site.kit.paths.signIn)}">Sign in to ${escapeHtml(site.platform.name)}</a></p>${securityEvents.html(site.platform.platformKey)}`);
    }
    send(res, 200, page('Demo platform', `<h1>Demo platform</h1>${parts.join('\n')}`));
  });
  for (const site of sites) {
    app.use(platformKitRouter(site.kit));
    // A page that needs a signed-in person: without a session, sign in and come back here.
    app.get(`${site.base}/account`, async (req, res) => {
      const session = await site.kit.session(req);
      if (!session) return void res.redirect(303, site.kit.signInHref(`${site.base}/account`));
      send(res, 200, page('Your account', `<h1>Your account at ${escapeHtml(site.platform.name)}</h1><p id="person">${personHtml(session)}</p>${accessHtml(session)}${await statusHtml(req, res, site)}
${confirmHtml(session.authentication, site.base)}<p><a href="/">Home</a></p>`));
    });
    // "Confirm it's you", posted from the account page only: a step-up of this session's person
    // (a sign-in at most a minute old with a second factor), which ends at the callback like any login.
    app.post(`${site.base}/account/confirm`, async (req, res) => {
      if (req.headers.origin !== new URL(selfUrl).origin && req.headers['sec-fetch-site'] !== 'same-origin') {
        return void res.status(403).type('text/plain').set('Cache-Control', 'no-store').send("Confirm from this site's own page.");
      }
      const session = await site.kit.session(req);
      if (!session) return void res.redirect(303, site.kit.signInHref(`${site.base}/account`));
      const refused = await site.kit.stepUp(req, res, session, { maxAge: CONFIRM_MAX_AGE_SECONDS, requireSecondFactor: true, returnTo: `${site.base}/account` });
      if (refused) send(res, 502, page('Could not confirm', `<h1>Could not ask the gateway to confirm it's you</h1><p>${escapeHtml(refused.problem)}</p><p><a href="${escapeHtml(site.base)}/account">Back</a></p>`));
    });
    app.get(`${site.base}/welcome`, async (req, res) => {
      // Read before statusHtml, which says "You were signed out" once and forgets it.
      const { session, how } = await stateOf(req, site);
      const status = (await statusHtml(req, res, site)) || `<p class="status" id="status-${escapeHtml(site.platform.platformKey)}">Not signed in to ${escapeHtml(site.platform.name)}.</p>`;
      const title = !session && how ? 'Signed out' : 'Welcome';
      const heading = session ? `<h1 id="signed-in">Welcome, ${escapeHtml((session.data.person as Person | null)?.displayName ?? session.user.sub)}</h1>` : `<h1>${title}</h1>`;
      const account = session
        ? `${accessHtml(session)}<p><a href="${escapeHtml(site.base)}/account">Your account</a></p>`
        : `<p><a class="button" href="${escapeHtml(site.kit.paths.signIn)}">Sign ${how ? 'in again' : 'in'}</a></p>`;
      send(res, 200, page(title, `${heading}${status}${account}<p><a href="/">Home</a></p>`));
    });
  }
  // More routes of the example BFF mount here, one line each (a router of their own file,
  // given what it needs from `options` and `sites`), before the 404 below.
  app.use(securityEvents.router);
  app.use((_req, res) => send(res, 404, page('Not found', '<h1>Not found</h1>')));
  server.on('request', app);
  return {
    url: selfUrl,
    sessionCount: () => sites.reduce((count, site) => count + site.store.size, 0),
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}
