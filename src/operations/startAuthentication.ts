import type { OperationHandler } from '../api/types.ts';
import { setLoginBindingCookie } from '../api/cookies.ts';
import { browserSessionOf } from '../api/security.ts';
import { ApiError } from '../errors/catalogue.ts';
import { startLogin } from '../services/loginFlow.ts';
import { startSupportSignIn } from '../services/supportAccess/signIn.ts';
import { addressSubject, consumeStartAndFindPlatform } from '../services/rateLimits.ts';
import { clientAddress } from '../security/clientAddress.ts';

/** GET /v1/auth/start: a platform BFF sends the browser here to log in or register. */
export const startAuthentication: OperationHandler<'startAuthentication'> = async ({ query, req, res, requestId }, deps) => {
  // Per client IP, before anything is written: a flood of starts leaves no transactions behind.
  // Counted by the statement that reads the platform (one round trip), refused before it is used.
  const subject = addressSubject(clientAddress(req, deps.config.trustedProxies));
  const findPlatform = (platformKey: string) => consumeStartAndFindPlatform(deps, subject, platformKey);
  if (query.supportAccess !== undefined) {
    // A support sign-in (issue 35): only this branch reads the browser's gateway session, so an
    // ordinary start pays nothing for it.
    const platform = await findPlatform(query.platformKey);
    if (!platform) throw new ApiError('PLATFORM_NOT_FOUND', `No active platform has the key ${query.platformKey}.`);
    const location = await startSupportSignIn(
      deps,
      await browserSessionOf(deps, req),
      platform,
      { supportAccessId: query.supportAccess, returnTo: query.returnTo, handoffChallenge: query.handoffChallenge, platformState: query.platformState },
      requestId,
    );
    return { status: 302, location, headers: { 'Cache-Control': 'no-store' } };
  }
  const started = await startLogin(
    deps,
    {
      platformKey: query.platformKey,
      returnTo: query.returnTo,
      ...(query.onboardingMode ? { onboardingMode: query.onboardingMode } : {}),
      ...(query.handoffChallenge ? { handoffChallenge: query.handoffChallenge } : {}),
      ...(query.platformState ? { platformState: query.platformState } : {}),
      ...(query.maxAge !== undefined ? { maxAge: query.maxAge } : {}),
      ...(query.forceLogin !== undefined ? { forceLogin: query.forceLogin } : {}),
      ...(query.requireSecondFactor !== undefined ? { requireSecondFactor: query.requireSecondFactor } : {}),
      ...(query.stepUp !== undefined ? { stepUp: query.stepUp } : {}),
    },
    findPlatform,
  );
  setLoginBindingCookie(res, deps.config, started.transactionId, started.browserBinding);
  return { status: 302, location: started.authorizeUrl, headers: { 'Cache-Control': 'no-store' } };
};
