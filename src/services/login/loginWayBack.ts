// The way back from a callback that found no login to finish: the person waited on the
// provider's page longer than the login lives, reloaded a failed callback, or typed the
// callback's address. The browser's own binding cookie of the login (RFC 9700 §4.7.1) carries,
// sealed, which platform and returnTo it was for. Sealed (AES-256-GCM, bound to this purpose
// and the transaction id of the cookie's name), so nobody can write one; and even so nothing
// in it is trusted: the platform is read from the registry and the returnTo re-checked against
// its allowlist of today, so the page never links to a place the registry does not vouch for.
import type { AppDeps } from '../../deps.ts';
import type { KeyRing } from '../../security/crypto.ts';
import type { NextStep } from '../../errors/catalogue.ts';
import { resolveReturnTo } from '../../security/returnTo.ts';
import { findActivePlatformByKey } from '../registry/index.ts';
import { pageBrandOf } from '../../web/platformBrand.ts';

/** What a login was for, as far as its way back needs it. */
export interface LoginTarget {
  platformKey: string;
  /** Null when it was too long to carry (MAX_CARRIED_RETURN_TO): the way back is then the platform's first allowed URL. */
  returnTo: string | null;
  /** The login was bound with a handoff challenge: only the platform can start it again. */
  handoffChallenge: boolean;
}

const bindingAad = (transactionId: string) => `login_binding:target:${transactionId}`;

/**
 * The longest returnTo the cookie carries. A returnTo may be 2,048 characters, and the cookie
 * lives an hour past its login and, under a `__Host-` name (production), goes with every request
 * to the gateway: a few abandoned logins with long returnTos would push a browser's Cookie header
 * past a proxy's limit (8 KiB is common) and lock the person out of the gateway for that hour.
 */
const MAX_CARRIED_RETURN_TO = 256;

/** The binding cookie's value: the secret (its digest is stored), then the sealed target. */
export function bindingCookieValue(keyRing: KeyRing, transactionId: string, secret: string, target: LoginTarget): string {
  const carried = { ...target, returnTo: target.returnTo !== null && target.returnTo.length <= MAX_CARRIED_RETURN_TO ? target.returnTo : null };
  return `${secret}.${keyRing.seal(JSON.stringify(carried), bindingAad(transactionId))}`;
}

/** The secret of a binding cookie (base64url, so no "."); a cookie set before the target was added is the secret alone. */
export function bindingSecret(value: string): string {
  const dot = value.indexOf('.');
  return dot < 0 ? value : value.slice(0, dot);
}

/** The sealed target of a binding cookie, or undefined when it has none or it does not open (tampered, another login's, a retired key). */
export function openBindingTarget(keyRing: KeyRing, transactionId: string, value: string): LoginTarget | undefined {
  const dot = value.indexOf('.');
  if (dot < 0) return undefined;
  try {
    const target = JSON.parse(keyRing.open(value.slice(dot + 1), bindingAad(transactionId))) as Partial<LoginTarget>;
    if (typeof target.platformKey !== 'string') return undefined;
    return { platformKey: target.platformKey, returnTo: typeof target.returnTo === 'string' ? target.returnTo : null, handoffChallenge: target.handoffChallenge === true };
  } catch {
    return undefined;
  }
}

/**
 * "Start again" (a fresh GET /v1/auth/start for the platform and the re-checked returnTo) or,
 * when the gateway cannot start it, "Back to <platform>": a platform that requires a handoff
 * challenge (or whose login carried one) must start the login from its back end, which alone
 * keeps the verifier; so the person goes back to the re-checked returnTo, or the platform's
 * first allowed return URL when the returnTo is no longer allowed. Undefined when the platform
 * is unknown or inactive, or the registry cannot be read (the page then only explains).
 */
export async function wayBack(deps: AppDeps, target: LoginTarget): Promise<NextStep | undefined> {
  const platform = await findActivePlatformByKey(deps.db, target.platformKey).catch(() => undefined);
  if (!platform) return undefined;
  const checked = target.returnTo === null ? undefined : resolveReturnTo(target.returnTo, platform.allowedReturnUrls);
  const returnTo = checked?.ok ? checked.url : undefined;
  if (returnTo && !platform.handoffChallengeRequired && !target.handoffChallenge) {
    const start = new URL('/v1/auth/start', deps.config.publicBaseUrl);
    start.searchParams.set('platformKey', platform.platformKey);
    start.searchParams.set('returnTo', returnTo.href);
    return { label: { key: 'startAgain' }, href: start, brand: pageBrandOf(platform) };
  }
  const first = platform.allowedReturnUrls[0];
  const back = returnTo ?? (first && URL.canParse(first) ? new URL(first) : undefined);
  return back ? { label: { key: 'backTo', platform: platform.displayName }, href: back, brand: pageBrandOf(platform) } : undefined;
}

/**
 * The way back named by the first of this browser's binding cookies whose target opens. One
 * registry read at most, whatever the request carries: the callback without a state that asks
 * for it is refused before the callback's rate limit is counted.
 */
export async function wayBackFromCookies(deps: AppDeps, cookies: readonly (readonly [transactionId: string, value: string])[]): Promise<NextStep | undefined> {
  for (const [transactionId, value] of cookies) {
    const target = openBindingTarget(deps.keyRing, transactionId, value);
    if (target) return wayBack(deps, target);
  }
  return undefined;
}
