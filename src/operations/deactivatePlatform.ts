import type { OperationHandler } from '../api/types.ts';
import { actorFromPrincipal } from '../services/audit/audit.ts';
import { deactivatePlatform as deactivate } from '../services/registry/index.ts';

/** DELETE /v1/platforms/{platformKey}: soft deactivation; the record and its data stay. */
export const deactivatePlatform: OperationHandler<'deactivatePlatform'> = async (ctx, deps) => {
  const platform = await deactivate(deps.db, ctx.params.platformKey, actorFromPrincipal(ctx.principal, ctx.requestId));
  return { status: 200, body: platform };
};
