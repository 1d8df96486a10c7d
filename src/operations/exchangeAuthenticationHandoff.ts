import type { OperationHandler } from '../api/types.ts';
import { invalidClientCredentials } from '../errors/catalogue.ts';
import { exchangeHandoff } from '../services/login/handoff.ts';

/** POST /v1/auth/exchange: the platform BFF trades the handoff code for a session description. */
export const exchangeAuthenticationHandoff: OperationHandler<'exchangeAuthenticationHandoff'> = async ({ body, platformCredentials }, deps) => {
  // Parsed by the platformBasicAuth security handler; checked by the one check of Basic credentials
  // (registry/platformClient.ts), inside the exchange's SQL.
  // No rate limit: nothing a stranger sends may refuse a back end whose credentials are valid (exchangeHandoff).
  if (!platformCredentials) throw invalidClientCredentials();
  const result = await exchangeHandoff(deps, platformCredentials, { code: body.code, handoffVerifier: body.handoffVerifier });
  return { status: 200, body: result, headers: { 'Cache-Control': 'no-store', Pragma: 'no-cache' } };
};
