import type { OperationHandler } from '../api/types.ts';
import { setLoginBindingCookie } from '../api/cookies.ts';
import { startLogin } from '../services/login/loginFlow.ts';
import { addressSubject, consumeStartAndFindPlatform } from '../services/rateLimits/rateLimits.ts';
import { clientAddress } from '../security/clientAddress.ts';

/** GET /v1/auth/start: a platform BFF sends the browser here to log in or register. */
export const startAuthentication: OperationHandler<'startAuthentication'> = async ({ query, req, res }, deps) => {
  // Per client IP, before anything is written: a flood of starts leaves no transactions behind.
  // Counted by the statement that reads the platform (one round trip), refused before it is used.
  const subject = addressSubject(clientAddress(req, deps.config.trustedProxies));
  // The validated query is the service's input as it is (StartInput: the contract's parameters).
  const started = await startLogin(deps, query, (platformKey) => consumeStartAndFindPlatform(deps, subject, platformKey));
  setLoginBindingCookie(res, deps.config, started.transactionId, started.browserBinding);
  return { status: 302, location: started.authorizeUrl, headers: { 'Cache-Control': 'no-store' } };
};
