import type { OperationHandler } from '../api/types.ts';
import { actorFromPrincipal } from '../services/audit/audit.ts';
import { updatePlatform as patchPlatform } from '../services/registry/index.ts';

/** PATCH /v1/platforms/{platformKey}: merge semantics; only the properties sent change. */
export const updatePlatform: OperationHandler<'updatePlatform'> = async (ctx, deps) => {
  const platform = await patchPlatform(deps.db, ctx.params.platformKey, ctx.body, actorFromPrincipal(ctx.principal, ctx.requestId), {
    requireHttps: deps.config.isProduction,
    outbound: deps.config.outbound,
  });
  return { status: 200, body: platform };
};
