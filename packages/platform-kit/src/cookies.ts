// Cookies as the kit reads and writes them: by name from the request's Cookie header, and
// Set-Cookie values with the attributes a login cookie and a session cookie need.
import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * A request that carries one of the kit's cookies more than once: a cookie of the same name set
 * by a sibling subdomain (Domain=) or under another Path, sent beside the kit's own ("cookie
 * tossing"). Browsers order such cookies by path length and age, not by who set them (RFC 6265
 * §5.4 step 2; RFC 6265bis §8.5), so the kit refuses rather than guess which one is its own, as
 * the gateway does for its session cookie. `status` 400 for Express's error handler.
 */
export class AmbiguousCookieError extends Error {
  readonly status = 400;
  readonly statusCode = 400;
  readonly expose = true;
  readonly cookieName: string;
  constructor(cookieName: string) {
    super(`The request carries the cookie ${cookieName} more than once, so it is not known which one this site set. Clear this site's cookies and try again.`);
    this.name = 'AmbiguousCookieError';
    this.cookieName = cookieName;
  }
}

export interface RequestCookies {
  /** The cookie's value; AmbiguousCookieError when the request carries it more than once. */
  get(name: string): string | undefined;
  /** Every cookie whose name starts with `prefix`, repeated names included (as name, value pairs). */
  startingWith(prefix: string): Array<[string, string]>;
}

/** The request's cookies (RFC 6265 §5.2: pairs split at ";", names trimmed). */
export function readCookies(req: IncomingMessage): RequestCookies {
  const pairs: Array<[string, string]> = [];
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const index = part.indexOf('=');
    if (index < 0) continue;
    const name = part.slice(0, index).trim();
    if (name) pairs.push([name, part.slice(index + 1).trim()]);
  }
  return {
    get(name) {
      const values = pairs.filter(([candidate]) => candidate === name);
      if (values.length > 1) throw new AmbiguousCookieError(name);
      return values[0]?.[1];
    },
    startingWith: (prefix) => pairs.filter(([name]) => name.startsWith(prefix)),
  };
}

/**
 * `__Host-` (RFC 6265bis §4.1.3.2): a cookie of that name is only accepted when Secure, with
 * Path=/ and no Domain, so no sibling subdomain and no other path can set one beside it. The kit
 * names its cookies so whenever they are Secure (over plain http, the prefix cannot be used).
 */
export const HOST_PREFIX = '__Host-';

export interface CookieAttributes {
  path: string;
  secure: boolean;
  /** Seconds; 0 clears the cookie; undefined: a cookie of the browser session. */
  maxAge?: number;
}

export function serializeCookie(name: string, value: string, attributes: CookieAttributes): string {
  // A browser silently drops a __Host- cookie without these: better to fail loudly here.
  if (name.startsWith(HOST_PREFIX) && (!attributes.secure || attributes.path !== '/')) throw new TypeError(`${name} must be Secure with Path=/`);
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
