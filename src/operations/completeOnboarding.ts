import type { OperationHandler } from '../api/types.ts';
import { completeOnboarding as complete } from '../services/onboarding/userOnboarding.ts';

/** POST /v1/onboarding/{platformKey}/complete: COMPLETE only when nothing required is missing. */
export const completeOnboarding: OperationHandler<'completeOnboarding'> = async ({ params, principal }, deps) => ({
  status: 200,
  body: await complete(deps.db, params.platformKey, principal!),
});
