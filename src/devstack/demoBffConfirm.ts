// "Confirm it's you" of the example BFF (demoBff.ts): before something sensitive, the platform
// asks the gateway for a step-up of its session (the kit's stepUp: POST /v1/auth/step-up, with
// its platform credential) and then decides from the exchange's `authentication` when the person
// comes back.

import type { Session } from '../../packages/platform-kit/src/index.ts';

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

/** The exchange's `authentication`: when and how the person signed in, and what was asked. */
type SignIn = Session['authentication'];

/** How recent a confirmation must be ("Confirm it's you" asks the gateway for a sign-in this fresh). */
export const CONFIRM_MAX_AGE_SECONDS = 60;

/**
 * The account page's "Confirm it's you" button, and what the platform decides from the last
 * sign-in: confirmed when it was a step-up, at most CONFIRM_MAX_AGE_SECONDS old, with a second
 * factor in `amr` (`mfa`, RFC 8176). The gateway refused a login that did not meet the request;
 * the platform still decides for itself, from what the exchange reported.
 */
export function confirmHtml(signIn: SignIn | undefined, basePath: string): string {
  const authTime = signIn?.authTime ? Date.parse(signIn.authTime) : Number.NaN;
  const confirmed = signIn?.requested.stepUp === true && Date.now() - authTime <= CONFIRM_MAX_AGE_SECONDS * 1000 && (signIn.amr ?? []).includes('mfa');
  const when = Number.isNaN(authTime) ? 'at a time the identity provider did not say' : `at <time datetime="${escapeHtml(signIn!.authTime!)}">${escapeHtml(signIn!.authTime!)}</time>`;
  const how = signIn?.amr?.length ? ` (${signIn.amr.map((value) => `<code>${escapeHtml(value)}</code>`).join(', ')})` : '';
  return `<p id="signed-in-at">You signed in ${when}${how}.</p>
${confirmed ? '<p id="confirmed">Confirmed: you signed in again just now, with a second factor. Sensitive changes are open for a minute.</p>' : ''}
<form method="post" action="${escapeHtml(basePath)}/account/confirm"><button type="submit" class="button" id="confirm-its-you">Confirm it's you</button></form>`;
}
