import type { OperationHandler } from '../api/types.ts';
import { finishLogin } from '../services/login/loginFlow.ts';
import { loginBindingCookies, setSessionCookie } from '../api/cookies.ts';
import { addressSubject, statementRateLimit } from '../services/rateLimits/rateLimits.ts';
import { clientAddress } from '../security/clientAddress.ts';

/** GET /v1/auth/callback: the identity provider returns the browser here (AUTH_CALLBACK_URL). */
export const handleIdpCallback: OperationHandler<'handleIdpCallback'> = async ({ query, req, res }, deps) => {
  const address = clientAddress(req, deps.config.trustedProxies);
  // Per client IP, before the transaction is spent or the provider is called: with the counters
  // in PostgreSQL, by the statement that consumes the transaction (finishLogin).
  const callbackLimit = await statementRateLimit(deps, 'callback', addressSubject(address));
  // The URL the provider redirected to: the fixed callback plus the query as received.
  const callbackUrl = new URL(deps.config.authCallbackUrl);
  callbackUrl.search = new URL(req.originalUrl, 'http://placeholder').search;
  const outcome = await finishLogin(deps, {
    ...(query.state ? { state: query.state } : {}),
    ...(query.error ? { error: query.error } : {}),
    callbackUrl,
    browserBinding: loginBindingCookies(req, res, deps.config),
    client: { userAgent: req.get('user-agent') ?? null, address },
    callbackLimit,
  });
  setSessionCookie(res, deps.config, outcome.session.token, outcome.session.expiresAt);
  return { status: 302, location: outcome.location, headers: { 'Cache-Control': 'no-store' } };
};
