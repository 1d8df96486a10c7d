import type { OperationHandler } from '../api/types.ts';
import { actorFromPrincipal } from '../services/audit/audit.ts';
import { clearBranding } from '../services/registry/index.ts';

/** DELETE /v1/platforms/{platformKey}/branding: colour, names and logo cleared; idempotent. */
export const clearPlatformBranding: OperationHandler<'clearPlatformBranding'> = async (ctx, deps) => ({
  status: 200,
  body: await clearBranding({ db: deps.db, publicBaseUrl: deps.config.publicBaseUrl }, ctx.params.platformKey, actorFromPrincipal(ctx.principal, ctx.requestId)),
});
