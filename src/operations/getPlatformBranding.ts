import type { OperationHandler } from '../api/types.ts';
import { getBranding } from '../services/registry/index.ts';

/** GET /v1/platforms/{platformKey}/branding: any signed-in caller, active platforms (all of them with platforms:admin). */
export const getPlatformBranding: OperationHandler<'getPlatformBranding'> = async ({ params, principal }, deps) => ({
  status: 200,
  body: await getBranding({ db: deps.db, publicBaseUrl: deps.config.publicBaseUrl }, params.platformKey, {
    includeInactive: principal?.permissions.includes('platforms:admin') ?? false,
  }),
});
