import type { OperationHandler } from '../api/types.ts';
import { getStatus } from '../services/onboarding/userOnboarding.ts';

/** GET /v1/onboarding/{platformKey}/status: the caller's status, calculated now. */
export const getOnboardingStatus: OperationHandler<'getOnboardingStatus'> = async ({ params, principal }, deps) => ({
  status: 200,
  body: await getStatus(deps.db, params.platformKey, principal!),
});
