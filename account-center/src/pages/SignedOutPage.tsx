import { useLocation } from 'react-router';
import { PageTitle } from '../components/PageTitle.tsx';
import { Notice } from '../components/Notice.tsx';
import { signInUrl } from '../session.tsx';
import { DeletionAcknowledgements } from './deletion/DeletionAcknowledgements.tsx';
import { useIntl } from '../i18n/useIntl.ts';

/**
 * Where the gateway's sign-out ends (GET /v1/auth/logout → the provider → here), and where the
 * profile page goes after deleting the account (router state `accountDeleted`).
 */
export function SignedOutPage() {
  const accountDeleted = (useLocation().state as { accountDeleted?: boolean } | null)?.accountDeleted === true;
  const intl = useIntl();
  const say = (id: string) => intl.formatMessage({ id: `common.signedOut.${id}` });
  if (accountDeleted) {
    return (
      <>
        <PageTitle>{say('deletedTitle')}</PageTitle>
        <Notice title={say('deletedNotice')}>
          <p>{say('deletedBody')}</p>
        </Notice>
        <DeletionAcknowledgements />
      </>
    );
  }
  return (
    <>
      <PageTitle>{say('title')}</PageTitle>
      <Notice title={say('notice')}>
        <p>{say('body')}</p>
      </Notice>
      <p><a className="button" href={signInUrl('/profile')}>{say('signIn')}</a></p>
    </>
  );
}
