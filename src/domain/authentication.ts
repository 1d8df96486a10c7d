// What a platform asks of one login's authentication, and what the provider reported about it
// (fresh sign-in and step-up, src/services/login/freshSignIn.ts). Shared by the services and the
// repositories that store them, so neither depends on the other.

/** What a platform asked of one login (stored with its transaction). */
export interface AuthenticationRequest {
  /** The authentication must be at most this many seconds old when the login starts (OIDC `max_age`). */
  maxAgeSeconds: number | null;
  /** Sign in again whatever the provider's session (OIDC `prompt=login`). */
  forceLogin: boolean;
  /** The ID token's `amr` must show a second factor (OIDC_SECOND_FACTOR_AMR). */
  secondFactor: boolean;
  /** A step-up of an existing session: only this subject may complete the login. */
  stepUpSub: string | null;
}

export const NOTHING_REQUESTED: AuthenticationRequest = Object.freeze({ maxAgeSeconds: null, forceLogin: false, secondFactor: false, stepUpSub: null });

/** How the person authenticated, as the provider's ID token said (OIDC Core §2), kept with the session. */
export interface LoginAuthentication {
  /** `auth_time`, seconds since the epoch. */
  authTime: number | null;
  /** `amr` (RFC 8176). */
  amr: readonly string[] | null;
  /** `acr`. */
  acr: string | null;
}
