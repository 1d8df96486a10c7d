// "Confirm it's you" of the example BFF (demoBff.ts): before something sensitive, the platform
// asks the gateway for a step-up of its session (POST /v1/auth/step-up, with its platform
// credential) and then decides from the exchange's `authentication` when the person comes back.

import { createHash, randomBytes } from 'node:crypto';

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

/** The exchange's `authentication`: when and how the person signed in, and what was asked. */
export interface SignIn {
  authTime: string | null;
  amr: string[] | null;
  requested: { maxAge: number | null; secondFactor: boolean; stepUp: boolean };
}

/** How recent a confirmation must be ("Confirm it's you" asks the gateway for a sign-in this fresh). */
const CONFIRM_MAX_AGE_SECONDS = 60;

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

/**
 * The step-up's start URL, asked for a sign-in at most CONFIRM_MAX_AGE_SECONDS old with a second
 * factor, returning to `returnTo`; with a fresh handoff verifier, whose challenge goes with it (the
 * BFF keeps the verifier in its callback cookie, as for any login).
 */
export async function requestStepUp(
  gatewayUrl: string,
  cookieName: string,
  platformCredential: string,
  returnTo: string,
): Promise<{ url: string; verifier: string } | { problem: string }> {
  const verifier = randomBytes(32).toString('base64url');
  const response = await fetch(new URL('/v1/auth/step-up', gatewayUrl), {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Cookie: `${cookieName}=${platformCredential}` },
    body: JSON.stringify({
      returnTo,
      maxAge: CONFIRM_MAX_AGE_SECONDS,
      requireSecondFactor: true,
      handoffChallenge: createHash('sha256').update(verifier).digest('base64url'),
    }),
  }).catch(() => null);
  const body = response ? ((await response.json().catch(() => null)) as { url?: string; title?: string } | null) : null;
  if (!response?.ok || !body?.url) return { problem: body?.title ?? 'The gateway could not be reached.' };
  return { url: body.url, verifier };
}
