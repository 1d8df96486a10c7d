import type { OperationContext, OperationHandler, Reply } from '../api/types.ts';
import { ApiError } from '../errors/catalogue.ts';
import { LogoutTokenRefused, type VerifiedLogoutToken } from '../oidc/logoutTokens.ts';
import { receiveLogoutToken } from '../services/backchannel/logoutIn.ts';

type Answer = Reply<'receiveBackchannelLogout'>;

const NO_STORE = { 'Cache-Control': 'no-store' };
/** One description for every refusal: why a token was refused is logged, never told (the caller may be anyone). */
const REFUSED = 'The logout token was refused.';

/**
 * POST /v1/auth/backchannel-logout: OpenID Connect Back-Channel Logout 1.0 from the identity
 * provider. The `logout_token` is verified (§2.6, src/oidc/logoutTokens.ts), spent once and the
 * sessions it names end (services/backchannel/logoutIn.ts).
 *
 * Answers (§2.8): 200 (also when no session matched); 400 `invalid_request` for a token that is
 * refused, replayed, or not sent as a form; 503 when the provider's discovery or keys cannot be
 * fetched (or the database is down): a temporary failure, so a provider that retries (Zitadel
 * does, from a queue) delivers the token again, where a 400 would tell it to give up. Every answer
 * is `Cache-Control: no-store`. The token is never logged.
 */
export const receiveBackchannelLogout: OperationHandler<'receiveBackchannelLogout'> = async (ctx, deps) => {
  const token = logoutTokenOf(ctx);
  if (token === null) return invalidRequest('Send the logout_token as an application/x-www-form-urlencoded form.');
  if (!deps.oidc) throw new ApiError('OIDC_NOT_CONFIGURED');

  let verified: VerifiedLogoutToken;
  try {
    verified = await deps.oidc.verifyLogoutToken(token);
  } catch (error) {
    // IDP_UNAVAILABLE (503): problem answers are always no-store (sendProblem).
    if (!(error instanceof LogoutTokenRefused)) throw error;
    ctx.log.info({ reason: error.reason }, 'back-channel logout: logout token refused');
    return invalidRequest(REFUSED);
  }

  const outcome = await receiveLogoutToken(deps.db, verified);
  if (outcome.replayed) {
    ctx.log.info({ reason: 'jti already used (replay)' }, 'back-channel logout: logout token refused');
    return invalidRequest(REFUSED);
  }
  ctx.log.info({ by: outcome.by, sessionsEnded: outcome.endedSessionIds.length }, 'back-channel logout: provider session ended');
  // A 200 without a body (§2.8): a shape the Reply union has no member for; sent as is (res.end()).
  return { status: 200, headers: NO_STORE } as unknown as Answer;
};

/** The form field, from a form body only (a JSON body with the same member is refused). */
function logoutTokenOf(ctx: OperationContext<'receiveBackchannelLogout'>): string | null {
  if (!ctx.req.is('application/x-www-form-urlencoded')) return null;
  const body = ctx.body as unknown;
  if (typeof body !== 'object' || body === null) return null;
  const token = (body as Record<string, unknown>).logout_token;
  return typeof token === 'string' && token !== '' ? token : null;
}

/**
 * §2.8: 400 with an OAuth error body (the contract's OAuthError): a shape the Reply union has no
 * member for. The dispatcher sends `body` as JSON and, in tests, checks it against the contract.
 */
function invalidRequest(description: string): Answer {
  return { status: 400, body: { error: 'invalid_request', error_description: description }, headers: NO_STORE } as unknown as Answer;
}
