import type { OperationHandler } from '../api/types.ts';
import { ApiError } from '../errors/catalogue.ts';
import { openSignOutState } from '../services/sessions/signOutState.ts';

/** GET /v1/auth/logged-out: back from the identity provider's sign-out, on to the checked returnTo. */
export const finishSignOut: OperationHandler<'finishSignOut'> = async ({ query }, deps) => {
  const returnTo = openSignOutState(deps.keyRing, query.state);
  // The sign-out itself happened before the provider sent the browser here: only the way back is lost.
  if (!returnTo) {
    throw new ApiError('VALIDATION_FAILED', 'The address to return to after signing out was missing or has expired: go back to the application you came from.', {
      pageTitle: 'signedOut',
    });
  }
  return { status: 302, location: returnTo, headers: { 'Cache-Control': 'no-store' } };
};
