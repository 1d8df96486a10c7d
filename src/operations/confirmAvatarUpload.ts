import type { OperationHandler } from '../api/types.ts';
import { confirmUpload } from '../services/avatars/avatars.ts';

/** POST /v1/avatar-uploads/{ticketId}/confirm?expires&signature (object store): check, re-encode and publish the staged upload. */
export const confirmAvatarUpload: OperationHandler<'confirmAvatarUpload'> = async ({ params, query, log }, deps) => {
  await confirmUpload(deps, log, { ticketId: params.ticketId, expires: query.expires, signature: query.signature });
  return { status: 204 };
};
