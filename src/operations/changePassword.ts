import type { OperationHandler } from '../api/types.ts';
import { ApiError } from '../errors/catalogue.ts';
import { requireIdpAccounts } from '../services/identityProvider/index.ts';
import { consumeRateLimit } from '../services/rateLimits/rateLimits.ts';

/**
 * POST /v1/account/password: the change happens at the identity provider. Every attempt counts
 * against the user's limit (RATE_LIMIT_PASSWORD_CHANGE_PER_MINUTE, 5 by default), whatever its outcome. Neither password is logged,
 * stored or echoed: they go from the validated body to the provider and nowhere else.
 */
export const changePassword: OperationHandler<'changePassword'> = async (ctx, deps) => {
  if (!ctx.principal) throw new ApiError('UNAUTHENTICATED');
  const accounts = requireIdpAccounts(deps.idpAccounts);
  await consumeRateLimit(deps, 'passwordChange', ctx.principal.sub);
  await accounts.changePassword(ctx.principal.sub, { currentPassword: ctx.body.currentPassword, newPassword: ctx.body.newPassword });
  ctx.log.info({ sub: ctx.principal.sub, via: ctx.principal.via }, 'password changed at the identity provider');
  return { status: 204 };
};
