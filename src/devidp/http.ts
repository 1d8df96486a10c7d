// Small HTTP helpers of the dev identity provider: body reading, replaying a consumed request
// into oidc-provider, HTML and JSON answers, and client_secret_basic authentication.

import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';

export const FORM_BODY_LIMIT = 16 * 1024;

/** Constant-time secret check: compare fixed-length digests so the length is not leaked either. */
export function secretMatches(expected: string, given: string): boolean {
  const a = createHash('sha256').update(expected, 'utf8').digest();
  const b = createHash('sha256').update(given, 'utf8').digest();
  return timingSafeEqual(a, b);
}

export async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string);
    size += buf.length;
    if (size > limit) throw new Error('request body too large');
    chunks.push(buf);
  }
  return Buffer.concat(chunks, size);
}

export function isFormPost(req: IncomingMessage): boolean {
  return (req.headers['content-type'] ?? '').toLowerCase().startsWith('application/x-www-form-urlencoded');
}

/**
 * A stand-in for an already-consumed request, carrying a (possibly rewritten) body, so that it can
 * still be handed to the provider's Koa app. Koa and oidc-provider read only the fields set here.
 */
export function replayRequest(original: IncomingMessage, body: Buffer): IncomingMessage {
  const replay = Readable.from([body], { objectMode: false });
  Object.assign(replay, {
    method: original.method,
    url: original.url,
    headers: { ...original.headers, 'content-length': String(body.length) },
    rawHeaders: original.rawHeaders,
    httpVersion: original.httpVersion,
    httpVersionMajor: original.httpVersionMajor,
    httpVersionMinor: original.httpVersionMinor,
    socket: original.socket,
    connection: original.socket,
  });
  return replay as unknown as IncomingMessage;
}

export function sendHtml(res: ServerResponse, status: number, html: string): void {
  res.statusCode = status;
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  // The login page must never be cached (it is per-transaction) nor framed (clickjacking).
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('X-Frame-Options', 'DENY');
  // No form-action directive: after the POST the browser is redirected to the client's
  // redirect_uri, and some browsers apply form-action to that redirect chain.
  res.setHeader('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'");
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.end(html);
}

export function sendJson(res: ServerResponse, status: number, body: object, extraHeaders: Record<string, string> = {}): void {
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Cache-Control', 'no-store');
  for (const [name, value] of Object.entries(extraHeaders)) res.setHeader(name, value);
  res.end(JSON.stringify(body));
}

export function redirect(res: ServerResponse, location: string): void {
  // 303 See Other: the follow-up request is a GET whatever the method was (RFC 9110 §15.4.4).
  res.statusCode = 303;
  res.setHeader('Location', location);
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Content-Length', '0');
  res.end();
}

export function describeError(err: unknown): { error: string; description?: string } {
  if (err && typeof err === 'object') {
    const e = err as { error?: unknown; error_description?: unknown; name?: unknown; message?: unknown };
    return {
      error: typeof e.error === 'string' ? e.error : typeof e.name === 'string' ? e.name : 'error',
      description: typeof e.error_description === 'string'
        ? e.error_description
        : typeof e.message === 'string' ? e.message : undefined,
    };
  }
  return { error: String(err) };
}

/**
 * client_secret_basic (RFC 6749 §2.3.1: id and secret are form-urlencoded, then Basic-encoded).
 * Returns the authenticated client id, or undefined.
 */
export function createClientAuthenticator(secretsByClientId: ReadonlyMap<string, string>) {
  return function authenticateClient(authorization: string | undefined): string | undefined {
    const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(authorization ?? '');
    if (!match?.[1]) return undefined;
    const decoded = Buffer.from(match[1], 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) return undefined;
    let clientId: string;
    let secret: string;
    try {
      const formDecode = (v: string) => decodeURIComponent(v.replace(/\+/g, ' '));
      clientId = formDecode(decoded.slice(0, colon));
      secret = formDecode(decoded.slice(colon + 1));
    } catch {
      return undefined;
    }
    const expected = secretsByClientId.get(clientId);
    // Compare even for unknown clients, so the timing does not reveal which client ids exist.
    const ok = secretMatches(expected ?? randomBytes(16).toString('hex'), secret);
    return ok && expected !== undefined ? clientId : undefined;
  };
}
