// Fresh sign-in and step-up: a platform asks, for one login, that the person signed in
// recently (`max_age`), signs in again whatever the provider's session (`prompt=login`), or uses
// a second factor; and, for an existing session, that exactly that person does so (a step-up).
//
// The gateway forwards what the provider understands (relyingParty.ts) and then checks the
// result itself at the callback, because a provider may ignore a request (OpenID Connect Core
// 1.0 §3.1.2.1 lets it, for `acr_values`; Zitadel does not support `acr_values` at all): a login
// that does not meet what was asked fails, never succeeds quietly (RFC 9470 §3, the
// `insufficient_user_authentication` case). Each rule is one small function below.

import { ApiError } from '../../errors/catalogue.ts';
import { DecryptionError, type KeyRing } from '../../security/crypto.ts';
import { CLOCK_TOLERANCE_SECONDS } from '../../oidc/accessTokens.ts';
import type { AuthenticationRequest, LoginAuthentication } from '../../domain/authentication.ts';
import type { QueryParameters } from '../../domain/types.ts';

export { NOTHING_REQUESTED, type AuthenticationRequest } from '../../domain/authentication.ts';

/** What the ID token says about the authentication (OIDC Core §2): `auth_time` in seconds, `amr`, `acr`. */
export interface ReportedAuthentication extends LoginAuthentication {
  sub: string;
}

/** The larger of two maximum ages is the weaker: keep the smaller. */
function stricterMaxAge(a: number | null, b: number | null): number | null {
  if (a === null) return b;
  if (b === null) return a;
  return Math.min(a, b);
}

/** Two requests together: each asks at least what either asked. */
export function combineRequests(a: AuthenticationRequest, b: AuthenticationRequest): AuthenticationRequest {
  return {
    maxAgeSeconds: stricterMaxAge(a.maxAgeSeconds, b.maxAgeSeconds),
    forceLogin: a.forceLogin || b.forceLogin,
    secondFactor: a.secondFactor || b.secondFactor,
    stepUpSub: a.stepUpSub ?? b.stepUpSub,
  };
}

/**
 * The start's parameters about the authentication, as the contract declares them: maxAge,
 * forceLogin, requireSecondFactor, and stepUp (a step-up token of createStepUpLogin: the request
 * and the person, sealed).
 */
export type StartAuthenticationInput = Pick<QueryParameters<'startAuthentication'>, 'maxAge' | 'forceLogin' | 'requireSecondFactor' | 'stepUp'>;

/**
 * What a start asks: its parameters, and a step-up token's request on top (each asks at least
 * what either does). A token opens only beside the handoff challenge it was issued with.
 */
export function requestedAtStart(keyRing: KeyRing, platformKey: string, input: StartAuthenticationInput & { handoffChallenge?: string }): AuthenticationRequest {
  const asked: AuthenticationRequest = {
    maxAgeSeconds: input.maxAge ?? null,
    forceLogin: input.forceLogin === true,
    secondFactor: input.requireSecondFactor === true,
    stepUpSub: null,
  };
  return input.stepUp === undefined ? asked : combineRequests(openStepUp(keyRing, platformKey, input.stepUp, input.handoffChallenge ?? null), asked);
}

/**
 * The start parameters that ask for `request` again (a start URL, "Try again" after a refusal):
 * a step-up as a fresh token bound to `handoffChallenge` (the one the start will carry, or
 * null), anything else as plain parameters.
 */
export function startParameters(keyRing: KeyRing, platformKey: string, request: AuthenticationRequest, ttlSeconds: number, handoffChallenge: string | null): Record<string, string> {
  if (request.stepUpSub !== null) {
    return { stepUp: sealStepUp(keyRing, platformKey, { ...request, sub: request.stepUpSub, handoffChallenge }, ttlSeconds).token };
  }
  return {
    ...(request.maxAgeSeconds !== null ? { maxAge: String(request.maxAgeSeconds) } : {}),
    ...(request.forceLogin ? { forceLogin: 'true' } : {}),
    ...(request.secondFactor ? { requireSecondFactor: 'true' } : {}),
  };
}

/**
 * The callback's checks, after the tokens were verified and before anything is written for the
 * person. `startedAt` is when the login started: the provider decides on `max_age` when the
 * authorization request reaches it, so the age is measured from there, with the clock skew the
 * token checks allow.
 */
export function requireRequestedAuthentication(
  request: AuthenticationRequest,
  startedAt: Date,
  reported: ReportedAuthentication,
  secondFactorAmr: readonly string[],
  secondFactorAcr: string | null = null,
): void {
  requireStepUpSubject(request, reported.sub);
  requireFreshAuthentication(request, startedAt, reported.authTime);
  requireSecondFactor(request, reported, secondFactorAmr, secondFactorAcr);
}

/** A step-up confirms the person of a session: someone else signing in is refused, whoever they are. */
export function requireStepUpSubject(request: AuthenticationRequest, sub: string): void {
  if (request.stepUpSub !== null && request.stepUpSub !== sub) {
    throw new ApiError('STEP_UP_SUBJECT_MISMATCH', 'Another account signed in than the one that was asked to confirm it. Sign in as the same person, or sign out of the identity provider first.');
  }
}

/**
 * `max_age` (OIDC Core §3.1.2.1): the ID token MUST then carry `auth_time` (§2), and it must be
 * within the age asked. `prompt=login` asks for an authentication now, so it is checked as an age
 * of zero: a provider that ignored either request returns an older `auth_time` and is refused.
 */
