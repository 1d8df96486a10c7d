import type { components } from '../../../generated/gateway.ts';

/**
 * The user's account at the identity provider, behind one port with two adapters: the
 * Zitadel v2 user API in production (`zitadel.ts`), and the development identity provider
 * (`devIdp.ts`). The user is named by the `sub` of their tokens, which is Zitadel's user id.
 *
 * Every method throws an ApiError the operations can answer directly:
 * - `FORBIDDEN` when the current password is wrong;
 * - `VALIDATION_FAILED` (pointer `/body/newPassword`, the provider's message) when its
 *   password policy refuses the new one;
 * - `IDP_UNAVAILABLE` when the provider cannot be reached, times out or fails.
 */
export interface IdentityProviderAccounts {
  /** Password, passkeys, one-time-password factors, linked identity providers; never secret material. */
  listAuthenticationMethods(sub: string): Promise<AuthenticationMethod[]>;
  changePassword(sub: string, input: { currentPassword: string; newPassword: string }): Promise<void>;
  /** The person can no longer sign in (account deletion). Idempotent: an inactive or unknown user is fine. */
  deactivateUser(sub: string): Promise<void>;
  /** Removes the account for good (the purge, after the retention period). Idempotent. */
  deleteUser(sub: string): Promise<void>;
}

export type AuthenticationMethod = components['schemas']['AuthenticationMethod'];
