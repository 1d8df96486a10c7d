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
