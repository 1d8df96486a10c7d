import type { OperationHandler } from '../api/types.ts';
import { getProfile } from '../services/account/profile.ts';

/** GET /v1/profile/me */
export const getMyProfile: OperationHandler<'getMyProfile'> = async ({ principal }, deps) => ({
  status: 200,
  body: await getProfile(deps.db, principal!),
  headers: { 'Cache-Control': 'no-store' },
});
