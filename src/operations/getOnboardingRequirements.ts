import type { OperationHandler } from '../api/types.ts';
import { getRequirements } from '../services/onboarding/userOnboarding.ts';
import { negotiateLanguage } from '../web/i18n.ts';

/** GET /v1/onboarding/{platformKey}/requirements: the active definitions with the caller's current values, in the caller's language. */
export const getOnboardingRequirements: OperationHandler<'getOnboardingRequirements'> = async ({ params, query, principal, req }, deps) => ({
  status: 200,
  body: await getRequirements(deps.db, params.platformKey, principal!, {
    explicit: 'language' in query ? query.language : undefined,
    acceptLanguage: (available) => negotiateLanguage(req, available),
  }),
});
