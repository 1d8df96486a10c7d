import type { OperationHandler } from '../api/types.ts';
import { actorFromPrincipal } from '../services/audit/audit.ts';
import { endSupportAccess as end } from '../services/supportAccess/requests.ts';

/** POST /v1/account/support-access/{supportAccessId}/end: the person's "End it now". */
export const endMySupportAccess: OperationHandler<'endMySupportAccess'> = async ({ principal, params, requestId }, deps) => {
  const body = await end(deps.db, principal!, params.supportAccessId, 'person', actorFromPrincipal(principal, requestId));
  return { status: 200, body, headers: { 'Cache-Control': 'no-store' } };
};
