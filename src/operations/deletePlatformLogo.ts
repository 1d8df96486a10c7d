import type { OperationHandler } from '../api/types.ts';
import { actorFromPrincipal } from '../services/audit/audit.ts';
import { deleteLogo } from '../services/registry/index.ts';

/** DELETE /v1/platforms/{platformKey}/branding/logo: the logo gone, its URL no longer served; idempotent. */
export const deletePlatformLogo: OperationHandler<'deletePlatformLogo'> = async (ctx, deps) => ({
  status: 200,
  body: await deleteLogo({ db: deps.db, publicBaseUrl: deps.config.publicBaseUrl }, ctx.params.platformKey, actorFromPrincipal(ctx.principal, ctx.requestId)),
});
