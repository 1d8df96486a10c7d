import { useEffect, type ReactNode } from 'react';
import { Link, useLocation } from 'react-router';
import { hasPermission, signInUrl, useSession, type Permission } from '../session.tsx';
import { LoadState } from '../components/LoadState.tsx';
import { PageTitle } from '../components/PageTitle.tsx';
import { useIntl } from '../i18n/useIntl.ts';

/**
 * A page that needs a session: without one, the browser goes to the account center's own
 * sign-in and comes back to the page it was on.
 */
export function RequireSession({ children }: { children: ReactNode }) {
  const { me, error, reload } = useSession();
  const intl = useIntl();
  const location = useLocation();
  useEffect(() => {
    if (me === null && !error) window.location.assign(signInUrl(location.pathname + location.search));
  }, [me, error, location.pathname, location.search]);
  return (
    <LoadState loading={!me} error={error} onRetry={() => void reload()} what={intl.formatMessage({ id: 'common.session.what' })}>
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
  const intl = useIntl();
  const who = me?.user.displayName ?? me?.user.email;
  const code = (chunks: ReactNode[]) => <code>{chunks}</code>;
  return (
    <>
      <PageTitle>{intl.formatMessage({ id: 'common.forbidden.title' })}</PageTitle>
      <p>{who ? intl.formatMessage({ id: 'common.forbidden.bodyNamed' }, { who, permission, code }) : intl.formatMessage({ id: 'common.forbidden.body' }, { permission, code })}</p>
      <p><Link to="/">{intl.formatMessage({ id: 'common.goHome' })}</Link></p>
    </>
  );
}
