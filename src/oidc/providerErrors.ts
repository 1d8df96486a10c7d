import * as client from 'openid-client';
import { errors as joseErrors } from 'jose';
import { ApiError } from '../errors/catalogue.ts';

/** The identity provider could not be reached (network, timeout). */
export function isNetworkError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error.name === 'TimeoutError' || error.name === 'AbortError') return true;
  if (error instanceof joseErrors.JWKSTimeout) return true;
  // undici: TypeError('fetch failed') with the socket error as cause.
  return error instanceof TypeError && error.message === 'fetch failed';
}

/**
 * jose could not fetch the provider's key set: it answered other than 200, or not JSON. jose
 * throws its base JOSEError (code ERR_JOSE_GENERIC) there and nowhere else; every check of a
 * token has its own subclass. The token may be perfectly valid: the provider is failing.
 */
export function isKeySetUnavailable(error: unknown): boolean {
  return error instanceof joseErrors.JOSEError && error.code === 'ERR_JOSE_GENERIC';
}

export function unavailable(cause: unknown, detail = 'The identity provider could not be reached. Try again shortly.'): ApiError {
  return new ApiError('IDP_UNAVAILABLE', detail, { cause });
}

export function accessTokenInvalid(detail: string, cause?: unknown): ApiError {
  return new ApiError('ACCESS_TOKEN_INVALID', detail, cause === undefined ? {} : { cause });
}

/**
 * Maps openid-client failures of the code exchange onto the spec's answers: the provider
 * refusing (an OAuth error body) is 401, the provider down or failing (network, 5xx) is 503,
 * and a response that fails validation (the ID token) is 401 ID_TOKEN_INVALID.
 */
export function classifyCodeExchangeError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (isNetworkError(error) || (error instanceof Error && isNetworkError(error.cause))) return unavailable(error);
  // An OAuth error body, or a challenge in WWW-Authenticate (RFC 6749 §5.2: invalid_client may
  // come as a 401 Basic challenge, as oidc-provider and LemonLDAP::NG send it for a wrong client
  // secret): the provider refused the exchange; nothing about the ID token was looked at.
  if (error instanceof client.ResponseBodyError || error instanceof client.WWWAuthenticateChallengeError) {
    if (error.status >= 500) return unavailable(error);
    return new ApiError('IDP_CODE_EXCHANGE_FAILED', 'The identity provider refused the authorization code.', { cause: error });
  }
  if (error instanceof client.AuthorizationResponseError) {
    return new ApiError('IDP_ERROR', 'The identity provider refused the login.', { cause: error });
  }
  const status = (error as { cause?: { status?: unknown } })?.cause?.status;
  if (typeof status === 'number' && status >= 500) return unavailable(error);
  if (typeof status === 'number' && status >= 400) {
    return new ApiError('IDP_CODE_EXCHANGE_FAILED', 'The identity provider refused the authorization code.', { cause: error });
  }
  return new ApiError('ID_TOKEN_INVALID', 'The ID token could not be verified.', { cause: error });
}
