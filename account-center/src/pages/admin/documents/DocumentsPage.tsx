import { useState, type FormEvent } from 'react';
import { useIntl } from 'react-intl';
import { call, problemOf, type Schemas } from '../../../api.ts';
import { useGatewayRead } from '../../../components/useGatewayRead.ts';
import { hasPermission, useSession } from '../../../session.tsx';
import { LoadState } from '../../../components/LoadState.tsx';
import { Notice } from '../../../components/Notice.tsx';
import { EnforcementChoice } from '../../../components/EnforcementChoice.tsx';
import { PageTitle } from '../../../components/PageTitle.tsx';
import { MarkdownText } from '../../../documents/MarkdownText.tsx';

type DocumentList = Schemas['DocumentList'];
type DocumentKind = Schemas['DocumentKind'];
type Preview = Schemas['DocumentPublishPreview'];

interface Draft {
  /** Set when editing a stored draft (its key and number are fixed then). */
  version: number | null;
  documentKey: string;
  kind: DocumentKind;
  material: boolean;
  language: string;
  title: string;
  markdown: string;
}

const EMPTY: Draft = { version: null, documentKey: '', kind: 'terms', material: true, language: 'en', title: '', markdown: '' };

/**
 * One platform's documents: versions with "N of M active users accepted version V", the draft
 * editor (one language here; more through the API or the CLI) with a live preview rendered as
 * the person will see it, the dry run (who would have to accept), and publication.
 */
