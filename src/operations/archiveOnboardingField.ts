import type { OperationHandler } from '../api/types.ts';
import { actorFromPrincipal } from '../services/audit/audit.ts';
import { enforcementOf } from '../services/onboarding/grace.ts';
import { archiveFieldDefinition } from '../services/onboarding/schema.ts';

/** DELETE /v1/platforms/{platformKey}/onboarding/fields/{fieldKey}: soft, idempotent. */
export const archiveOnboardingField: OperationHandler<'archiveOnboardingField'> = async ({ params, query, principal, requestId }, deps) => {
  const result = await archiveFieldDefinition(deps.db, params.platformKey, params.fieldKey, actorFromPrincipal(principal, requestId), { dryRun: query.dryRun === true, enforceAfter: enforcementOf(query.enforceAfter) });
  return { status: 200, body: result.applied ? result.field : result.preview };
};
