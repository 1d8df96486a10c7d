import { useEffect } from 'react';

/** The page's heading and the document title, so each page is announced by name. */
export function PageTitle({ children, lead }: { children: string; lead?: string }) {
  useEffect(() => {
    document.title = `${children} · Account center`;
  }, [children]);
  return (
    <header className="page-header">
      <h1>{children}</h1>
      {lead ? <p className="lead">{lead}</p> : null}
    </header>
  );
}
