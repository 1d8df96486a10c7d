import type { OperationHandler } from '../api/types.ts';
import { clearSessionCookie } from '../api/cookies.ts';
import { signOut as endSession } from '../services/sessions/signOut.ts';

/** POST /v1/auth/logout: the account center or a platform back end ends the session. */
export const signOut: OperationHandler<'signOut'> = async ({ principal, res }, deps) => {
  await endSession(deps, principal);
  if (!principal || principal.via === 'session') clearSessionCookie(res, deps.config);
  return { status: 204 };
};
