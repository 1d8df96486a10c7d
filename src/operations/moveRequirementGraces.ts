import type { OperationHandler } from '../api/types.ts';
import { actorFromPrincipal } from '../services/audit/audit.ts';
import { moveRequirementGraces as moveGraces } from '../services/onboarding/grace.ts';

/** PUT /v1/platforms/{platformKey}/onboarding/grace: every version in grace to the new date. */
export const moveRequirementGraces: OperationHandler<'moveRequirementGraces'> = async ({ params, body, principal, requestId }, deps) => ({
  status: 200,
  body: await moveGraces(deps.db, params.platformKey, body.enforceAfter, actorFromPrincipal(principal, requestId)),
});
