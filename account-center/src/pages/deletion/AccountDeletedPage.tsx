import { useIntl } from 'react-intl';
import { PageTitle } from '../../components/PageTitle.tsx';
import { DeletionAcknowledgements } from './DeletionAcknowledgements.tsx';

/** /account-deleted: the deleting browser comes back during the retention period to see which platforms were told. */
export function AccountDeletedPage() {
  const intl = useIntl();
  return (
    <>
      <PageTitle>{intl.formatMessage({ id: 'events.deletion.title' })}</PageTitle>
      <DeletionAcknowledgements />
    </>
  );
}
