import type { OperationHandler } from '../api/types.ts';
import { actorFromPrincipal } from '../services/audit/audit.ts';
import { enforcementOf } from '../services/onboarding/grace.ts';
import { createFieldDefinition } from '../services/onboarding/schema.ts';

/** POST /v1/platforms/{platformKey}/onboarding/fields: 201 with the definition, or 200 with a dry run's preview. */
export const createOnboardingField: OperationHandler<'createOnboardingField'> = async ({ params, query, body, principal, requestId }, deps) => {
  const result = await createFieldDefinition(deps.db, params.platformKey, body, actorFromPrincipal(principal, requestId), { dryRun: query.dryRun === true, enforceAfter: enforcementOf(query.enforceAfter) });
  return result.applied ? { status: 201, body: result.field } : { status: 200, body: result.preview };
};
