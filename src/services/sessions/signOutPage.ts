import type { PlatformRow } from '../registry/index.ts';

import { escapeHtml, htmlPage } from '../../web/page.ts';
import { pageIntl, type PageLanguage } from '../../web/i18n.ts';

/**
 * The page GET /v1/auth/logout answers when nothing proves that the person or their platform
 * asked to sign out (OpenID RP-Initiated Logout 1.0 §6: a logout request that may come from
 * anyone is confirmed by the person). Its button POSTs to /v1/auth/logout/confirm with the same
 * `platformKey` and `returnTo`: a relative action ("logout/confirm" from /v1/auth/logout), so the
 * form stays on the gateway's own origin (CSP form-action 'self') under any path prefix. No script.
 * Cancel goes back to the platform's site (the origin of its checked `returnTo`).
 */
export function signOutConfirmationPage(platform: Pick<PlatformRow, 'platformKey' | 'displayName'>, returnTo: URL, language: PageLanguage = 'en'): string {
  const intl = pageIntl(language);
  // Messages are formatted with the plain name and escaped whole: a platform's name is never markup.
  const say = (id: string) => escapeHtml(intl.formatMessage({ id }, { platform: platform.displayName }));
  const action = `logout/confirm?${new URLSearchParams({ platformKey: platform.platformKey, returnTo: returnTo.href })}`;
  return htmlPage(
    intl.formatMessage({ id: 'signOut.title' }, { platform: platform.displayName }),
    `<h1 id="sign-out-title">${say('signOut.title')}</h1>
<p class="lead">${say('signOut.lead')}</p>
<p>${say('signOut.why')}</p>
<form method="post" action="${escapeHtml(action)}" aria-labelledby="sign-out-title" class="actions">
<button type="submit" id="confirm-sign-out" class="button">${say('signOut.confirm')}</button>
<a class="button button-secondary" href="${escapeHtml(new URL('/', returnTo).href)}">${say('signOut.cancel')}</a>
</form>`,
    { language },
  );
}

/**
 * The page's Content-Security-Policy: the gateway's own (src/app.ts: nothing loads, no script),
 * but for form-action. The form posts only to the gateway ('self'); browsers also hold the
 * redirects that follow a form's POST to form-action (Chromium does), and the confirmed sign-out
 * goes on to the identity provider's end-session endpoint and back to `returnTo`: their origins.
 */
export function signOutConfirmationPolicy(redirectOrigins: readonly string[]): string {
  const origins = [...new Set(redirectOrigins)].join(' ');
  return `default-src 'none';style-src 'unsafe-inline';img-src 'self';frame-ancestors 'none';base-uri 'none';form-action 'self' ${origins}`;
}
