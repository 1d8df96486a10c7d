import type { OperationHandler } from '../api/types.ts';
import { actorFromPrincipal } from '../services/audit/audit.ts';
import { requestSupportAccess as request } from '../services/supportAccess/requests.ts';

/** POST /v1/support-access: an operator asks to see a platform as a person (issue 35). */
export const requestSupportAccess: OperationHandler<'requestSupportAccess'> = async ({ principal, body, requestId }, deps) => {
  const access = await request(deps.db, principal!, body, actorFromPrincipal(principal, requestId), deps.config.authPlatformKey ?? null);
  return { status: 201, body: access, headers: { 'Cache-Control': 'no-store' } };
};