export function requireFreshAuthentication(request: AuthenticationRequest, startedAt: Date, authTime: number | null): void {
  const maxAge = request.forceLogin ? 0 : request.maxAgeSeconds;
  if (maxAge === null) return;
  if (authTime === null) {
    throw new ApiError('AUTHENTICATION_TOO_OLD', 'The identity provider did not say when the person signed in (no auth_time in the ID token), so a fresh sign-in cannot be confirmed.');
  }
  const oldestAccepted = Math.floor(startedAt.getTime() / 1000) - maxAge - CLOCK_TOLERANCE_SECONDS;
  if (authTime < oldestAccepted) {
    throw new ApiError('AUTHENTICATION_TOO_OLD', 'The identity provider did not ask the person to sign in again: the sign-in it reported is older than the application asked for.');
  }
}

/**
 * A second factor: the ID token's `amr` (RFC 8176 §2) must name one of the values configured as
 * one (OIDC_SECOND_FACTOR_AMR; Zitadel puts `mfa` there whenever two factors or a passkey were
 * checked, docs/zitadel.md), or its `acr` (OIDC Core §2: the context the authentication
 * satisfied) must be the one the gateway asks for with `acr_values` (OIDC_SECOND_FACTOR_ACR).
 * A provider that answers with authentication levels, not methods, says it there: LemonLDAP::NG
 * emits no `amr` at all and maps its levels onto `acr` values (docs/providers.md).
 */
export function requireSecondFactor(
  request: AuthenticationRequest,
  reported: Pick<LoginAuthentication, 'amr' | 'acr'>,
  secondFactorAmr: readonly string[],
  secondFactorAcr: string | null = null,
): void {
  if (!request.secondFactor) return;
  if (secondFactorAcr !== null && reported.acr === secondFactorAcr) return;
  if (!reported.amr?.some((value) => secondFactorAmr.includes(value))) {
    throw new ApiError('SECOND_FACTOR_MISSING', 'The sign-in did not use a second factor, which the application asked for. Set up a second factor (an authenticator app or a passkey) at the identity provider and try again.');
  }
}

// ---------------------------------------------------------------- the step-up token

/** What a step-up token carries: the request, bound to one platform and one handoff challenge, until `exp` (seconds). */
interface StepUpClaims {
  sub: string;
  maxAge: number | null;
  forceLogin: boolean;
  secondFactor: boolean;
  /** The handoff challenge of the step-up (null: the platform sent none); a start must present the same. */
  ch: string | null;
  exp: number;
}

/** AES-GCM additional data: a token opens only for the platform it was made for. */
const stepUpAad = (platformKey: string) => `step_up:${platformKey}`;

/**
 * The `stepUp` parameter of a start URL: the request and the session's subject, sealed with the
 * key ring (no extra statement at start). It grants nothing: it only narrows who may complete
 * the login and what the login must meet, so it may travel in the browser's URL; sealed, the
 * browser can neither read the subject nor weaken the request. It is bound to the login's handoff
 * challenge: moved beside another challenge it does not open. Dropping it altogether is what the
 * step-up's reserved challenge refuses (stepUpChallenges.ts).
 */
export function sealStepUp(
  keyRing: KeyRing,
  platformKey: string,
  request: { sub: string; maxAgeSeconds: number | null; forceLogin: boolean; secondFactor: boolean; handoffChallenge: string | null },
  ttlSeconds: number,
): { token: string; expiresAt: Date } {
  const exp = Math.floor(Date.now() / 1000) + ttlSeconds;
  const claims: StepUpClaims = {
    sub: request.sub,
    maxAge: request.maxAgeSeconds,
    forceLogin: request.forceLogin,
    secondFactor: request.secondFactor,
    ch: request.handoffChallenge,
    exp,
  };
  return { token: keyRing.seal(JSON.stringify(claims), stepUpAad(platformKey)), expiresAt: new Date(exp * 1000) };
}

/**
 * The request a `stepUp` parameter carries; 400 when it is not this platform's, is tampered with,
 * has expired, or was issued with another handoff challenge than the start's (a token of before
 * the binding, which has none, opens only beside none).
 */
export function openStepUp(keyRing: KeyRing, platformKey: string, token: string, handoffChallenge: string | null): AuthenticationRequest {
  let claims: StepUpClaims;
  try {
    claims = JSON.parse(keyRing.open(token, stepUpAad(platformKey))) as StepUpClaims;
  } catch (error) {
    if (!(error instanceof DecryptionError) && !(error instanceof SyntaxError)) throw error;
    throw stepUpRefused();
  }
  if (claims.exp * 1000 <= Date.now() || (claims.ch ?? null) !== handoffChallenge) throw stepUpRefused();
  return { maxAgeSeconds: claims.maxAge, forceLogin: claims.forceLogin, secondFactor: claims.secondFactor, stepUpSub: claims.sub };
}

/**
 * A start that presents a step-up's handoff challenge without its token (`stepUp=` removed from
 * the address, hoping for a plain single sign-on the platform would take for a confirmation):
 * refused by the start's insert (stepUpChallengesRepository.ts), nothing written.
 */
export function stepUpTokenMissing(): ApiError {
  return new ApiError('STEP_UP_TOKEN_MISSING', 'This confirmation link is incomplete: it was issued to confirm who you are, and part of it was removed. Go back to the application and try again.');
}

function stepUpRefused(): ApiError {
  return new ApiError('VALIDATION_FAILED', 'This confirmation link is invalid or has expired. Go back to the application and try again.', {
    errors: [{ pointer: '/query/stepUp', message: 'is invalid, for another platform or handoff challenge, or expired' }],
  });
}
