// The development adapter of the identity-provider port: the dev identity provider's accounts,
// in-process (the object `startDevIdp` returns as `accounts`). Only a type is imported from the dev
// IdP, so production never loads it (its packages are development dependencies).
//
// | dev IdP outcome              | gateway problem                                        |
// |------------------------------|--------------------------------------------------------|
// | wrong_password, inactive     | 403 FORBIDDEN                                          |
// | rejected (dev policy)        | 400 VALIDATION_FAILED at /body/newPassword, its message |
// | unknown_user                 | 404 NOT_FOUND                                          |
// | the users file not writable  | 503 IDP_UNAVAILABLE                                    |

import type { Logger } from 'pino';

import { ApiError } from '../../errors/catalogue.ts';
import type { DevIdpAccounts } from '../../devidp/accounts.ts';
import type { IdentityProviderAccounts } from './port.ts';

export function createDevIdpAccounts(devIdp: DevIdpAccounts, logger: Logger): IdentityProviderAccounts {
  const log = logger.child({ component: 'idp-accounts', provider: 'dev-idp' });

  /** The dev IdP failed (its users file could not be written): the provider is unavailable. */
  async function guarded<T>(operation: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      log.error({ operation, err: error }, 'the development identity provider failed');
      throw new ApiError('IDP_UNAVAILABLE', 'The identity provider could not complete the request. Try again later.');
    }
  }

  return {
    async listAuthenticationMethods(sub) {
      const methods = await guarded('listAuthenticationMethods', () => devIdp.listMethods(sub));
      if (methods === null) throw new ApiError('NOT_FOUND', 'The account does not exist at the identity provider.');
      return methods.map((method) => ({
        id: 'password',
        type: method.type,
        displayName: null,
        createdAt: method.setAt,
        lastUsedAt: method.lastUsedAt,
      }));
    },

    async changePassword(sub, input) {
      const result = await guarded('changePassword', () => devIdp.changePassword(sub, input.currentPassword, input.newPassword));
      switch (result.status) {
        case 'changed':
          return;
        case 'wrong_password':
          throw new ApiError('FORBIDDEN', 'The current password is not correct.');
        case 'inactive':
          throw new ApiError('FORBIDDEN', 'The account is deactivated at the identity provider.');
        case 'rejected':
          throw new ApiError('VALIDATION_FAILED', 'The identity provider refused the new password.', {
            errors: [{ pointer: '/body/newPassword', message: result.message }],
          });
        case 'unknown_user':
          throw new ApiError('NOT_FOUND', 'The account does not exist at the identity provider.');
      }
    },

    deactivateUser: (sub) => guarded('deactivateUser', () => devIdp.deactivate(sub)),
    deleteUser: (sub) => guarded('deleteUser', () => devIdp.delete(sub)),
  };
}
