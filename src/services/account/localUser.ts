import type { Principal } from '../../domain/types.ts';
import { ApiError } from '../../errors/catalogue.ts';

/**
 * The caller's local user. A Bearer token of a subject who never signed in through the
 * gateway has none: the user and account operations are refused with 403 FORBIDDEN.
 */
export function requireLocalUser(principal: Principal | null): string {
  if (!principal?.userId) {
    throw new ApiError('FORBIDDEN', 'This account has not signed in through the gateway yet: sign in once, then try again.');
  }
  return principal.userId;
}
