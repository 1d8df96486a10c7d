import type { OperationHandler } from '../api/types.ts';
import { actorFromPrincipal } from '../services/audit/audit.ts';
import { answerSupportAccess as answer } from '../services/supportAccess/requests.ts';

/** POST /v1/account/support-access/{supportAccessId}/answer: the person approves or refuses. */
export const answerSupportAccess: OperationHandler<'answerSupportAccess'> = async ({ principal, params, body, requestId }, deps) => {
  const access = await answer(deps.db, principal!, params.supportAccessId, body.decision, actorFromPrincipal(principal, requestId));
  return { status: 200, body: access, headers: { 'Cache-Control': 'no-store' } };
};
