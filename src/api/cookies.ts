import type { CookieOptions, Request, Response } from 'express';
import type { Config } from '../config/index.ts';

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
 * A login's browser binding (RFC 9700 §4.7.1): one cookie per login in flight, so several
 * tabs can sign in at once, each with its own. It is sent only to the callback (its Path),
 * lives as long as the transaction, and SameSite=Lax still lets the identity provider's
 * top-level redirect to the callback carry it.
 */
export function loginBindingCookieName(config: Config, transactionId: string): string {
  return `${config.gatewayCookieName}_login_${transactionId}`;
}

function loginBindingOptions(config: Config): CookieOptions {
  return { httpOnly: true, path: new URL(config.authCallbackUrl).pathname, sameSite: 'lax', secure: config.secureCookies };
}

export function setLoginBindingCookie(res: Response, config: Config, transactionId: string, secret: string): void {
  res.cookie(loginBindingCookieName(config, transactionId), secret, { ...loginBindingOptions(config), maxAge: config.authTransactionTtlSeconds * 1000 });
}

/** Read and clear a login's binding cookie, for the callback (which spends the login either way). */
export function loginBindingCookies(req: Request, res: Response, config: Config) {
  return {
    read: (transactionId: string): string | undefined => req.cookies?.[loginBindingCookieName(config, transactionId)] as string | undefined,
    clear: (transactionId: string): void => {
      res.clearCookie(loginBindingCookieName(config, transactionId), loginBindingOptions(config));
    },
  };
}
