import { useEffect } from 'react';
import { useIntl } from '../i18n/useIntl.ts';

/** The page's heading and the document title, so each page is announced by name. */
export function PageTitle({ children, lead }: { children: string; lead?: string }) {
  const intl = useIntl();
  const title = intl.formatMessage({ id: 'common.pageTitle' }, { title: children });
  useEffect(() => {
    document.title = title;
  }, [title]);
  return (
    <header className="page-header">
      <h1>{children}</h1>
      {lead ? <p className="lead">{lead}</p> : null}
    </header>
  );
}
