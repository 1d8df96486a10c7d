import type { OperationHandler } from '../api/types.ts';
import { createStepUpLogin as stepUpLogin } from '../services/login/stepUp.ts';

/** POST /v1/auth/step-up: a platform back end asks for a fresh sign-in of its session's person. */
export const createStepUpLogin: OperationHandler<'createStepUpLogin'> = async ({ body, principal }, deps) => ({
  status: 200,
  body: await stepUpLogin(deps, principal!, body),
  headers: { 'Cache-Control': 'no-store' },
});
