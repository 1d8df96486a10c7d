import type { AppDeps } from '../../deps.ts';
import type { Principal } from '../../domain/types.ts';
import { findActivePlatformByKey } from '../../db/repositories/platforms.ts';
import { findSessionIdToken } from '../../db/repositories/sessions.ts';
import { ApiError } from '../../errors/catalogue.ts';
import { requireReturnTo } from '../../security/returnTo.ts';
import { idTokenAad } from './create.ts';
import { endSessions } from './ending.ts';
import { signSignOutState } from './signOutState.ts';

/** The fixed post_logout_redirect_uri registered at the identity provider. */
export const signedOutPath = '/v1/auth/logged-out';

/**
 * What a sign-out ends: the session behind the credential and every other live session of that
 * person from the same sign-in at the provider (same `sid`). Each login makes its own gateway
 * session, so a browser signed in to two platforms holds two; signing out at one must end both
 * (and tell both platforms), as the provider's own session ends with it.
 */
const sessionsOfSignIn = (sessionId: string) => ({ sameSignInAs: sessionId });

/**
 * POST /v1/auth/logout: ends the sessions of the caller's sign-in (through the browser's own
 * session, or the one a platform credential was derived from). Harmless without one.
 */
export async function signOut(deps: Pick<AppDeps, 'db'>, principal: Principal | null): Promise<void> {
  if (!principal?.session || principal.via === 'bearer') return;
  await endSessions(deps.db, sessionsOfSignIn(principal.session.id), 'sign_out');
}

/**
 * GET /v1/auth/logout: `returnTo` checked as at start, the browser's session ended, then the
 * identity provider's end-session endpoint (with the login's ID token as the hint) or straight
 * to `returnTo`.
 */
export async function signOutBrowser(deps: AppDeps, principal: Principal | null, input: { platformKey: string; returnTo: string }): Promise<URL> {
  const platform = await findActivePlatformByKey(deps.db, input.platformKey);
  if (!platform) throw new ApiError('PLATFORM_NOT_FOUND', `No active platform has the key ${input.platformKey}.`);
  const returnTo = requireReturnTo(input.returnTo, platform.allowedReturnUrls);
  const session = principal?.via === 'session' ? principal.session : null;
  if (!session) return returnTo;

  const sealed = await findSessionIdToken(deps.db, session.id);
  await endSessions(deps.db, sessionsOfSignIn(session.id), 'sign_out');
  const endSession = await deps.oidc?.endSessionUrl({
    idTokenHint: sealed ? deps.keyRing.open(sealed, idTokenAad(session.id)) : null,
    postLogoutRedirectUri: `${deps.config.publicBaseUrl}${signedOutPath}`,
    state: signSignOutState(deps.keyRing, returnTo),
  }).catch(() => null); // the provider unreachable: the gateway session has ended; go home
  return endSession ?? returnTo;
}
