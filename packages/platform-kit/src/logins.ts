// Logins in flight: one sealed, HttpOnly cookie per login, so that a person may start several
// (two tabs, a retry) and finish them in any order. The cookie's name is derived from the
// login's correlation value (`platformState`, which the gateway hands back beside the code),
// its value is the login's handoff verifier, correlation value and returnTo, and, for a step-up,
// what it asked (stepUp.ts), encrypted and authenticated (JWE, dir + A256GCM) under a key of this
// back end, issued when the login started and expiring with it.
// A browser holds at most `maxLogins` of them; starting one more drops the oldest.
import { createHash, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import { EncryptJWT, errors, jwtDecrypt } from 'jose';
import type { StepUpAsked } from './stepUp.ts';

export interface LoginInFlight {
  /** The handoff verifier (RFC 7636 pattern): its SHA-256 went to the start as handoffChallenge. */
  verifier: string;
  /** The correlation value sent as platformState. */
  state: string;
  /** Where the person goes after signing in (a path of this back end). */
  returnTo: string;
  /** A step-up: what it asked, which the exchange must meet (stepUp.ts). */
  stepUp?: StepUpAsked;
  /** When the login started (the cookie's `iat`), seconds since the epoch. */
  startedAt: number;
  /** Seconds since the epoch. */
  expiresAt: number;
}

export interface LoginSeal {
  seal(login: Omit<LoginInFlight, 'expiresAt' | 'startedAt'>, ttlSeconds: number): Promise<string>;
  /** The login; 'expired' past its time; undefined when the value is not one of ours or was altered. */
  open(value: string): Promise<LoginInFlight | 'expired' | undefined>;
}

/** A key of at least 32 bytes' worth of secret, bound to this purpose (HKDF, RFC 5869). */
export function loginSeal(secret: string): LoginSeal {
  if (Buffer.byteLength(secret) < 32) throw new TypeError('cookieSecret must be at least 32 characters of a random secret');
  const key = new Uint8Array(hkdfSync('sha256', secret, new Uint8Array(0), 'auth-gateway platform-kit login cookie v1', 32));
  return {
    async seal(login, ttlSeconds) {
      const asked = login.stepUp ? { u: { s: login.stepUp.sub, m: login.stepUp.maxAge, f: login.stepUp.forceLogin, t: login.stepUp.secondFactor } } : {};
      return new EncryptJWT({ v: login.verifier, s: login.state, r: login.returnTo, ...asked })
        .setProtectedHeader({ alg: 'dir', enc: 'A256GCM' })
        .setIssuedAt()
        .setExpirationTime(`${ttlSeconds}s`)
        .encrypt(key);
    },
    async open(value) {
      try {
        const { payload } = await jwtDecrypt(value, key, { keyManagementAlgorithms: ['dir'], contentEncryptionAlgorithms: ['A256GCM'] });
        const { v, s, r, u, iat, exp } = payload;
        if (typeof v !== 'string' || typeof s !== 'string' || typeof r !== 'string' || typeof iat !== 'number' || typeof exp !== 'number') return undefined;
        const login: LoginInFlight = { verifier: v, state: s, returnTo: r, startedAt: iat, expiresAt: exp };
        if (u === undefined) return login;
        // Sealed by this back end, so well formed; checked anyway, and never read as "nothing asked".
        const asked = u as { s?: unknown; m?: unknown; f?: unknown; t?: unknown };
        if (typeof asked.s !== 'string' || (asked.m !== null && typeof asked.m !== 'number') || typeof asked.f !== 'boolean' || typeof asked.t !== 'boolean') return undefined;
        return { ...login, stepUp: { sub: asked.s, maxAge: asked.m, forceLogin: asked.f, secondFactor: asked.t } };
      } catch (error) {
        return error instanceof errors.JWTExpired ? 'expired' : undefined;
      }
    },
  };
}

/** A fresh login: 256-bit verifier and correlation value (43 characters of base64url each). */
export function newLogin(returnTo: string): Omit<LoginInFlight, 'expiresAt' | 'startedAt'> & { challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url'), state: randomBytes(32).toString('base64url'), returnTo };
}

/** The cookie name of a login: a digest of its correlation value, short and of cookie-name characters only. */
export function loginCookieName(prefix: string, state: string): string {
  return `${prefix}_login_${createHash('sha256').update(state).digest('base64url').slice(0, 22)}`;
}

export function sameState(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
