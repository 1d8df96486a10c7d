import type { OperationHandler } from '../api/types.ts';
import { actorFromPrincipal } from '../services/audit/audit.ts';
import { enforcementOf } from '../services/onboarding/grace.ts';
import { updateFieldDefinition } from '../services/onboarding/schema.ts';

/** PATCH /v1/platforms/{platformKey}/onboarding/fields/{fieldKey} */
export const updateOnboardingField: OperationHandler<'updateOnboardingField'> = async ({ params, query, body, principal, requestId }, deps) => {
  const result = await updateFieldDefinition(deps.db, params.platformKey, params.fieldKey, body, actorFromPrincipal(principal, requestId), { dryRun: query.dryRun === true, enforceAfter: enforcementOf(query.enforceAfter) });
  return { status: 200, body: result.applied ? result.field : result.preview };
};
