import type { OperationHandler } from '../api/types.ts';
import { getRequirements } from '../services/onboarding/userOnboarding.ts';

/** GET /v1/onboarding/{platformKey}/requirements: the active definitions with the caller's current values. */
export const getOnboardingRequirements: OperationHandler<'getOnboardingRequirements'> = async ({ params, principal }, deps) => ({
  status: 200,
  body: await getRequirements(deps.db, params.platformKey, principal!),
});
