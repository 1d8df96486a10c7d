import { useLocation } from 'react-router';
import { PageTitle } from '../components/PageTitle.tsx';
import { Notice } from '../components/Notice.tsx';
import { signInUrl } from '../session.tsx';
import { DeletionAcknowledgements } from './deletion/DeletionAcknowledgements.tsx';

/**
 * Where the gateway's sign-out ends (GET /v1/auth/logout → the provider → here), and where the
 * profile page goes after deleting the account (router state `accountDeleted`).
 */
export function SignedOutPage() {
  const accountDeleted = (useLocation().state as { accountDeleted?: boolean } | null)?.accountDeleted === true;
  if (accountDeleted) {
    return (
      <>
        <PageTitle>Your account was deleted</PageTitle>
        <Notice title="You can no longer sign in with this account.">
          <p>
            Every sign-in has ended, here and on the platforms you used. Your details are kept for a
            limited retention period, then removed for good.
          </p>
        </Notice>
        <DeletionAcknowledgements />
      </>
    );
  }
  return (
    <>
      <PageTitle>You are signed out</PageTitle>
      <Notice title="Your sign-in has ended.">
        <p>
          The gateway and the identity provider have ended your session, and the platforms you used
          with it have been told. On a shared computer, you can now close the browser.
        </p>
      </Notice>
      <p><a className="button" href={signInUrl('/profile')}>Sign in again</a></p>
    </>
  );
}
