import { NavLink, Outlet } from 'react-router';
import type { MouseEvent } from 'react';
import { useIntl } from '../i18n/useIntl.ts';
import { hasPermission, oneStepSignOutUrl, signInUrl, signOutUrl, useSession } from '../session.tsx';
import { LanguageSwitcher } from './LanguageSwitcher.tsx';
import { UpdatedAgreementsNotice } from '../documents/UpdatedAgreementsNotice.tsx';

/** The frame of every page: the product name, the navigation, the language, sign-in or sign-out, the content. */
export function Layout() {
  const { me, config, api } = useSession();
  const intl = useIntl();
  // A plain click signs out in one step (with a sign-out token); a click for a new tab, or no
  // script, follows the plain link, and the gateway asks the person to confirm.
  const signOut = (event: MouseEvent<HTMLAnchorElement>) => {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    void oneStepSignOutUrl(api, config).then((url) => window.location.assign(url));
  };
  const canAdminister = hasPermission(me, 'platforms:admin');
  const canEditSchemas = hasPermission(me, 'onboarding:schema:read');
  return (
    <div className="app">
      <a className="skip-link" href="#main">{intl.formatMessage({ id: 'layout.skipToContent' })}</a>
      <header className="topbar">
        <a className="brand" href="/">{intl.formatMessage({ id: 'layout.productName' })}</a>
        <nav aria-label={intl.formatMessage({ id: 'layout.mainNavigation' })}>
          <ul>
            {me ? <li><NavLink to="/profile">{intl.formatMessage({ id: 'layout.nav.profile' })}</NavLink></li> : null}
            {me ? <li><NavLink to="/sessions">{intl.formatMessage({ id: 'layout.nav.sessions' })}</NavLink></li> : null}
            {me ? <li><NavLink to="/agreements">{intl.formatMessage({ id: 'agreements.nav' })}</NavLink></li> : null}
            {me ? <li><NavLink to="/data">{intl.formatMessage({ id: 'dataRights.nav' })}</NavLink></li> : null}
            {me ? <li><NavLink to="/support-access">{intl.formatMessage({ id: 'supportAccess.nav' })}</NavLink></li> : null}
            {canAdminister ? <li><NavLink to="/admin/platforms">{intl.formatMessage({ id: 'layout.nav.platforms' })}</NavLink></li> : null}
            {canEditSchemas ? <li><NavLink to="/admin/onboarding">{intl.formatMessage({ id: 'layout.nav.onboardingForms' })}</NavLink></li> : null}
            {canEditSchemas ? <li><NavLink to="/admin/documents">{intl.formatMessage({ id: 'documents.nav' })}</NavLink></li> : null}
            {hasPermission(me, 'support:access') ? <li><NavLink to="/admin/support">{intl.formatMessage({ id: 'supportAccess.operator.nav' })}</NavLink></li> : null}
          </ul>
        </nav>
        <div className="account">
          <LanguageSwitcher />
          {me ? (
            <>
              <span className="account-name">{me.user.displayName ?? me.user.email ?? intl.formatMessage({ id: 'layout.signedIn' })}</span>
              {/* A whole-page navigation: the gateway ends the session, the provider's too, then
                  sends the browser to /signed-out. Nothing of this page's state survives it. */}
              <a className="button button-secondary" href={signOutUrl(config)} onClick={signOut}>{intl.formatMessage({ id: 'layout.signOut' })}</a>
            </>
          ) : me === null ? (
            <a className="button" href={signInUrl('/profile')}>{intl.formatMessage({ id: 'layout.signIn' })}</a>
          ) : null}
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        <UpdatedAgreementsNotice />
        <Outlet />
      </main>
    </div>
  );
}
