import type { OperationHandler } from '../api/types.ts';
import { ApiError } from '../errors/catalogue.ts';
import { resumeLogin } from '../services/login/loginFlow.ts';

/** GET /v1/auth/resume: the account center sends the browser back after central onboarding. */
export const resumeAuthentication: OperationHandler<'resumeAuthentication'> = async ({ query, principal }, deps) => {
  if (!principal) throw new ApiError('UNAUTHENTICATED', 'Resume needs the gateway session cookie.');
  const location = await resumeLogin(deps, principal, query.transaction);
  return { status: 302, location, headers: { 'Cache-Control': 'no-store' } };
};
