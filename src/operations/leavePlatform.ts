import type { OperationHandler } from '../api/types.ts';
import { actorFromPrincipal } from '../services/audit/audit.ts';
import { leavePlatform as leave } from '../services/dataRights/apps.ts';

/** DELETE /v1/account/apps/{platformKey}: "leave this platform". */
export const leavePlatform: OperationHandler<'leavePlatform'> = async ({ principal, params, requestId, log }, deps) => {
  const left = await leave(deps.db, principal!, params.platformKey, actorFromPrincipal(principal, requestId), deps.config.authPlatformKey);
  log.info({ platformKey: params.platformKey, ...left }, 'a person left a platform');
  return { status: 204 };
};
