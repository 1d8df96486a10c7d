import { useIntl } from 'react-intl';
import { PageTitle } from '../../components/PageTitle.tsx';
import { DownloadSection } from './DownloadSection.tsx';
import { AppsSection } from './AppsSection.tsx';
import './dataRights.css';

/** /data, "Your data" (issue 26): download my data, and the apps that have it. */
export function DataRightsPage() {
  const intl = useIntl();
  return (
    <>
      <PageTitle lead={intl.formatMessage({ id: 'dataRights.lead' })}>{intl.formatMessage({ id: 'dataRights.title' })}</PageTitle>
      <DownloadSection />
      <AppsSection />
    </>
  );
}
