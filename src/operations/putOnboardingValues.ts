import type { OperationHandler } from '../api/types.ts';
import { putValues } from '../services/onboarding/userOnboarding.ts';

/** PUT /v1/onboarding/{platformKey}/values: validated on the server; a failing write changes nothing. */
export const putOnboardingValues: OperationHandler<'putOnboardingValues'> = async ({ params, principal, body }, deps) => ({
  status: 200,
  body: await putValues(deps.db, params.platformKey, principal!, body.values, body.acceptShared ?? []),
});
