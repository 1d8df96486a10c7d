import { useEffect, type ReactNode } from 'react';
import { Link, useLocation } from 'react-router';
import { hasPermission, signInUrl, useSession, type Permission } from '../session.tsx';
import { LoadState } from '../components/LoadState.tsx';
import { PageTitle } from '../components/PageTitle.tsx';

/**
 * A page that needs a session: without one, the browser goes to the account center's own
 * sign-in and comes back to the page it was on.
 */
export function RequireSession({ children }: { children: ReactNode }) {
  const { me, error, reload } = useSession();
  const location = useLocation();
  useEffect(() => {
    if (me === null && !error) window.location.assign(signInUrl(location.pathname + location.search));
  }, [me, error, location.pathname, location.search]);
  return (
    <LoadState loading={!me} error={error} onRetry={() => void reload()} what="your session">
      {me ? children : null}
    </LoadState>
  );
}

/**
 * A page that needs a permission: without a session, sign in; without the permission, a page
 * that says so (a silent move to the home page looked like a broken link).
 */
export function RequirePermission({ permission, children }: { permission: Permission; children: ReactNode }) {
  const { me } = useSession();
  return (
    <RequireSession>
      {me && !hasPermission(me, permission) ? <Forbidden permission={permission} /> : children}
    </RequireSession>
  );
}

function Forbidden({ permission }: { permission: Permission }) {
  const { me } = useSession();
  const who = me?.user.displayName ?? me?.user.email;
  return (
    <>
      <PageTitle>You need administrator rights for this page</PageTitle>
      <p>
        {who ? `You are signed in as ${who}, ` : 'You are signed in, '}
        but your account does not hold the permission <code>{permission}</code> this page needs.
        Ask an administrator to grant it; it applies from your next sign-in.
      </p>
      <p><Link to="/">Go to the home page</Link></p>
    </>
  );
}
