// A step-up ("Confirm it's you") as the kit checks it: what it asked is sealed into the login's
// cookie (logins.ts), and at the callback, after the exchange, the exchange's `authentication`
// must meet it field by field. The browser carries the start URL, so it can change it: someone at
// an unlocked, signed-in browser who removes `stepUp=` from the address gets a plain single
// sign-on, no password and no second factor. The gateway refuses such a start (a step-up's
// handoff challenge without its token: 400 STEP_UP_TOKEN_MISSING); the kit does not rely on it
// alone, and never takes an exchange weaker than what it asked for a confirmation.
import type { Exchanged } from './client.ts';

/** What a step-up asked, as the gateway applies it (POST /v1/auth/step-up). */
export interface StepUpAsked {
  /** The person of the session that asked: only they may confirm. */
  sub: string;
  /** The sign-in must be at most this many seconds old when the step-up starts (OIDC `max_age`). */
  maxAge: number | null;
  /** A sign-in now, whatever the provider's session (OIDC `prompt=login`). */
  forceLogin: boolean;
  secondFactor: boolean;
}

/**
 * Clock skew allowed between the identity provider (which writes `auth_time`) and this back end
 * (which wrote the login's start time): their clocks are apart by however much they drift, and a
 * check stricter than the gateway's would refuse a confirmation the gateway accepted and the
 * person did right. The gateway allows the same 30 s against its own start time, which comes
 * after this back end's (the browser reaches the gateway after the kit sealed the cookie), so
 * whatever the gateway accepts, this accepts too. A sign-in up to half a minute before a forced
 * one is close enough to "now" to stand for it.
 */
export const CLOCK_SKEW_SECONDS = 30;

/** What a step-up asks, given its options: like the gateway, one that asks nothing else forces a sign-in. */
export function stepUpAsked(sub: string, options: { maxAge?: number; forceLogin?: boolean; requireSecondFactor?: boolean }): StepUpAsked {
  const asksNothing = options.maxAge === undefined && !options.forceLogin && !options.requireSecondFactor;
  return { sub, maxAge: options.maxAge ?? null, forceLogin: options.forceLogin === true || asksNothing, secondFactor: options.requireSecondFactor === true };
}

/**
 * Why the exchange does not meet what the step-up asked (a sentence for the person), or
 * undefined when it does. `startedAt`: when the kit started the step-up (seconds), the instant
 * OIDC's `max_age` is measured from (Core 1.0 §3.1.2.1: the time since the person last actively
 * authenticated, when the request is made). Each field:
 * - the step-up itself: `requested.stepUp` (the gateway then made sure only its person
 *   completed it), and the same person as the session that asked;
 * - a second factor: `requested.secondFactor` (the gateway refuses a login whose `amr` shows
 *   none of its configured second-factor values, which the kit does not know);
 * - a maximum age: asked no looser (`requested.maxAge` at most ours), and `authTime` within it;
 * - a forced sign-in: asked (`requested.forceLogin`), and `authTime` not before the start.
 */
export function stepUpShortfall(asked: StepUpAsked, exchanged: Pick<Exchanged, 'user' | 'authentication'>, startedAt: number): string | undefined {
  const { requested, authTime } = exchanged.authentication;
  if (!requested.stepUp) return 'The sign-in was not the confirmation this site asked for: part of its address was changed or removed.';
  if (exchanged.user.sub !== asked.sub) return 'Another account confirmed than the one signed in here.';
  if (asked.secondFactor && !requested.secondFactor) return 'The sign-in did not ask for the second factor this site asked for.';
  const signedInAt = authTime === null ? Number.NaN : Date.parse(authTime) / 1000;
  if (asked.maxAge !== null) {
    if (requested.maxAge === null || requested.maxAge > asked.maxAge) return 'The sign-in did not ask for as recent a sign-in as this site asked for.';
    if (!(signedInAt >= startedAt - asked.maxAge - CLOCK_SKEW_SECONDS)) return 'The sign-in is older than this site asked for.';
  }
  if (asked.forceLogin) {
    if (!requested.forceLogin) return 'The sign-in did not ask you to sign in again, as this site asked.';
    if (!(signedInAt >= startedAt - CLOCK_SKEW_SECONDS)) return 'The sign-in happened before this confirmation started.';
  }
  return undefined;
}
