import { Link } from 'react-router';
import { PageTitle } from '../components/PageTitle.tsx';
import { hasPermission, signInUrl, useSession } from '../session.tsx';

export function HomePage() {
  const { me } = useSession();
  return (
    <>
      <PageTitle lead="Your profile, your sign-in, and the information platforms ask of you, in one place.">Account center</PageTitle>
      {me === null ? (
        <p><a className="button" href={signInUrl('/profile')}>Sign in</a></p>
      ) : me ? (
        <ul className="cards">
          <li className="card"><h2><Link to="/profile">Your profile</Link></h2><p>Name, picture, sign-in methods, password and your platforms.</p></li>
          <li className="card"><h2><Link to="/sessions">Where you're signed in</Link></h2><p>The browsers signed in to your account; sign out any you do not recognise.</p></li>
          {hasPermission(me, 'platforms:admin') ? (
            <li className="card"><h2><Link to="/admin/platforms">Platforms</Link></h2><p>Register platforms, their addresses and credentials.</p></li>
          ) : null}
          {hasPermission(me, 'onboarding:schema:read') ? (
            <li className="card"><h2><Link to="/admin/onboarding">Onboarding forms</Link></h2><p>What each platform asks its users after sign-in.</p></li>
          ) : null}
        </ul>
      ) : null}
    </>
  );
}
