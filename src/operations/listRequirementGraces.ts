import type { OperationHandler } from '../api/types.ts';
import { listRequirementGraces as listGraces } from '../services/onboarding/grace.ts';

/** GET /v1/platforms/{platformKey}/onboarding/grace */
export const listRequirementGraces: OperationHandler<'listRequirementGraces'> = async ({ params }, deps) => ({
  status: 200,
  body: await listGraces(deps.db, params.platformKey),
});
