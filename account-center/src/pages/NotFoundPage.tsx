import { Link } from 'react-router';
import { PageTitle } from '../components/PageTitle.tsx';
import { useIntl } from '../i18n/useIntl.ts';

export function NotFoundPage() {
  const intl = useIntl();
  return (
    <>
      <PageTitle>{intl.formatMessage({ id: 'common.notFound.title' })}</PageTitle>
      <p>{intl.formatMessage({ id: 'common.notFound.body' }, { link: (chunks) => <Link to="/">{chunks}</Link> })}</p>
    </>
  );
}
