// The example BFF's HTML (src/devstack/demoBff.ts): the page frame, the signed-in person, and
// the page of a sign-in that could not finish.
import type { Session, SignInFailure } from '../../packages/platform-kit/src/index.ts';
import { escapeHtml, htmlPage } from '../web/page.ts';

/** The part of GET /v1/me the pages show. */
export interface Person {
  displayName: string | null;
  email: string | null;
  pictureUrl: string | null;
}

export { escapeHtml };

/** Who signed in: the person's name, e-mail and picture (never the credential). */
export function personHtml(session: Session): string {
  // From GET /v1/me at sign-in (demoBff.ts, onSignIn); null when the gateway could not say.
  const person = session.data.person as Person | null;
  const name = person?.displayName ?? session.user.sub;
  const picture = person?.pictureUrl
    ? `<img class="avatar" src="${escapeHtml(person.pictureUrl)}" alt="" width="48" height="48">`
    : `<span class="avatar" aria-hidden="true">${escapeHtml(name.slice(0, 1).toUpperCase())}</span>`;
  const email = person?.email ? ` <span class="email">${escapeHtml(person.email)}</span>` : '';
  return `<span class="person">${picture} <strong class="name">${escapeHtml(name)}</strong>${email}</span>`;
}

/**
 * The account center's look (src/web/page.ts: its colours, system font stack, top bar and card),
 * so a person moving between the platform, the gateway's pages and the account center stays in
 * calm, familiar surroundings. Inline styles only: nothing to load from anywhere.
 */
const BFF_STYLE = `pre{background:var(--canvas);padding:1rem;overflow:auto}
.person{display:inline-flex;align-items:center;gap:.5rem;flex-wrap:wrap}.email{color:var(--ink-soft)}
.avatar{display:inline-flex;width:48px;height:48px;border-radius:50%;background:#dde4f6;align-items:center;justify-content:center;object-fit:cover}
.facts{margin:1rem 0;padding:0;list-style:none}.facts li{padding:.25rem 0;border-bottom:1px solid var(--line)}`;

export function page(title: string, body: string): string {
  return htmlPage(title, body, { brand: 'Demo platform', style: BFF_STYLE });
}

const ONBOARDING_WORDS: Record<string, string> = { NOT_STARTED: 'not started', IN_PROGRESS: 'in progress', GRACE: 'complete for now', COMPLETE: 'complete' };
const PERMISSION_WORDS: Record<string, string> = {
  'platforms:admin': 'Administrator of platforms',
  'onboarding:schema:read': 'Reads onboarding fields',
  'onboarding:schema:write': 'Edits onboarding fields',
};

/** The exchange's onboarding status and permissions, in words a person reads (the raw values stay in the title). */
export function accessHtml(session: Session): string {
  // GRACE (issue 36): let through until the date of a change; the demo says until when.
  const until = session.onboarding.status === 'GRACE' && session.onboarding.graceUntil ? ` (more is needed from ${session.onboarding.graceUntil})` : '';
  const onboarding = `${ONBOARDING_WORDS[session.onboarding.status] ?? session.onboarding.status}${until}`;
  const permissions = session.permissions.length === 0
    ? 'none'
    : session.permissions.map((permission) => `<span title="${escapeHtml(permission)}">${escapeHtml(PERMISSION_WORDS[permission] ?? permission)}</span>`).join(', ');
  return `<ul class="facts"><li id="onboarding">Onboarding: ${escapeHtml(onboarding)}</li><li id="permissions">Permissions: ${permissions}</li></ul>`;
}

/** A sign-in that could not finish (the kit says why), in the BFF's look, with its way forward ("Start again", or "Try again" for a confirmation). */
export function failureHtml(failure: SignInFailure): string {
  const code = failure.code ? ` (<code>${escapeHtml(failure.code)}</code>)` : '';
  const id = failure.reason === 'no-login' || failure.reason === 'expired' ? ' id="no-verifier"' : '';
  return page('Sign-in failed', `<h1>Sign-in failed</h1><p${id}>${escapeHtml(failure.message)}${code}</p>
<p><a class="button" href="${escapeHtml(failure.startAgain)}">${escapeHtml(failure.label)}</a></p>`);
}
