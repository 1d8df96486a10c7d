import type { OperationHandler } from '../api/types.ts';
import { requestUpload } from '../services/avatars/avatars.ts';

/** POST /v1/profile/me/avatar/upload-request: a signed, single-use, five-minute upload ticket. */
export const requestAvatarUpload: OperationHandler<'requestAvatarUpload'> = async ({ principal, body }, deps) => ({
  status: 201,
  body: await requestUpload(deps, principal, body),
  headers: { 'Cache-Control': 'no-store' },
});
