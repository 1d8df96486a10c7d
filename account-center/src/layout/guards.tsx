import { useEffect, type ReactNode } from 'react';
import { Navigate, useLocation } from 'react-router';
import { hasPermission, signInUrl, useSession, type Permission } from '../session.tsx';
import { LoadState } from '../components/LoadState.tsx';

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

/** A page that needs a permission: without a session, sign in; without the permission, home. */
export function RequirePermission({ permission, children }: { permission: Permission; children: ReactNode }) {
  const { me } = useSession();
  return (
    <RequireSession>
      {me && !hasPermission(me, permission) ? <Navigate to="/" replace /> : children}
    </RequireSession>
  );
}
