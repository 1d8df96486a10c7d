import type { OperationHandler } from '../api/types.ts';
import { actorFromPrincipal } from '../services/audit/audit.ts';
import { createPlatform as registerPlatform } from '../services/registry/index.ts';

/**
 * POST /v1/platforms: the only answer (with rotation) that carries a client secret, so
 * never cached. In production every URL of the record must be https.
 */
export const createPlatform: OperationHandler<'createPlatform'> = async (ctx, deps) => {
  const { platform, clientSecret } = await registerPlatform(deps.db, ctx.body, actorFromPrincipal(ctx.principal, ctx.requestId), {
    requireHttps: deps.config.isProduction,
    outbound: deps.config.outbound,
  });
  return {
    status: 201,
    headers: {
      'Cache-Control': 'no-store',
      Location: `/v1/platforms/${encodeURIComponent(platform.platformKey)}`,
    },
    body: { ...platform, clientSecret },
  };
};
