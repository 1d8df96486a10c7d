import type { OperationHandler } from '../api/types.ts';
import { issueSignOutToken } from '../services/sessions/signOut.ts';

/** POST /v1/auth/logout/token: a platform's back end (or the account center) gets the proof for a one-step sign-out. */
export const createSignOutToken: OperationHandler<'createSignOutToken'> = async ({ principal }, deps) => ({
  status: 200,
  body: issueSignOutToken(deps, principal),
  headers: { 'Cache-Control': 'no-store' },
});
