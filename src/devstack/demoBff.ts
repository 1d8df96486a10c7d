import http from 'node:http';
import { createHash, randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';

/**
 * A minimal example platform back end (BFF), served by the demo stack so a
 * person can click through a whole login. It does what a real BFF must:
 * send the browser to /v1/auth/start, receive the handoff code at its callback,
 * exchange it server to server with HTTP Basic, and keep the gatewayToken on the
 * server (here: it shows only that one was received).
 *
 * It also binds each login to itself with a handoff challenge (optional for
 * platforms, the RFC 7636 pattern): a secret per login in an HttpOnly cookie of
 * its own, its SHA-256 sent at start, the secret sent with the exchange. A handoff
 * code injected into its callback from someone else's login is then refused.
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
}

export interface DemoBff {
  url: string;
  close(): Promise<void>;
}

const VERIFIER_COOKIE = 'demo_handoff_verifier';

function readCookie(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return value.join('=');
  }
  return undefined;
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:44rem;margin:3rem auto;padding:0 1rem;color:#222}
a.button{display:inline-block;padding:.6rem 1.2rem;background:#2457d6;color:#fff;border-radius:6px;text-decoration:none}
pre{background:#f4f4f4;padding:1rem;overflow:auto}</style></head><body>${body}</body></html>`;
}

export async function startDemoBff(options: DemoBffOptions): Promise<DemoBff> {
  let selfUrl = options.publicUrl ?? '';
  const platforms: DemoBffPlatform[] = options.platforms ?? [
    { platformKey: options.platformKey!, name: 'Demo platform', clientId: options.clientId!, clientSecret: options.clientSecret!, basePath: '' },
  ];
  const byLongestPrefix = [...platforms].sort((a, b) => (b.basePath ?? '').length - (a.basePath ?? '').length);
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', selfUrl);
    const send = (status: number, html: string) => {
      res.writeHead(status, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer' });
      res.end(html);
    };
    if (url.pathname === '/') {
      const buttons = platforms
        .map((platform) => `<p><a class="button" id="sign-in${platform.basePath ? `-${escapeHtml(platform.basePath.slice(1))}` : ''}" href="${escapeHtml(platform.basePath ?? '')}/login">Sign in to ${escapeHtml(platform.name)}</a></p>`)
        .join('\n');
      return send(200, page('Demo platform', `<h1>Demo platform</h1>
<p>This is an example platform back end. Signing in goes through the authentication gateway and its identity provider.</p>
${buttons}`));
    }
    const platform = byLongestPrefix.find((candidate) => url.pathname.startsWith(`${candidate.basePath ?? ''}/`));
    const path = platform ? url.pathname.slice((platform.basePath ?? '').length) : url.pathname;
    if (platform && path === '/login') {
      // A fresh secret per login, kept in this BFF's own HttpOnly cookie (sent only to its callback).
      const verifier = randomBytes(32).toString('base64url');
      const start = new URL('/v1/auth/start', options.gatewayUrl);
      start.searchParams.set('platformKey', platform.platformKey);
      start.searchParams.set('returnTo', new URL(`${platform.basePath ?? ''}/welcome`, selfUrl).href);
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
      res.setHeader('Set-Cookie', `${VERIFIER_COOKIE}=; Path=${platform.basePath ?? ''}/auth/callback; Max-Age=0; HttpOnly; SameSite=Lax`);
      const response = await fetch(new URL('/v1/auth/exchange', options.gatewayUrl), {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          Authorization: `Basic ${Buffer.from(`${encodeURIComponent(platform.clientId)}:${encodeURIComponent(platform.clientSecret)}`).toString('base64')}`,
        },
        body: JSON.stringify({ code, ...(handoffVerifier ? { handoffVerifier } : {}) }),
      }).catch(() => null);
      if (!response) return send(502, page('Gateway unreachable', '<h1>The gateway could not be reached</h1>'));
      const body = (await response.json()) as Record<string, unknown> & { session?: { gatewayToken?: string } };
      if (!response.ok) {
        return send(response.status, page('Sign-in failed', `<h1>Sign-in failed</h1><pre>${escapeHtml(JSON.stringify(body, null, 2))}</pre><p><a href="/">Start again</a></p>`));
      }
      // A real BFF stores gatewayToken in its own server-side session; never show it to the browser.
      const shown = { ...body, session: { ...body.session, gatewayToken: '[kept on the server]' } };
      return send(200, page('Signed in', `<h1 id="signed-in">Signed in to ${escapeHtml(platform.name)}</h1>
<p>The platform back end exchanged the handoff code for this session description:</p>
<pre id="session">${escapeHtml(JSON.stringify(shown, null, 2))}</pre><p><a href="/">Back</a></p>`));
    }
    if (platform && path === '/welcome') return send(200, page('Welcome', '<h1>Welcome back</h1><p><a href="/">Home</a></p>'));
    return send(404, page('Not found', '<h1>Not found</h1>'));
  });
  // Both loopback families: browsers may resolve localhost to ::1 or 127.0.0.1.
  await new Promise<void>((resolve) => server.listen(options.port, resolve));
  selfUrl ||= `http://localhost:${(server.address() as AddressInfo).port}`;
  return {
    url: selfUrl,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}
