import type { OperationHandler } from '../api/types.ts';
import { readAvatar } from '../services/avatars/avatars.ts';
import { AVATAR_CACHE_CONTROL, AVATAR_MEDIA_TYPE } from '../services/avatars/store.ts';

/** GET /v1/avatars/{avatarId} (PostgreSQL store): public, immutable; a new id for every upload. */
export const getAvatar: OperationHandler<'getAvatar'> = async ({ params }, deps) => ({
  status: 200,
  contentType: AVATAR_MEDIA_TYPE,
  bytes: await readAvatar(deps, params.avatarId),
  headers: { 'Cache-Control': AVATAR_CACHE_CONTROL },
});
