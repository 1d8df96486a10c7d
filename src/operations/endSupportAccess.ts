import type { OperationHandler } from '../api/types.ts';
import { actorFromPrincipal } from '../services/audit/audit.ts';
import { endSupportAccess as end } from '../services/supportAccess/requests.ts';

/** POST /v1/support-access/{supportAccessId}/end: an operator ends a support access. */
export const endSupportAccess: OperationHandler<'endSupportAccess'> = async ({ principal, params, requestId }, deps) => {
  const body = await end(deps.db, principal!, params.supportAccessId, 'operator', actorFromPrincipal(principal, requestId));
  return { status: 200, body, headers: { 'Cache-Control': 'no-store' } };
};
