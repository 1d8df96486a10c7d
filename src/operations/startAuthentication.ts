import type { OperationHandler } from '../api/types.ts';
import { setLoginBindingCookie } from '../api/cookies.ts';
import { browserSessionOf } from '../api/security.ts';
import { ApiError } from '../errors/catalogue.ts';
import { startLogin } from '../services/login/loginFlow.ts';
import { addressSubject, consumeStartAndFindPlatform } from '../services/rateLimits/rateLimits.ts';
import { startSupportSignIn } from '../services/supportAccess/signIn.ts';
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
      { supportAccessId: query.supportAccess, returnTo: query.returnTo, handoffChallenge: query.handoffChallenge, platformState: query.platformState, stepUp: query.stepUp, maxAge: query.maxAge, forceLogin: query.forceLogin, requireSecondFactor: query.requireSecondFactor },
      requestId,
    );
    return { status: 302, location, headers: { 'Cache-Control': 'no-store' } };
  }
  // The validated query is the service's input as it is (StartInput: the contract's parameters).
  const started = await startLogin(deps, query, findPlatform);
  setLoginBindingCookie(res, deps.config, started.transactionId, started.browserBinding);
  return { status: 302, location: started.authorizeUrl, headers: { 'Cache-Control': 'no-store' } };
};
