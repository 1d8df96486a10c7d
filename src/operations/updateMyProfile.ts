import type { OperationHandler } from '../api/types.ts';
import { updateProfile } from '../services/account/profile.ts';

/** PATCH /v1/profile/me: the properties sent, with the same value rules as onboarding. */
export const updateMyProfile: OperationHandler<'updateMyProfile'> = async ({ principal, body }, deps) => ({
  status: 200,
  body: await updateProfile(deps.db, principal!, body),
  headers: { 'Cache-Control': 'no-store' },
});
