// The account center's server. It does three things:
//  1. serves the built browser app (account-center/dist), with a strict Content-Security-Policy;
//  2. serves the run-time configuration at /config.json (the same build runs everywhere);
//  3. is the back end (BFF) of the account center's own platform: /auth/login starts a login
//     at the gateway, /auth/callback exchanges the handoff code with the platform's own
//     credentials (bound to this login by a handoff challenge) and sends the browser on to
//     returnTo. The gateway's session cookie set by the callback then authenticates the
//     app's calls; the server keeps nothing (the exchange's platform credential is dropped).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createHash, randomBytes } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';

export interface AccountCenterServerOptions {
  port: number;
  /** default 0.0.0.0 */
  host?: string;
  /** How browsers reach the account center (its platform's callback and return root). */
  publicUrl: string;
  /** The gateway API including /v1, as browsers reach it (AUTH_BACKEND_URL). */
  authBackendUrl: string;
  /** The account center's own platform, and the default of /onboarding (AUTH_PLATFORM_KEY). */
  platformKey: string;
  clientId: string;
  clientSecret: string;
  /** The built app (account-center/dist). */
  distDir: string;
  /** More origins pictures and uploads may come from or go to (an avatar bucket or CDN). */
  extraOrigins?: readonly string[];
  /** Mark the login cookie Secure (https deployments). */
  secureCookies?: boolean;
}

export interface AccountCenterServer {
  url: string;
  close(): Promise<void>;
}

const VERIFIER_COOKIE = 'ac_handoff_verifier';
const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.map': 'application/json; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.woff2': 'font/woff2',
};

