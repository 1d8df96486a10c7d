import { useCallback, useEffect, useRef, useState } from 'react';
import { useIntl } from 'react-intl';
import { ApiProblem, call, type Schemas } from '../../api.ts';
import { useSession } from '../../session.tsx';
import { DocumentBody, languageToShow } from '../../documents/documentText.tsx';
import '../../documents/documents.css';

// The agreements step of central onboarding (issue 25): each document the platform requires
// and the person has not accepted in its current material version, its text (Markdown rendered
// safely, or a link that opens it), and one explicit action per document. Nothing is ticked in
// advance; accepting is its own request, with the version, language and digest shown. The
// onboarding page hooks it in and holds its "Continue" until nothing is pending.

type AgreementDocument = Schemas['AgreementDocument'];

/** The documents still to be accepted, and what the onboarding page's error summary says of them. */
export interface PendingDocuments {
  documents: { documentKey: string; title: string }[];
  /** The summary's message ("Accept the 2 documents above to continue."). */
  message: string;
  /** The message of each entry ("not accepted yet"). */
  entryMessage: string;
}

export const NOTHING_PENDING: PendingDocuments = Object.freeze({ documents: [], message: '', entryMessage: '' });

/** The id of a document's accept button: the page's error summary (entries `agreement-<key>`) moves the focus to it. */
const acceptButtonId = (documentKey: string) => `field-agreement-${documentKey}`;

export function AgreementsStep({ platformKey, onPendingChange }: { platformKey: string; onPendingChange: (pending: PendingDocuments) => void }) {
  const intl = useIntl();
  const { api } = useSession();
  // The documents pending when the page opened stay on it, each showing its outcome.
  const [documents, setDocuments] = useState<AgreementDocument[] | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const generation = useRef(0);
  const path = { params: { path: { platformKey } } };

  const load = useCallback(async () => {
    const current = ++generation.current;
    setLoadError(null);
    try {
      const agreements = await call(api.GET('/v1/agreements/{platformKey}', { params: { path: { platformKey } } }));
      if (current !== generation.current) return;
      setDocuments((shown) => {
        const pending = agreements.documents.filter((document) => document.state === 'pending');
        // Keep the ones already accepted on this page, in their new state.
        const kept = (shown ?? []).map((document) => agreements.documents.find((fresh) => fresh.documentKey === document.documentKey) ?? document);
        return [...kept, ...pending.filter((document) => !kept.some((known) => known.documentKey === document.documentKey))];
      });
    } catch (failure) {
      if (current === generation.current) setLoadError(failure instanceof ApiProblem ? failure.message : String(failure));
    }
  }, [api, platformKey]);

  useEffect(() => {
    void load();
    return () => {
      generation.current += 1;
    };
  }, [load]);

  const titleOf = useCallback((document: AgreementDocument) => document.current.texts[languageToShow(document.current, intl.locale)]!.title, [intl.locale]);

  useEffect(() => {
    if (!documents) return;
    const pending = documents.filter((document) => document.state === 'pending').map((document) => ({ documentKey: document.documentKey, title: titleOf(document) }));
    onPendingChange({
      documents: pending,
      message: intl.formatMessage({ id: 'agreements.onboarding.acceptFirst' }, { count: pending.length }),
      entryMessage: intl.formatMessage({ id: 'agreements.onboarding.acceptToContinue' }),
    });
  }, [documents, onPendingChange, titleOf, intl]);

  async function accept(document: AgreementDocument) {
    if (busy) return;
    const language = languageToShow(document.current, intl.locale);
    setBusy(document.documentKey);
    setErrors(({ [document.documentKey]: _gone, ...rest }) => rest);
    try {
      const accepted = await call(api.POST('/v1/agreements/{platformKey}/acceptances', {
        ...path,
        body: { documentKey: document.documentKey, version: document.current.version, language, sha256: document.current.texts[language]!.sha256 },
      }));
      setDocuments((shown) => shown?.map((item) => (item.documentKey === accepted.documentKey ? accepted : item)) ?? null);
    } catch (failure) {
      const problem = failure instanceof ApiProblem ? failure : new ApiProblem(0, null);
      // A newer version was published while the page was open: show it instead.
      if (problem.status === 409) await load();
      setErrors((current) => ({
        ...current,
        [document.documentKey]: problem.status === 409 ? intl.formatMessage({ id: 'agreements.onboarding.changed' }) : problem.message,
      }));
    } finally {
      setBusy(null);
    }
  }

  if (loadError) {
    return (
      <div className="load-error" role="alert">
        <p><strong>{intl.formatMessage({ id: 'agreements.onboarding.loadFailed' })}</strong> {loadError}</p>
        <button type="button" className="button" onClick={() => void load()}>{intl.formatMessage({ id: 'agreements.tryAgain' })}</button>
      </div>
    );
  }
  if (!documents || documents.length === 0) return null;

  return (
    <section className="panel agreements-step" aria-labelledby="agreements-step-title">
      <h2 id="agreements-step-title">{intl.formatMessage({ id: 'agreements.onboarding.title' })}</h2>
      <p>{intl.formatMessage({ id: 'agreements.onboarding.lead' })}</p>
      {documents.map((document) => {
        const language = languageToShow(document.current, intl.locale);
        const text = document.current.texts[language]!;
        const titleId = `agreement-title-${document.documentKey}`;
        const accepted = document.state !== 'pending';
        return (
          <article key={document.documentKey} className="agreement" aria-labelledby={titleId} lang={language}>
            <h3 id={titleId}>{text.title}</h3>
            <p className="agreement-facts">
              {intl.formatMessage(
                { id: document.acceptedVersion === null ? 'agreements.onboarding.newDocument' : 'agreements.onboarding.changedDocument' },
                { version: document.current.version, effective: intl.formatDate(document.current.effectiveAt ?? undefined, { dateStyle: 'long' }) },
              )}
            </p>
            <div className="agreement-text">
              <DocumentBody text={text} />
            </div>
            {accepted ? (
              <p className="agreement-done" role="status">{intl.formatMessage({ id: 'agreements.onboarding.accepted' }, { title: text.title, version: document.current.version })}</p>
            ) : (
              <div className="actions">
                <button
                  id={acceptButtonId(document.documentKey)}
                  type="button"
                  className="button"
                  aria-disabled={busy !== null || undefined}
                  aria-describedby={errors[document.documentKey] ? `agreement-error-${document.documentKey}` : undefined}
                  onClick={() => void accept(document)}
                >
                  {busy === document.documentKey ? intl.formatMessage({ id: 'agreements.onboarding.accepting' }) : intl.formatMessage({ id: 'agreements.onboarding.accept' }, { title: text.title })}
                </button>
              </div>
            )}
            {errors[document.documentKey] ? <p id={`agreement-error-${document.documentKey}`} className="field-error" role="alert">{errors[document.documentKey]}</p> : null}
          </article>
        );
      })}
    </section>
  );
}
