import type { OperationHandler } from '../api/types.ts';
import { actorFromPrincipal } from '../services/audit/audit.ts';
import { rotatePlatformCredentials as rotate } from '../services/registry/index.ts';

/** POST /v1/platforms/{platformKey}/credentials/rotate: the new secret, shown once and never cached. */
export const rotatePlatformCredentials: OperationHandler<'rotatePlatformCredentials'> = async (ctx, deps) => {
  const credentials = await rotate(deps.db, ctx.params.platformKey, actorFromPrincipal(ctx.principal, ctx.requestId));
  return { status: 200, headers: { 'Cache-Control': 'no-store' }, body: credentials };
};
