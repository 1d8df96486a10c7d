import { useState, type FormEvent } from 'react';
import { useIntl } from 'react-intl';
import { Link, Route, Routes, useNavigate, useParams } from 'react-router';
import { PageTitle } from '../../../components/PageTitle.tsx';
import { useSession } from '../../../session.tsx';
import { DocumentsPage } from './DocumentsPage.tsx';
import '../../../documents/documents.css';

/**
 * A platform's documents (issue 25), mounted at /admin/documents/* (readable with
 * onboarding:schema:read; drafts and publication need onboarding:schema:write):
 *   /admin/documents                 choose a platform
 *   /admin/documents/{platformKey}   its documents with acceptance counts, the draft editor with
 *                                    its preview, the dry run and publication
 */
export function DocumentsAdmin() {
  return (
    <Routes>
      <Route index element={<Picker />} />
      <Route path=":platformKey" element={<ForPlatform />} />
    </Routes>
  );
}

function ForPlatform() {
  const { platformKey = '' } = useParams();
  return <DocumentsPage key={platformKey} platformKey={platformKey.toUpperCase()} />;
}

function Picker() {
  const intl = useIntl();
  const { me } = useSession();
  const navigate = useNavigate();
  const [key, setKey] = useState('');
  const open = (event: FormEvent) => {
    event.preventDefault();
    if (key.trim()) navigate(`/admin/documents/${encodeURIComponent(key.trim().toUpperCase())}`);
  };
  return (
    <>
      <PageTitle lead={intl.formatMessage({ id: 'documents.picker.lead' })}>{intl.formatMessage({ id: 'documents.title' })}</PageTitle>
      {me && me.memberships.length > 0 ? (
        <section className="panel" aria-labelledby="documents-platforms">
          <h2 id="documents-platforms">{intl.formatMessage({ id: 'documents.picker.yours' })}</h2>
          <ul>
            {me.memberships.map((membership) => (
              <li key={membership.platformKey}><Link to={`/admin/documents/${encodeURIComponent(membership.platformKey)}`}>{membership.displayName}</Link></li>
            ))}
          </ul>
        </section>
      ) : null}
      <form className="panel" onSubmit={open} aria-labelledby="documents-open">
        <h2 id="documents-open">{intl.formatMessage({ id: 'documents.picker.openTitle' })}</h2>
        <label htmlFor="documents-platform-key">{intl.formatMessage({ id: 'documents.picker.key' })}</label>
        <input id="documents-platform-key" value={key} onChange={(event) => setKey(event.target.value)} autoComplete="off" />
        <div className="actions"><button type="submit" className="button">{intl.formatMessage({ id: 'documents.picker.open' })}</button></div>
      </form>
    </>
  );
}
