import type { OperationHandler } from '../api/types.ts';
import { deleteAvatar as removeAvatar } from '../services/avatars/avatars.ts';

/** DELETE /v1/profile/me/avatar: no picture, stored bytes deleted; idempotent. */
export const deleteAvatar: OperationHandler<'deleteAvatar'> = async ({ principal, log }, deps) => {
  await removeAvatar(deps, log, principal);
  return { status: 204 };
};
