// The account center's server. It does three things:
//  1. serves the built browser app (account-center/dist), with a strict Content-Security-Policy;
//  2. serves the run-time configuration at /config.json (the same build runs everywhere);
//  3. is the back end (BFF) of the account center's own platform, on the platform kit
//     (packages/platform-kit): /auth/login starts a login at the gateway (its own verifier and
//     correlation value, so logins in two tabs both finish), /auth/callback exchanges the
//     handoff code with the platform's own credentials and sends the browser on to returnTo.
//     The gateway's session cookie set by the gateway's callback then authenticates the app's
//     calls; the server keeps no session (the exchange's platform credential is dropped).
import { createServer, type Server, type ServerResponse } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { createPlatformKit, escapeHtml, type SignInFailure } from '../../packages/platform-kit/src/index.ts';

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
  const page = (title: string, body: string) =>
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)} · Account center</title></head><body><main><h1>${escapeHtml(title)}</h1>${body}</main></body></html>`;
  const kit = createPlatformKit({
    gatewayUrl: gatewayBase,
    platformKey: options.platformKey,
    clientId: options.clientId,
    clientSecret: options.clientSecret,
    publicUrl,
    // The login cookies are sealed under a key derived from the platform's own secret (HKDF with
    // the kit's label): shared by every instance already, never sent anywhere but the gateway.
    cookieSecret: options.clientSecret,
    sessions: false,
    defaultReturnTo: '/profile',
    cookiePrefix: 'ac',
    ...(options.secureCookies !== undefined ? { secureCookies: options.secureCookies } : {}),
    renderFailure: (failure: SignInFailure) =>
      page(failure.reason === 'unreachable' ? 'The gateway could not be reached' : 'Sign-in did not complete', `<p>${escapeHtml(failure.message)}</p><p><a href="${escapeHtml(failure.startAgain)}">${escapeHtml(failure.label)}</a></p>`),
  });
  // The kit's pages and redirects get the account center's security headers too.
  const withHeaders = (res: ServerResponse) => {
    for (const [name, value] of Object.entries({ 'Content-Security-Policy': contentSecurityPolicy, 'X-Content-Type-Options': 'nosniff', 'Referrer-Policy': 'no-referrer', 'X-Frame-Options': 'DENY' })) res.setHeader(name, value);
    return res;
  };

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
      if (url.pathname === kit.paths.signIn) return kit.signIn(req, withHeaders(res));
      if (url.pathname === kit.paths.callback) return kit.callback(req, withHeaders(res));
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
