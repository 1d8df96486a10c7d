import { PageTitle } from '../components/PageTitle.tsx';
import { Notice } from '../components/Notice.tsx';
import { signInUrl } from '../session.tsx';

/**
 * Sign-out, for now: the account center keeps no token (the gateway's cookie is HttpOnly and
 * not ours to clear), so it forgets what it showed and says so plainly.
 */
export function SignedOutPage() {
  return (
    <>
      <PageTitle>Signed out of the account center</PageTitle>
      <Notice title="The account center has forgotten your details on this page.">
        <p>
          Your sign-in with the gateway stays valid until it expires, so other applications you use
          may still recognise you. Closing the browser ends it on shared computers.
        </p>
      </Notice>
      <p><a className="button" href={signInUrl('/profile')}>Sign in again</a></p>
    </>
  );
}
