import type { OperationHandler, Reply } from '../api/types.ts';
import { clearSessionCookie } from '../api/cookies.ts';
import { signOutBrowser as signOut } from '../services/sessions/signOut.ts';
import { signOutConfirmationPage, signOutConfirmationPolicy } from '../services/sessions/signOutPage.ts';
import { pageLanguageOf } from '../web/i18n.ts';

/**
 * GET /v1/auth/logout: a platform sends the browser here to sign the person out. With the
 * platform's sign-out token, at once; without one, the person confirms first (a page that
 * changes nothing, no cookie included).
 */
export const signOutBrowser: OperationHandler<'signOutBrowser'> = async ({ query, principal, req, res }, deps) => {
  const outcome = await signOut(deps, principal, { platformKey: query.platformKey, returnTo: query.returnTo, signOutToken: query.signOutToken });
  if (outcome.kind === 'confirm') {
    const language = pageLanguageOf(req);
    const page: Reply<'signOutBrowser'> = {
      status: 200,
      contentType: 'text/html',
      bytes: Buffer.from(signOutConfirmationPage(outcome.platform, outcome.returnTo, language), 'utf8'),
      // same-origin: the page's form POST then carries the gateway's Origin (under no-referrer a
      // browser sends `Origin: null`, Fetch §3.1); nothing is sent to other origins.
      headers: {
        'Cache-Control': 'no-store',
        // In the language Accept-Language asks for (RFC 9110 §12.5.5, §6.5.4).
        'Content-Language': language,
        Vary: 'Accept-Language',
        'Referrer-Policy': 'same-origin',
        'Content-Security-Policy': signOutConfirmationPolicy([...(deps.oidc ? [new URL(deps.oidc.issuer).origin] : []), outcome.returnTo.origin]),
      },
    };
    return page;
  }
  if (outcome.signedOut) clearSessionCookie(res, deps.config);
  return { status: 302, location: outcome.location, headers: { 'Cache-Control': 'no-store' } };
};
