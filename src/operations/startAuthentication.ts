import type { OperationHandler } from '../api/types.ts';
import { startLogin } from '../services/loginFlow.ts';

/** GET /v1/auth/start: a platform BFF sends the browser here to log in or register. */
export const startAuthentication: OperationHandler<'startAuthentication'> = async ({ query }, deps) => {
  const location = await startLogin(deps, {
    platformKey: query.platformKey,
    returnTo: query.returnTo,
    ...(query.onboardingMode ? { onboardingMode: query.onboardingMode } : {}),
  });
  return { status: 302, location, headers: { 'Cache-Control': 'no-store' } };
};
