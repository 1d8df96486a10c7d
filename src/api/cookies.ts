import type { CookieOptions, Request, Response } from 'express';
import type { Config } from '../config/index.ts';
import { ApiError } from '../errors/catalogue.ts';

const HOST_PREFIX = /^__Host-/i;

/**
 * The session cookie's value, for the security handler. Two values under its name (a sibling
 * subdomain's cookie with Domain=, or one with a longer Path, sent beside ours: cookie tossing)
 * are refused rather than guessed between: browsers order them by path length and age, not by
 * who set them, and the first one would otherwise win (RFC 6265 §5.4 step 2; RFC 6265bis §8.5).
 */
export function readSessionCookie(req: Request, config: Config): string | undefined {
  const token = req.cookies?.[config.gatewayCookieName] as string | undefined;
  if (token !== undefined && countCookie(req.headers.cookie, config.gatewayCookieName) > 1) {
    throw new ApiError(
      'SESSION_COOKIE_AMBIGUOUS',
      `The request carries the cookie ${config.gatewayCookieName} more than once, so it is not known which session is meant. Clear this site's cookies and sign in again.`,
    );
  }
  return token;
}

/** How many cookie-pairs of the header have this name (RFC 6265 §5.2: split at ";", name trimmed). */
function countCookie(header: string | undefined, name: string): number {
  if (!header) return 0;
  let count = 0;
  for (const pair of header.split(';')) {
    const equals = pair.indexOf('=');
    if (equals >= 0 && pair.slice(0, equals).trim() === name) count += 1;
  }
  return count;
}

/**
 * The gateway cookie: HttpOnly, Path=/, SameSite=Lax (spec step 8), Secure in production
 * and whenever the gateway is served over https.
 */
export function setSessionCookie(res: Response, config: Config, token: string, expiresAt: Date): void {
  res.cookie(config.gatewayCookieName, token, { httpOnly: true, path: '/', sameSite: 'lax', secure: config.secureCookies, expires: expiresAt });
}

/** Lets the browser forget the gateway cookie (sign-out, account deletion). */
export function clearSessionCookie(res: Response, config: Config): void {
  res.clearCookie(config.gatewayCookieName, { httpOnly: true, path: '/', sameSite: 'lax', secure: config.secureCookies });
}

/**
 * The deletion receipt (getAccountDeletion): sent only to /v1/account/deletion (or with every
 * request when the session cookie is `__Host-` prefixed, which requires Path=/), for the
 * retention period. HttpOnly: no script reads it; SameSite=Lax like the session cookie.
 */
export const deletionReceiptCookieName = (config: Config) => `${config.gatewayCookieName}_deletion`;

export function setDeletionReceiptCookie(res: Response, config: Config, receipt: string, retentionDays: number): void {
  // The same prefix as the callback's (AUTH_CALLBACK_URL …/v1/auth/callback → …/v1/account/deletion).
  const path = HOST_PREFIX.test(config.gatewayCookieName) ? '/' : new URL('../account/deletion', config.authCallbackUrl).pathname;
  res.cookie(deletionReceiptCookieName(config), receipt, { httpOnly: true, path, sameSite: 'lax', secure: config.secureCookies, maxAge: retentionDays * 86_400_000 });
}

/**
 * A login's browser binding (RFC 9700 §4.7.1): one cookie per login in flight, so several
 * tabs can sign in at once, each with its own. It is sent only to the callback (its Path),
 * lives as long as the transaction, and SameSite=Lax still lets the identity provider's
 * top-level redirect to the callback carry it.
 */
export function loginBindingCookieName(config: Config, transactionId: string): string {
  return `${config.gatewayCookieName}_login_${transactionId}`;
}

/**
 * A `__Host-` session name (production) makes the binding `__Host-` too, so it cannot be tossed
 * either; that prefix requires Path=/ (RFC 6265bis §4.1.3.2), so the binding then goes with every
 * request to the gateway for its few minutes instead of the callback only. Its name never equals
 * the session cookie's (the `_login_{transactionId}` suffix).
 */
function loginBindingOptions(config: Config): CookieOptions {
  const path = HOST_PREFIX.test(config.gatewayCookieName) ? '/' : new URL(config.authCallbackUrl).pathname;
  return { httpOnly: true, path, sameSite: 'lax', secure: config.secureCookies };
}

/**
 * How long the binding cookie outlives its login: a person who waited on the provider's page
 * past the login's lifetime still brings it to the callback, whose page can then lead back
 * (loginWayBack.ts). It opens nothing by then: the transaction itself has expired.
 */
const BINDING_GRACE_SECONDS = 3600;

export function setLoginBindingCookie(res: Response, config: Config, transactionId: string, value: string): void {
  res.cookie(loginBindingCookieName(config, transactionId), value, {
    ...loginBindingOptions(config),
    maxAge: (config.authTransactionTtlSeconds + BINDING_GRACE_SECONDS) * 1000,
  });
}

/** At most this many binding cookies are tried for a way back (several tabs; never unbounded work). */
const MAX_BINDINGS_READ = 8;
const TRANSACTION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Read and clear a login's binding cookie, for the callback (which spends the login either way). */
export function loginBindingCookies(req: Request, res: Response, config: Config) {
  return {
    read: (transactionId: string): string | undefined => req.cookies?.[loginBindingCookieName(config, transactionId)] as string | undefined,
    /** Every login binding this browser sent, as [transactionId, value]: for a callback that names no known login. */
    all: (): [string, string][] => {
      const prefix = loginBindingCookieName(config, '');
      return Object.entries((req.cookies ?? {}) as Record<string, unknown>)
        .filter((entry): entry is [string, string] => entry[0].startsWith(prefix) && typeof entry[1] === 'string')
        .map(([name, value]): [string, string] => [name.slice(prefix.length), value])
        .filter(([transactionId]) => TRANSACTION_ID.test(transactionId))
        .slice(0, MAX_BINDINGS_READ);
    },
    clear: (transactionId: string): void => {
      res.clearCookie(loginBindingCookieName(config, transactionId), loginBindingOptions(config));
    },
  };
}