export async function startAccountCenterServer(options: AccountCenterServerOptions): Promise<AccountCenterServer> {
  const publicUrl = options.publicUrl.replace(/\/+$/, '');
  const gatewayBase = options.authBackendUrl.replace(/\/+$/, '').replace(/\/v1$/, '');
  const gatewayOrigin = new URL(gatewayBase).origin;
  const origins = [gatewayOrigin, ...(options.extraOrigins ?? [])].join(' ');
  // No inline script or style anywhere in the app; pictures may be previews (blob:) or avatars.
  const contentSecurityPolicy = [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    `img-src 'self' data: blob: ${origins}`,
    `connect-src 'self' ${origins}`,
    "font-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
  const configJson = JSON.stringify({ authBackendUrl: options.authBackendUrl, authPlatformKey: options.platformKey });
  const indexHtml = await readFile(path.join(options.distDir, 'index.html'));
  const cookieAttributes = `Path=/auth/callback; HttpOnly; SameSite=Lax${options.secureCookies ? '; Secure' : ''}`;

  const send = (res: ServerResponse, status: number, body: string | Buffer, headers: Record<string, string>) => {
    res.writeHead(status, {
      'Content-Security-Policy': contentSecurityPolicy,
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
      'X-Frame-Options': 'DENY',
      ...headers,
    });
    res.end(body);
  };
  const redirect = (res: ServerResponse, location: string, extra: Record<string, string> = {}) =>
    send(res, 302, '', { Location: location, 'Cache-Control': 'no-store', ...extra });
  const page = (res: ServerResponse, status: number, title: string, body: string) =>
    send(res, status, `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)} · Account center</title></head><body><main><h1>${escapeHtml(title)}</h1>${body}</main></body></html>`, {
      'Content-Type': 'text/html; charset=utf-8',
      'Cache-Control': 'no-store',
    });

  async function login(url: URL, res: ServerResponse): Promise<void> {
    const returnTo = ownPath(url.searchParams.get('returnTo')) ?? '/profile';
    const verifier = randomBytes(32).toString('base64url');
    const start = new URL(`${gatewayBase}/v1/auth/start`);
    start.searchParams.set('platformKey', options.platformKey);
    start.searchParams.set('returnTo', `${publicUrl}${returnTo}`);
    start.searchParams.set('handoffChallenge', createHash('sha256').update(verifier).digest('base64url'));
    redirect(res, start.href, { 'Set-Cookie': `${VERIFIER_COOKIE}=${verifier}; Max-Age=600; ${cookieAttributes}` });
  }

  async function callback(url: URL, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const code = url.searchParams.get('code');
    const verifier = readCookie(req.headers.cookie, VERIFIER_COOKIE);
    const clear = { 'Set-Cookie': `${VERIFIER_COOKIE}=; Max-Age=0; ${cookieAttributes}` };
    const failed = (detail: string) =>
      page(res, 400, 'Sign-in did not complete', `<p>${escapeHtml(detail)}</p><p><a href="/auth/login?returnTo=%2Fprofile">Sign in again</a></p>`);
    if (!code) return failed('The sign-in link is incomplete.');
    // No verifier: this browser did not start this sign-in here (the cookie expired, or someone
    // sent the person the callback link of his own login: login CSRF). Never exchange such a code.
    if (!verifier) return failed('This browser holds no record of starting this sign-in, so it was not completed. It may have taken too long, or you may have opened a sign-in link someone else sent you.');
    let exchanged: Response;
    try {
      exchanged = await fetch(`${gatewayBase}/v1/auth/exchange`, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          Authorization: `Basic ${Buffer.from(`${encodeURIComponent(options.clientId)}:${encodeURIComponent(options.clientSecret)}`).toString('base64')}`,
        },
        body: JSON.stringify({ code, handoffVerifier: verifier }),
        signal: AbortSignal.timeout(5000),
      });
    } catch {
      res.setHeader('Set-Cookie', clear['Set-Cookie']);
      return page(res, 502, 'The gateway could not be reached', '<p>Try again in a moment.</p><p><a href="/auth/login?returnTo=%2Fprofile">Sign in again</a></p>');
    }
    res.setHeader('Set-Cookie', clear['Set-Cookie']);
    if (!exchanged.ok) return failed('This sign-in link has expired or was already used.');
    const body = (await exchanged.json()) as { returnTo?: unknown };
    // The gateway checked returnTo against this platform's allowed roots; check it is ours anyway.
    const target = typeof body.returnTo === 'string' && body.returnTo.startsWith(`${publicUrl}/`) ? body.returnTo : `${publicUrl}/profile`;
    redirect(res, new URL(target).href);
  }

  async function staticFile(url: URL, res: ServerResponse): Promise<boolean> {
    if (!url.pathname.startsWith('/assets/') && url.pathname !== '/favicon.ico') return false;
    const file = path.join(options.distDir, path.normalize(url.pathname));
    if (!file.startsWith(path.join(options.distDir, path.sep))) return false;
    try {
      if (!(await stat(file)).isFile()) return false;
    } catch {
      return false;
    }
    // Vite names assets by their content: they never change under the same name.
    send(res, 200, await readFile(file), {
      'Content-Type': CONTENT_TYPES[path.extname(file)] ?? 'application/octet-stream',
      'Cache-Control': 'public, max-age=31536000, immutable',
    });
    return true;
  }

  const server: Server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', publicUrl);
      if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, '', { Allow: 'GET, HEAD' });
      if (url.pathname === '/config.json') return send(res, 200, configJson, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' });
      if (url.pathname === '/auth/login') return login(url, res);
      if (url.pathname === '/auth/callback') return callback(url, req, res);
      if (await staticFile(url, res)) return;
      if (url.pathname.startsWith('/assets/')) return send(res, 404, 'Not found', { 'Content-Type': 'text/plain; charset=utf-8' });
      // Every other path is a page of the app (client-side routing).
      send(res, 200, indexHtml, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-cache' });
    })().catch(() => {
      if (!res.headersSent) send(res, 500, 'The account center failed to answer.', { 'Content-Type': 'text/plain; charset=utf-8' });
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '0.0.0.0', () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    url: publicUrl,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

/** A path of the account center (never another host: no "//", no backslash, no scheme). */
function ownPath(value: string | null): string | null {
  if (!value || !value.startsWith('/') || value.startsWith('//') || /[\\\s\u0000-\u001f]/.test(value)) return null;
  return value.length <= 2048 ? value : null;
}

function readCookie(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return value.join('=');
  }
  return undefined;
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
