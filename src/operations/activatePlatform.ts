import type { OperationHandler } from '../api/types.ts';
import { actorFromPrincipal } from '../services/audit/audit.ts';
import { activatePlatform as activate } from '../services/registry/index.ts';

/**
 * POST /v1/platforms/{platformKey}/activate: 409 with a precise code when the record is
 * incomplete, and 409 CONFLICT in production when its stored URLs are not https.
 */
export const activatePlatform: OperationHandler<'activatePlatform'> = async (ctx, deps) => {
  const platform = await activate(deps.db, ctx.params.platformKey, actorFromPrincipal(ctx.principal, ctx.requestId), {
    requireHttps: deps.config.isProduction,
  });
  return { status: 200, body: platform };
};
