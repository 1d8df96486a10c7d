import type { OperationHandler } from '../api/types.ts';
import { clearSessionCookie } from '../api/cookies.ts';
import { signOutBrowser as signOut } from '../services/sessions/signOut.ts';

/** GET /v1/auth/logout: a platform sends the browser here to sign the person out. */
export const signOutBrowser: OperationHandler<'signOutBrowser'> = async ({ query, principal, res }, deps) => {
  const location = await signOut(deps, principal, { platformKey: query.platformKey, returnTo: query.returnTo });
  clearSessionCookie(res, deps.config);
  return { status: 302, location, headers: { 'Cache-Control': 'no-store' } };
};
