import type { OperationHandler } from '../api/types.ts';
import { clearSessionCookie } from '../api/cookies.ts';
import { confirmSignOut as signOut } from '../services/sessions/signOut.ts';

/** POST /v1/auth/logout/confirm: the person confirmed on the gateway's page (origin checked before this runs). */
export const confirmSignOut: OperationHandler<'confirmSignOut'> = async ({ query, principal, res }, deps) => {
  const location = await signOut(deps, principal, { platformKey: query.platformKey, returnTo: query.returnTo });
  clearSessionCookie(res, deps.config);
  return { status: 303, location, headers: { 'Cache-Control': 'no-store' } };
};
