import type { AppDeps } from '../../deps.ts';
import type { Principal } from '../../domain/types.ts';
import { ApiError } from '../../errors/catalogue.ts';
import { findActivePlatformById } from '../registry/index.ts';
import { requireReturnTo } from '../../security/returnTo.ts';
import { startParameters } from './freshSignIn.ts';
import { reserveStepUpChallenge } from './stepUpChallengesRepository.ts';

export interface StepUpInput {
  returnTo: string;
  maxAge?: number;
  forceLogin?: boolean;
  requireSecondFactor?: boolean;
  handoffChallenge?: string;
  platformState?: string;
}

/**
 * POST /v1/auth/step-up: the start URL of a fresh sign-in that only the person of the caller's
 * session may complete (RFC 9470's step-up, for a platform that holds a session rather than an
 * access token). The request and the person travel sealed in the URL's `stepUp` token
 * (freshSignIn.ts), bound to the platform's handoff challenge, and the start and callback do the
 * rest. One row is written: the challenge, marked as a step-up's, so that a start that presents
 * it without the token (`stepUp=` removed from the address: a plain single sign-on, which the
 * platform's verifier would otherwise exchange as if confirmed) is refused.
 */
export async function createStepUpLogin(deps: AppDeps, principal: Principal, input: StepUpInput): Promise<{ url: string; expiresAt: string }> {
  // The platform's own credential: its platform, and the session's person. The person's own
  // browser has nothing to step up to (the account center asks the provider itself).
  if (principal.via !== 'platform' || !principal.platform) {
    throw new ApiError('FORBIDDEN', "A step-up is asked for by a platform back end, with its credential from the exchange.");
  }
  const platform = await findActivePlatformById(deps.db, principal.platform.id);
  if (!platform) throw new ApiError('PLATFORM_NOT_FOUND', 'The platform of this credential is no longer active.');
  // Checked now for a clear answer to the back end; the start checks both again.
  const returnTo = requireReturnTo(input.returnTo, platform.allowedReturnUrls);
  if (platform.handoffChallengeRequired && !input.handoffChallenge) {
    throw new ApiError('HANDOFF_CHALLENGE_REQUIRED', 'This platform requires handoffChallenge: BASE64URL(SHA-256(verifier)) of a secret its back end keeps for this login.');
  }
  const asksNothing = input.maxAge === undefined && !input.forceLogin && !input.requireSecondFactor;
  const ttlSeconds = deps.config.authTransactionTtlSeconds;
  const parameters = startParameters(deps.keyRing, platform.platformKey, {
    maxAgeSeconds: input.maxAge ?? null,
    // A step-up that asks nothing else asks the person to sign in again.
    forceLogin: input.forceLogin === true || asksNothing,
    secondFactor: input.requireSecondFactor === true,
    stepUpSub: principal.sub,
  }, ttlSeconds, input.handoffChallenge ?? null);
  // Before the URL is answered: no one can present the challenge at a start before it is marked.
  // (Without a challenge there is nothing to bind; such a platform relies on its own check of
  // the exchange's `authentication.requested`.)
  const expiresAt = new Date(Date.now() + ttlSeconds * 1000);
  if (input.handoffChallenge) await reserveStepUpChallenge(deps.db, { handoffChallenge: input.handoffChallenge, platformId: platform.id, expiresAt });
  const url = new URL('/v1/auth/start', deps.config.publicBaseUrl);
  url.searchParams.set('platformKey', platform.platformKey);
  url.searchParams.set('returnTo', returnTo.href);
  for (const [name, value] of Object.entries(parameters)) url.searchParams.set(name, value);
  if (input.handoffChallenge) url.searchParams.set('handoffChallenge', input.handoffChallenge);
  if (input.platformState) url.searchParams.set('platformState', input.platformState);
  return { url: url.href, expiresAt: expiresAt.toISOString() };
}
