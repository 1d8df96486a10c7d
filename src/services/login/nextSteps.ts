// The way forward a refused callback or resume shows on its page (errors' nextStep): start the
// same login again, or back to the platform, in the platform's face.
import type { AppDeps } from '../../deps.ts';
import { ApiError, type NextStep } from '../../errors/catalogue.ts';
import { isDatabaseUnavailable } from '../../db/errors.ts';
import type { PlatformRow } from '../registry/index.ts';
import { pageBrandOf } from '../../web/platformBrand.ts';
import { startParameters, type AuthenticationRequest } from './freshSignIn.ts';

/**
 * "Start again" after a refused callback or resume: a fresh login for the same platform and
 * returnTo. A platform that bound its login with a handoff challenge must start it itself
 * (only it holds the verifier), so the person goes back to its returnTo, which starts one.
 */
export function startAgain(
  deps: AppDeps,
  tx: { platformKey: string; returnTo: string; handoffChallenge: string | null; authentication?: AuthenticationRequest; platform?: PlatformRow },
): NextStep {
  // The page of a login whose platform the statement read shows the platform's face (issue 27).
  const brand = tx.platform ? { brand: pageBrandOf(tx.platform) } : {};
  // Named "Back to …", not "Start again": the person lands on the platform, which starts the login.
  if (tx.handoffChallenge) return { label: tx.platform ? { key: 'backTo', platform: tx.platform.displayName } : { key: 'backToApplication' }, href: new URL(tx.returnTo), ...brand };
  const start = new URL('/v1/auth/start', deps.config.publicBaseUrl);
  start.searchParams.set('platformKey', tx.platformKey);
  start.searchParams.set('returnTo', tx.returnTo);
  // The same request again (never a weaker login than the platform asked for).
  if (tx.authentication) {
    for (const [name, value] of Object.entries(startParameters(deps.keyRing, tx.platformKey, tx.authentication, deps.config.authTransactionTtlSeconds, null))) {
      start.searchParams.set(name, value);
    }
  }
  return { label: { key: 'startAgain' }, href: start, ...brand };
}


/** "Back to <platform>": its first allowed return URL, the one place of it the registry vouches for. */
export function backToPlatform(platform: PlatformRow): NextStep | undefined {
  const first = platform.allowedReturnUrls[0];
  return first && URL.canParse(first) ? { label: { key: 'backTo', platform: platform.displayName }, href: new URL(first), brand: pageBrandOf(platform) } : undefined;
}


/**
 * The error as the page should show it, with `nextStep` as its way forward. An error that
 * already names one keeps it; a database outage becomes its 503 here, because the way
 * forward is only known here.
 */
export function withNextStep(error: unknown, nextStep: NextStep | undefined): unknown {
  if (!nextStep) return error;
  if (error instanceof ApiError) {
    if (error.nextStep) return error;
    return new ApiError(error.code, error.detail, { ...(error.errors ? { errors: error.errors } : {}), ...(error.headers ? { headers: error.headers } : {}), cause: error.cause, nextStep });
  }
  if (isDatabaseUnavailable(error)) return new ApiError('DATABASE_UNAVAILABLE', undefined, { cause: error, nextStep });
  return error;
}

