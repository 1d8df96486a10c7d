import type { AppDeps } from '../../deps.ts';
import type { Principal } from '../../domain/types.ts';
import { findActivePlatformByKey, type PlatformRow } from '../registry/index.ts';
import { findSessionIdToken } from './repository.ts';
import { ApiError } from '../../errors/catalogue.ts';
import { requireReturnTo } from '../../security/returnTo.ts';
import { idTokenAad } from './create.ts';
import { endSessions } from './ending.ts';
import { openSignOutToken, signSignOutState, signSignOutToken } from './signOutState.ts';

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
 * POST /v1/auth/logout/token: the proof that lets GET /v1/auth/logout sign out without asking.
 * Bound to the caller's session, and to its platform when a platform's credential asks.
 */
export function issueSignOutToken(deps: Pick<AppDeps, 'keyRing'>, principal: Principal | null): { signOutToken: string; expiresAt: string } {
  if (!principal?.session || principal.via === 'bearer') throw new ApiError('UNAUTHENTICATED', 'A sign-out token needs a gateway session: the browser cookie or a platform credential.');
  const { token, expiresAt } = signSignOutToken(deps.keyRing, { sessionId: principal.session.id, platformKey: principal.platform?.key ?? null });
  return { signOutToken: token, expiresAt: expiresAt.toISOString() };
}

/** What GET /v1/auth/logout does: redirect (having signed out or with nothing to do), or ask the person. */
export type BrowserSignOut =
  | { kind: 'redirect'; location: URL; signedOut: boolean }
  | { kind: 'confirm'; platform: Pick<PlatformRow, 'platformKey' | 'displayName'>; returnTo: URL };

/**
 * GET /v1/auth/logout: `returnTo` checked as at start. A GET is what any page can make a browser
 * send (a link, an image), so it signs the person out only with a proof that the platform asked
 * (OpenID RP-Initiated Logout 1.0 §2 and §6: an unverified logout request is confirmed by the
 * person first): a sign-out token for a session of the same sign-in as the browser's. The token
 * is spent by ending that sign-in (single use: its session no longer lives afterwards). Without
 * a proof, a browser with a live session is asked to confirm (nothing changes); without a
 * session, it goes straight to `returnTo`.
 */
export async function signOutBrowser(
  deps: AppDeps,
  principal: Principal | null,
  input: { platformKey: string; returnTo: string; signOutToken?: string },
): Promise<BrowserSignOut> {
  const { platform, returnTo } = await checkedTarget(deps, input);
  const session = browserSession(principal);
  const proof = input.signOutToken ? openSignOutToken(deps.keyRing, input.signOutToken) : null;
  if (proof && (proof.platformKey === null || proof.platformKey === platform.platformKey)) {
    // The platform asked for its session's sign-out (what its credential may already do with
    // POST /v1/auth/logout): that sign-in ends, whichever browser brings the token, so a leaked
    // token can only do what was asked. This browser goes on through the provider only when its
    // own session was of that sign-in; any other browser keeps its own session.
    const ended = await endSessions(deps.db, sessionsOfSignIn(proof.sessionId), 'sign_out');
    if (session && ended.includes(session.id)) return { kind: 'redirect', location: await throughProvider(deps, session.id, returnTo), signedOut: true };
  }
  if (!session) return { kind: 'redirect', location: returnTo, signedOut: false };
  return { kind: 'confirm', platform, returnTo };
}

/**
 * POST /v1/auth/logout/confirm: the confirmation page's button (origin checked like every
 * cookie-authenticated write, src/api/security.ts). Ends the browser's sign-in, then the
 * identity provider's end-session, then `returnTo`.
 */
export async function confirmSignOut(deps: AppDeps, principal: Principal | null, input: { platformKey: string; returnTo: string }): Promise<URL> {
  const { returnTo } = await checkedTarget(deps, input);
  const session = browserSession(principal);
  if (!session) return returnTo;
  await endSessions(deps.db, sessionsOfSignIn(session.id), 'sign_out');
  return throughProvider(deps, session.id, returnTo);
}

async function checkedTarget(deps: AppDeps, input: { platformKey: string; returnTo: string }): Promise<{ platform: PlatformRow; returnTo: URL }> {
  const platform = await findActivePlatformByKey(deps.db, input.platformKey);
  if (!platform) throw new ApiError('PLATFORM_NOT_FOUND', `No active platform has the key ${input.platformKey}.`);
  return { platform, returnTo: requireReturnTo(input.returnTo, platform.allowedReturnUrls) };
}

const browserSession = (principal: Principal | null) => (principal?.via === 'session' ? principal.session : null);

/**
 * The identity provider's end-session endpoint (RP-Initiated Logout 1.0 §2, with the login's ID
 * token as `id_token_hint`), coming back to `returnTo` through /v1/auth/logged-out; straight to
 * `returnTo` without one.
 */
async function throughProvider(deps: AppDeps, sessionId: string, returnTo: URL): Promise<URL> {
  const sealed = await findSessionIdToken(deps.db, sessionId);
  const endSession = await deps.oidc?.endSessionUrl({
    idTokenHint: sealed ? deps.keyRing.open(sealed, idTokenAad(sessionId)) : null,
    postLogoutRedirectUri: `${deps.config.publicBaseUrl}${signedOutPath}`,
    state: signSignOutState(deps.keyRing, returnTo),
  }).catch(() => null); // the provider unreachable: the gateway session has ended; go home
  return endSession ?? returnTo;
}
