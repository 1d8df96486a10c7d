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

export function unavailable(cause: unknown, detail = 'The identity provider could not be reached. Try again shortly.'): ApiError {
  return new ApiError('IDP_UNAVAILABLE', detail, { cause });
}

export function accessTokenInvalid(detail: string, cause?: unknown): ApiError {
  return new ApiError('ACCESS_TOKEN_INVALID', detail, cause === undefined ? {} : { cause });
}
