import type { Response } from 'express';
import type { Config } from '../config/index.ts';

/** The gateway cookie: HttpOnly, Path=/, SameSite=Lax, Secure in production (spec step 8). */
export function setSessionCookie(res: Response, config: Config, token: string, expiresAt: Date): void {
  res.cookie(config.gatewayCookieName, token, {
    httpOnly: true,
    path: '/',
    sameSite: 'lax',
    secure: config.isProduction,
    expires: expiresAt,
  });
}