export function DocumentsPage({ platformKey }: { platformKey: string }) {
  const intl = useIntl();
  const { api, me } = useSession();
  const { value: list, error, load } = useGatewayRead(async () => await call(api.GET('/v1/platforms/{platformKey}/documents', { params: { path: { platformKey } } })), [api, platformKey]);
  const canWrite = hasPermission(me, 'onboarding:schema:write');
  const [draft, setDraft] = useState<Draft>(EMPTY);
  const [message, setMessage] = useState<{ tone: 'success' | 'warning'; text: string } | null>(null);
  const [preview, setPreview] = useState<{ documentKey: string; result: Preview } | null>(null);
  /** When each document's draft is enforced once published (issue 36): absent or null for immediately. */
  const [enforceAfter, setEnforceAfter] = useState<Record<string, string | null>>({});
  const path = { params: { path: { platformKey } } };


  const versionPath = (documentKey: string, version: number) => ({ params: { path: { platformKey, documentKey, version } } });

  async function save(event: FormEvent) {
    event.preventDefault();
    setMessage(null);
    const texts = { [draft.language]: { title: draft.title, markdown: draft.markdown } };
    try {
      const saved = draft.version === null
        ? await call(api.POST('/v1/platforms/{platformKey}/documents/{documentKey}/versions', {
          params: { path: { platformKey, documentKey: draft.documentKey } },
          body: { kind: draft.kind, material: draft.material, defaultLanguage: draft.language, texts },
        }))
        : await call(api.PATCH('/v1/platforms/{platformKey}/documents/{documentKey}/versions/{version}', {
          ...versionPath(draft.documentKey, draft.version),
          body: { material: draft.material, defaultLanguage: draft.language, texts },
        }));
      setDraft((current) => ({ ...current, version: saved.version }));
      setMessage({ tone: 'success', text: intl.formatMessage({ id: 'documents.editor.saved' }, { documentKey: saved.documentKey, version: saved.version }) });
      await load();
    } catch (failure) {
      setMessage({ tone: 'warning', text: problemOf(failure).message });
    }
  }

  async function edit(documentKey: string, kind: DocumentKind, version: number) {
    setMessage(null);
    try {
      const stored = await call(api.GET('/v1/platforms/{platformKey}/documents/{documentKey}/versions/{version}', versionPath(documentKey, version)));
      const text = stored.texts[stored.defaultLanguage]!;
      setDraft({ version, documentKey, kind, material: stored.material, language: stored.defaultLanguage, title: text.title, markdown: text.markdown ?? '' });
    } catch (failure) {
      setMessage({ tone: 'warning', text: problemOf(failure).message });
    }
  }

  async function publish(documentKey: string, version: number, dryRun: boolean) {
    setMessage(null);
    try {
      const result = await call(api.POST('/v1/platforms/{platformKey}/documents/{documentKey}/versions/{version}/publish', {
        ...versionPath(documentKey, version),
        params: { ...versionPath(documentKey, version).params, query: { dryRun, ...(enforceAfter[documentKey] ? { enforceAfter: enforceAfter[documentKey] } : {}) } },
      }));
      if ('dryRun' in result) {
        setPreview({ documentKey, result });
        return;
      }
      setPreview(null);
      if (draft.documentKey === documentKey && draft.version === version) setDraft(EMPTY);
      setMessage({ tone: 'success', text: intl.formatMessage({ id: 'documents.published' }, { documentKey, version }) });
      await load();
    } catch (failure) {
      setMessage({ tone: 'warning', text: problemOf(failure).message });
    }
  }

  const set = <K extends keyof Draft>(key: K, value: Draft[K]) => setDraft((current) => ({ ...current, [key]: value }));

  return (
    <>
      <PageTitle lead={intl.formatMessage({ id: 'documents.page.lead' }, { platformKey })}>{intl.formatMessage({ id: 'documents.page.title' }, { platformKey })}</PageTitle>
      {message ? <Notice tone={message.tone} title={message.text} /> : null}
      <LoadState loading={list === null} error={list === null ? error : null} onRetry={() => void load()} what={intl.formatMessage({ id: 'documents.page.what' })}>
        {list ? (
          <section className="panel" aria-labelledby="documents-list">
            <h2 id="documents-list">{intl.formatMessage({ id: 'documents.list.title' })}</h2>
            {list.items.length === 0 ? <p>{intl.formatMessage({ id: 'documents.list.none' })}</p> : null}
            {list.items.map((document) => (
              <article key={document.documentKey} className="agreement" aria-labelledby={`document-${document.documentKey}`}>
                <h3 id={`document-${document.documentKey}`}>{intl.formatMessage({ id: 'documents.list.document' }, { documentKey: document.documentKey, kind: document.kind })}</h3>
                <ul className="agreement-history">
                  {document.versions.map((version) => (
                    <li key={version.version}>
                      <p>
                        {intl.formatMessage(
                          { id: version.status === 'draft' ? 'documents.list.draft' : 'documents.list.published' },
                          { version: version.version, title: version.title, material: String(version.material), when: version.publishedAt ? intl.formatDate(version.publishedAt, { dateStyle: 'medium' }) : '' },
                        )}
                      </p>
                      {version.status === 'published' ? (
                        <p className="agreement-meta">{intl.formatMessage({ id: 'documents.list.count' }, { accepted: version.acceptedBy, active: list.activeUsers, version: version.version })}</p>
                      ) : canWrite ? (
                        <>
                          <EnforcementChoice onChange={(value) => { setEnforceAfter((current) => ({ ...current, [document.documentKey]: value })); setPreview(null); }} />
                          <div className="actions">
                            <button type="button" className="button button-secondary" onClick={() => void edit(document.documentKey, document.kind, version.version)}>{intl.formatMessage({ id: 'documents.list.edit' }, { version: version.version })}</button>
                            <button type="button" className="button button-secondary" onClick={() => void publish(document.documentKey, version.version, true)}>{intl.formatMessage({ id: 'documents.list.dryRun' })}</button>
                            <button type="button" className="button" onClick={() => void publish(document.documentKey, version.version, false)}>{intl.formatMessage({ id: 'documents.list.publish' }, { version: version.version })}</button>
                          </div>
                        </>
                      ) : null}
                      {preview && preview.documentKey === document.documentKey && preview.result.version.version === version.version ? (
                        <Notice title={intl.formatMessage(
                          { id: preview.result.blocking ? 'documents.dryRun.blocking' : 'documents.dryRun.nonBlocking' },
                          { mustAccept: preview.result.mustAccept, active: preview.result.activeUsers, reopened: preview.result.reopenedUsers },
                        )}>
                          {preview.result.enforceAfter ? <p>{intl.formatMessage({ id: 'common.enforcement.impact' }, { count: preview.result.graceUsers, meeting: preview.result.meetingUsers })}</p> : null}
                        </Notice>
                      ) : null}
                    </li>
                  ))}
                </ul>
              </article>
            ))}
          </section>
        ) : null}
      </LoadState>
      {canWrite ? (
        <form className="panel documents-editor" onSubmit={(event) => void save(event)} aria-labelledby="documents-editor">
          <h2 id="documents-editor">{intl.formatMessage({ id: draft.version === null ? 'documents.editor.new' : 'documents.editor.editing' }, { documentKey: draft.documentKey, version: draft.version ?? 0 })}</h2>
          <div className="form-grid">
            <div className="field field-half">
              <label htmlFor="document-key">{intl.formatMessage({ id: 'documents.editor.key' })}</label>
              <input id="document-key" type="text" value={draft.documentKey} disabled={draft.version !== null} required onChange={(event) => set('documentKey', event.target.value)} autoComplete="off" />
            </div>
            <div className="field field-half">
              <label htmlFor="document-kind">{intl.formatMessage({ id: 'documents.editor.kind' })}</label>
              <select id="document-kind" value={draft.kind} disabled={draft.version !== null} onChange={(event) => set('kind', event.target.value as DocumentKind)}>
                {(['terms', 'privacy', 'custom'] as const).map((kind) => <option key={kind} value={kind}>{intl.formatMessage({ id: `documents.kind.${kind}` })}</option>)}
              </select>
            </div>
            <div className="field field-half">
              <label htmlFor="document-language">{intl.formatMessage({ id: 'documents.editor.language' })}</label>
              <input id="document-language" type="text" value={draft.language} required onChange={(event) => set('language', event.target.value)} autoComplete="off" />
            </div>
            <div className="field">
              <label className="choice" htmlFor="document-material">
                <input id="document-material" type="checkbox" checked={draft.material} onChange={(event) => set('material', event.target.checked)} />
                <span>{intl.formatMessage({ id: 'documents.editor.material' })}</span>
              </label>
            </div>
            <div className="field">
              <label htmlFor="document-title">{intl.formatMessage({ id: 'documents.editor.titleField' })}</label>
              <input id="document-title" type="text" value={draft.title} required onChange={(event) => set('title', event.target.value)} />
            </div>
            <div className="field">
              <label htmlFor="document-markdown">{intl.formatMessage({ id: 'documents.editor.text' })}</label>
              <textarea id="document-markdown" value={draft.markdown} required onChange={(event) => set('markdown', event.target.value)} />
            </div>
          </div>
          <section aria-labelledby="documents-preview-title">
            <h3 id="documents-preview-title">{intl.formatMessage({ id: 'documents.editor.preview' })}</h3>
            <div className="documents-preview">{draft.markdown ? <MarkdownText markdown={draft.markdown} /> : <p>{intl.formatMessage({ id: 'documents.editor.previewEmpty' })}</p>}</div>
          </section>
          <div className="actions">
            <button type="submit" className="button">{intl.formatMessage({ id: 'documents.editor.save' })}</button>
            {draft.version !== null ? <button type="button" className="button button-secondary" onClick={() => setDraft(EMPTY)}>{intl.formatMessage({ id: 'documents.editor.startNew' })}</button> : null}
          </div>
        </form>
      ) : null}
    </>
  );
}
