import type { OperationHandler } from '../api/types.ts';
import { actorFromPrincipal } from '../services/audit/audit.ts';
import { setBranding } from '../services/registry/index.ts';

/** PUT /v1/platforms/{platformKey}/branding: colour (WCAG AA checked) and names per language, replaced whole. */
export const setPlatformBranding: OperationHandler<'setPlatformBranding'> = async (ctx, deps) => ({
  status: 200,
  body: await setBranding({ db: deps.db, publicBaseUrl: deps.config.publicBaseUrl }, ctx.params.platformKey, ctx.body, actorFromPrincipal(ctx.principal, ctx.requestId)),
});
