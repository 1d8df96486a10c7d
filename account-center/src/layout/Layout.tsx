import { NavLink, Outlet } from 'react-router';
import type { MouseEvent } from 'react';
import { hasPermission, oneStepSignOutUrl, signInUrl, signOutUrl, useSession } from '../session.tsx';

/** The frame of every page: the product name, the navigation, sign-in or sign-out, the content. */
export function Layout() {
  const { me, config, api } = useSession();
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
      <a className="skip-link" href="#main">Skip to content</a>
      <header className="topbar">
        <a className="brand" href="/">Account center</a>
        <nav aria-label="Main">
          <ul>
            {me ? <li><NavLink to="/profile">Profile</NavLink></li> : null}
            {me ? <li><NavLink to="/sessions">Sessions</NavLink></li> : null}
            {canAdminister ? <li><NavLink to="/admin/platforms">Platforms</NavLink></li> : null}
            {canEditSchemas ? <li><NavLink to="/admin/onboarding">Onboarding forms</NavLink></li> : null}
          </ul>
        </nav>
        <div className="account">
          {me ? (
            <>
              <span className="account-name">{me.user.displayName ?? me.user.email ?? 'Signed in'}</span>
              {/* A whole-page navigation: the gateway ends the session, the provider's too, then
                  sends the browser to /signed-out. Nothing of this page's state survives it. */}
              <a className="button button-secondary" href={signOutUrl(config)} onClick={signOut}>Sign out</a>
            </>
          ) : me === null ? (
            <a className="button" href={signInUrl('/profile')}>Sign in</a>
          ) : null}
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        <Outlet />
      </main>
    </div>
  );
}
