import type { OperationHandler } from '../api/types.ts';
import { listFieldDefinitions } from '../services/onboarding/schema.ts';

/** GET /v1/platforms/{platformKey}/onboarding/fields */
export const listOnboardingFields: OperationHandler<'listOnboardingFields'> = async ({ params, query }, deps) => ({
  status: 200,
  body: await listFieldDefinitions(deps.db, params.platformKey, query.includeArchived === true),
});
