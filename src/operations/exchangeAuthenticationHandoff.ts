import type { OperationHandler } from '../api/types.ts';
import { ApiError, invalidClientCredentials } from '../errors/catalogue.ts';
import { exchangeHandoff } from '../services/handoff.ts';
import { addressSubject, recordRateLimitedFailure, statementRateLimit } from '../services/rateLimits.ts';
import { clientAddress } from '../security/clientAddress.ts';

/** The refusals that count against the client id's failed-exchange budget. */
const FAILURES: ReadonlySet<string> = new Set(['INVALID_CLIENT_CREDENTIALS', 'HANDOFF_CODE_INVALID']);

/** POST /v1/auth/exchange: the platform BFF trades the handoff code for a session description. */
export const exchangeAuthenticationHandoff: OperationHandler<'exchangeAuthenticationHandoff'> = async ({ body, platformCredentials, req }, deps) => {
  // Parsed by the platformBasicAuth security handler; the secret is checked inside the exchange's SQL.
  if (!platformCredentials) throw invalidClientCredentials();
  // Only failures count (a working BFF is never throttled); a client id whose failures are over
  // the limit is refused before its secret is checked, so the secret cannot be guessed through here.
  // Counted per client id *and* address: client ids are not secret, so a budget per client id
  // alone would let anyone who knows one lock its platform out of every login.
  // With the counters in PostgreSQL the budget is checked inside the exchange's own statement.
  const subject = `${platformCredentials.clientId} ${addressSubject(clientAddress(req, deps.config.trustedProxies))}`;
  const failedExchangeLimit = await statementRateLimit(deps, 'failedExchange', 'check', subject);
  let result;
  try {
    result = await exchangeHandoff(deps, platformCredentials, { code: body.code, handoffVerifier: body.handoffVerifier }, failedExchangeLimit);
  } catch (error) {
    if (error instanceof ApiError && FAILURES.has(error.code)) await recordRateLimitedFailure(deps, 'failedExchange', subject);
    throw error;
  }
  return { status: 200, body: result, headers: { 'Cache-Control': 'no-store', Pragma: 'no-cache' } };
};
