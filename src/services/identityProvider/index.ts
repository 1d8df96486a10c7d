// Which adapter of the identity-provider port the gateway uses (research/zitadel-api.md §2):
// - IDP_ADMIN_TOKEN or IDP_ADMIN_KEY_FILE set: Zitadel's v2 user service at IDP_ADMIN_API_URL
//   (default OIDC_ISSUER) through Zitadel's own client on the Connect protocol, as a service user
//   with the ORG_USER_MANAGER role;
// - else, while the development stack runs: the dev identity provider, in-process;
// - else none: the account operations answer 503 IDP_UNAVAILABLE.

import type { Logger } from 'pino';

import type { Config } from '../../config/index.ts';
import type { DevIdpAccounts } from '../../devidp/accounts.ts';
import { ApiError } from '../../errors/catalogue.ts';
import { createDevIdpAccounts } from './devIdp.ts';
import { DEFAULT_HTTP_LIMITS, type HttpLimits } from './http.ts';
import type { IdentityProviderAccounts } from './port.ts';
import type { ZitadelAccountsOptions } from './zitadel.ts';
import { jwtProfileCredential, patCredential, readServiceAccountKeyFile } from './zitadelAuth.ts';

export type { AuthenticationMethod, IdentityProviderAccounts } from './port.ts';

export function identityProviderAccountsFromConfig(
  config: Config,
  logger: Logger,
  devIdp?: DevIdpAccounts | null,
  limits: Partial<HttpLimits> = {},
): IdentityProviderAccounts | null {
  const { token, keyFile, apiUrl: configuredApiUrl } = config.idpAdmin;
  if (token || keyFile) {
    if (devIdp && !configuredApiUrl) {
      throw new Error('IDP_ADMIN_TOKEN or IDP_ADMIN_KEY_FILE is set while the development identity provider runs: set IDP_ADMIN_API_URL to the Zitadel they belong to, or unset them');
    }
    const apiUrl = configuredApiUrl ?? config.oidc.issuer;
    if (!apiUrl) throw new Error('IDP_ADMIN_TOKEN or IDP_ADMIN_KEY_FILE is set but neither IDP_ADMIN_API_URL nor OIDC_ISSUER says where the API is');
    const httpLimits = { ...DEFAULT_HTTP_LIMITS, ...limits };
    const credential = token
      ? patCredential(token)
      : jwtProfileCredential({ key: readServiceAccountKeyFile(keyFile!), issuer: config.oidc.issuer ?? apiUrl, limits: httpLimits });
    logger.info({ idpAdmin: { apiUrl, authentication: credential.kind } }, 'account operations use the Zitadel user API');
    return lazyZitadelAccounts({ apiUrl, credential, logger, limits: httpLimits });
  }
  if (devIdp) {
    logger.info('account operations use the development identity provider');
    return createDevIdpAccounts(devIdp, logger);
  }
  logger.warn('IDP_ADMIN_TOKEN and IDP_ADMIN_KEY_FILE are unset: the account operations (authentication methods, password change) answer 503 IDP_UNAVAILABLE');
  return null;
}

/** The adapter, or 503 IDP_UNAVAILABLE saying the account API is not configured. */
export function requireIdpAccounts(accounts: IdentityProviderAccounts | null): IdentityProviderAccounts {
  if (!accounts) {
    throw new ApiError('IDP_UNAVAILABLE', "The identity provider's account API is not configured on this gateway (IDP_ADMIN_TOKEN or IDP_ADMIN_KEY_FILE).");
  }
  return accounts;
}

/**
 * The Zitadel adapter, loaded only where it is configured: with Zitadel's client and definitions,
 * loading this module took about 0.3 s and 23 MB of heap instead of 0.07 s and 12 MB (measured
 * here), which every other deployment, the development stack and every test that builds the app
 * would pay for nothing.
 * The load starts at once; a call waits for it.
 */
function lazyZitadelAccounts(options: ZitadelAccountsOptions): IdentityProviderAccounts {
  const adapter = import('./zitadel.ts').then((module) => module.createZitadelAccounts(options));
  adapter.catch(() => undefined); // a failed load is reported by the first call, not as an unhandled rejection
  return {
    listAuthenticationMethods: async (sub) => (await adapter).listAuthenticationMethods(sub),
    changePassword: async (sub, input) => (await adapter).changePassword(sub, input),
    deactivateUser: async (sub) => (await adapter).deactivateUser(sub),
    deleteUser: async (sub) => (await adapter).deleteUser(sub),
  };
}
