import type { OperationHandler } from '../api/types.ts';
import { ApiError } from '../errors/catalogue.ts';
import { requireIdpAccounts } from '../services/identityProvider/index.ts';

/** GET /v1/account/authentication-methods: read through the identity provider; never secret material. */
export const listAuthenticationMethods: OperationHandler<'listAuthenticationMethods'> = async (ctx, deps) => {
  if (!ctx.principal) throw new ApiError('UNAUTHENTICATED');
  const accounts = requireIdpAccounts(deps.idpAccounts);
  const items = await accounts.listAuthenticationMethods(ctx.principal.sub);
  return { status: 200, headers: { 'Cache-Control': 'no-store' }, body: { items } };
};
