import { Link } from 'react-router';
import { PageTitle } from '../components/PageTitle.tsx';
import { GraceNotices } from '../components/GraceNotices.tsx';
import { useIntl } from '../i18n/useIntl.ts';
import { hasPermission, signInUrl, useSession } from '../session.tsx';

export function HomePage() {
  const { me } = useSession();
  const intl = useIntl();
  const say = (id: string) => intl.formatMessage({ id: `common.home.${id}` });
  return (
    <>
      <PageTitle lead={say('lead')}>{say('title')}</PageTitle>
      {me === null ? (
        <p><a className="button" href={signInUrl('/profile')}>{say('signIn')}</a></p>
      ) : me ? (
        <>
          <GraceNotices memberships={me.memberships} />
          <ul className="cards">
            <li className="card"><h2><Link to="/profile">{say('profile')}</Link></h2><p>{say('profileText')}</p></li>
            <li className="card"><h2><Link to="/sessions">{say('sessions')}</Link></h2><p>{say('sessionsText')}</p></li>
            {hasPermission(me, 'platforms:admin') ? (
              <li className="card"><h2><Link to="/admin/platforms">{say('platforms')}</Link></h2><p>{say('platformsText')}</p></li>
            ) : null}
            {hasPermission(me, 'onboarding:schema:read') ? (
              <li className="card"><h2><Link to="/admin/onboarding">{say('onboarding')}</Link></h2><p>{say('onboardingText')}</p></li>
            ) : null}
          </ul>
        </>
      ) : null}
    </>
  );
}
