// Cookies as the kit reads and writes them: by name from the request's Cookie header, and
// Set-Cookie values with the attributes a login cookie and a session cookie need.
import type { IncomingMessage, ServerResponse } from 'node:http';

/** Every cookie of the request (the first of a repeated name wins, as browsers send the most specific path first). */
export function readCookies(req: IncomingMessage): Map<string, string> {
  const cookies = new Map<string, string>();
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const index = part.indexOf('=');
    if (index < 0) continue;
    const name = part.slice(0, index).trim();
    if (name && !cookies.has(name)) cookies.set(name, part.slice(index + 1).trim());
  }
  return cookies;
}

export interface CookieAttributes {
  path: string;
  secure: boolean;
  /** Seconds; 0 clears the cookie; undefined: a cookie of the browser session. */
  maxAge?: number;
}

export function serializeCookie(name: string, value: string, attributes: CookieAttributes): string {
  return [
    `${name}=${value}`,
    `Path=${attributes.path}`,
    ...(attributes.maxAge !== undefined ? [`Max-Age=${attributes.maxAge}`] : []),
    'HttpOnly',
    // Lax: the browser sends it on the top-level GET from the gateway to the callback, never on a cross-site POST.
    'SameSite=Lax',
    ...(attributes.secure ? ['Secure'] : []),
  ].join('; ');
}

/** Adds Set-Cookie values to those already on the response. */
export function appendSetCookie(res: ServerResponse, cookies: string[]): void {
  if (cookies.length === 0) return;
  const current = res.getHeader('Set-Cookie');
  const existing = current === undefined ? [] : Array.isArray(current) ? current : [String(current)];
  res.setHeader('Set-Cookie', [...existing, ...cookies]);
}
