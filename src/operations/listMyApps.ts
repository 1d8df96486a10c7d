import type { OperationHandler } from '../api/types.ts';
import { listMyApps as list } from '../services/dataRights/apps.ts';

/** GET /v1/account/apps: the platforms the caller has used and what each receives. */
export const listMyApps: OperationHandler<'listMyApps'> = async ({ principal }, deps) => ({
  status: 200,
  body: await list(deps.db, principal!, deps.config.authPlatformKey),
  headers: { 'Cache-Control': 'no-store' },
});
