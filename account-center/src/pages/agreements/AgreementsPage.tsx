import { useState } from 'react';
import { useIntl } from 'react-intl';
import { call, problemOf, type Schemas } from '../../api.ts';
import { useGatewayRead } from '../../components/useGatewayRead.ts';
import { useSession } from '../../session.tsx';
import { LoadState } from '../../components/LoadState.tsx';
import { Notice } from '../../components/Notice.tsx';
import { PageTitle } from '../../components/PageTitle.tsx';
import { DocumentBody, languageToShow } from '../../documents/documentText.tsx';
import '../../documents/documents.css';

type PlatformAgreements = Schemas['PlatformAgreements'];
type AgreementDocument = Schemas['AgreementDocument'];
type AgreementRecord = Schemas['AgreementRecord'];


/**
 * /agreements (issue 25): for every platform the person uses that has documents, what each asks
 * now ("updated" when a newer, non-material version is out), and their record: what they
 * accepted or withdrew, when, which version, with the text as it was shown. Optional consents
 * (custom documents) can be accepted and withdrawn here, each by its own action.
 */
export function AgreementsPage() {
  const intl = useIntl();
  const { api } = useSession();
  const { value: items, error, load } = useGatewayRead(async () => (await call(api.GET('/v1/agreements'))).items, [api]);
  const [busy, setBusy] = useState<string | null>(null);
  const [message, setMessage] = useState<{ tone: 'success' | 'warning'; text: string } | null>(null);


  async function act(platformKey: string, document: AgreementDocument, action: 'accept' | 'withdraw') {
    if (busy) return;
    const language = languageToShow(document.current, intl.locale);
    const title = document.current.texts[language]!.title;
    setBusy(`${platformKey}/${document.documentKey}`);
    setMessage(null);
    try {
      const path = { params: { path: { platformKey } } };
      if (action === 'accept') {
        await call(api.POST('/v1/agreements/{platformKey}/acceptances', {
          ...path,
          body: { documentKey: document.documentKey, version: document.current.version, language, sha256: document.current.texts[language]!.sha256 },
        }));
      } else {
        await call(api.POST('/v1/agreements/{platformKey}/withdrawals', { ...path, body: { documentKey: document.documentKey } }));
      }
      setMessage({ tone: 'success', text: intl.formatMessage({ id: action === 'accept' ? 'agreements.page.acceptedMessage' : 'agreements.page.withdrawnMessage' }, { title }) });
    } catch (failure) {
      setMessage({ tone: 'warning', text: intl.formatMessage({ id: 'agreements.page.failed' }, { reason: problemOf(failure).message }) });
    } finally {
      setBusy(null);
      await load();
    }
  }

  return (
    <>
      <PageTitle lead={intl.formatMessage({ id: 'agreements.page.lead' })}>{intl.formatMessage({ id: 'agreements.page.title' })}</PageTitle>
      {message ? <Notice tone={message.tone} title={message.text} /> : null}
      <LoadState loading={items === null} error={items === null ? error : null} onRetry={() => void load()} what={intl.formatMessage({ id: 'agreements.page.what' })}>
        {items && items.length === 0 ? <p className="panel">{intl.formatMessage({ id: 'agreements.page.none' })}</p> : null}
        {items?.map((platform) => (
          <section key={platform.platformKey} className="panel" aria-labelledby={`agreements-${platform.platformKey}`}>
            <h2 id={`agreements-${platform.platformKey}`}>{platform.displayName}</h2>
            {platform.documents.map((document) => (
              <CurrentDocument
                key={document.documentKey}
                platform={platform}
                document={document}
                busy={busy === `${platform.platformKey}/${document.documentKey}`}
                onAct={(action) => void act(platform.platformKey, document, action)}
              />
            ))}
            <History platform={platform} />
          </section>
        ))}
      </LoadState>
    </>
  );
}

function CurrentDocument({ platform, document, busy, onAct }: { platform: PlatformAgreements; document: AgreementDocument; busy: boolean; onAct: (action: 'accept' | 'withdraw') => void }) {
  const intl = useIntl();
  const platformKey = platform.platformKey;
  const language = languageToShow(document.current, intl.locale);
  // The row that records the acceptance in force (the record is newest first): did the platform record it?
  const acceptance = platform.records.find((record) => record.documentKey === document.documentKey && record.action === 'accept' && record.version === document.acceptedVersion);
  const byPlatform = acceptance?.recordedVia === 'platform';
  const text = document.current.texts[language]!;
  const titleId = `agreement-${platformKey}-${document.documentKey}`;
  const canAccept = document.state !== 'accepted';
  const canWithdraw = document.withdrawable && document.acceptedVersion !== null;
  return (
    <article className="agreement" aria-labelledby={titleId}>
      <h3 id={titleId}>
        {text.title}
        <span className={`agreement-state agreement-state-${document.state}`}>{intl.formatMessage({ id: `agreements.state.${document.state}` })}</span>
      </h3>
      <p className="agreement-meta">
        {document.acceptedVersion !== null && document.acceptedAt
          ? intl.formatMessage(
              { id: byPlatform ? 'agreements.page.acceptedFactByPlatform' : 'agreements.page.acceptedFact' },
              { version: document.acceptedVersion, when: intl.formatDate(document.acceptedAt, { dateStyle: 'long', timeStyle: 'short' }), current: document.current.version, platform: platform.displayName },
            )
          : intl.formatMessage({ id: 'agreements.page.currentFact' }, { version: document.current.version })}
      </p>
      <details>
        <summary>{intl.formatMessage({ id: 'agreements.page.readCurrent' }, { version: document.current.version })}</summary>
        <div className="agreement-text" lang={language}><DocumentBody text={text} /></div>
      </details>
      {canAccept || canWithdraw ? (
        <div className="actions">
          {canAccept ? (
            <button type="button" className="button" aria-disabled={busy || undefined} onClick={() => onAct('accept')}>
              {intl.formatMessage({ id: 'agreements.page.accept' }, { title: text.title, version: document.current.version })}
            </button>
          ) : null}
          {canWithdraw ? (
            <button type="button" className="button button-secondary" aria-disabled={busy || undefined} onClick={() => onAct('withdraw')}>
              {intl.formatMessage({ id: 'agreements.page.withdraw' }, { title: text.title })}
            </button>
          ) : null}
        </div>
      ) : null}
    </article>
  );
}

/** A row of the record in words: the person's own, or one the platform recorded. */
const HISTORY_MESSAGES = {
  accept: { person: 'agreements.history.accepted', platform: 'agreements.history.acceptedByPlatform' },
  withdraw: { person: 'agreements.history.withdrew', platform: 'agreements.history.withdrewByPlatform' },
} as const;

/**
 * The record, newest first, each entry with the text as it was shown. A row the platform's own
 * back end recorded (recordedVia `platform`: the person acted on the platform's pages, not here)
 * says so, naming the platform, so the person can tell it from their own clicks.
 */
function History({ platform }: { platform: PlatformAgreements }) {
  const intl = useIntl();
  const records: AgreementRecord[] = platform.records;
  const headingId = `agreement-history-${platform.platformKey}`;
  return (
    <div className="agreement-record" aria-labelledby={headingId}>
      <h3 id={headingId}>{intl.formatMessage({ id: 'agreements.history.title' })}</h3>
      {records.length === 0 ? <p>{intl.formatMessage({ id: 'agreements.history.none' })}</p> : (
        <ul className="agreement-history">
          {records.map((record, index) => (
            <li key={`${record.recordedAt}-${index}`}>
              <p>
                {intl.formatMessage(
                  { id: HISTORY_MESSAGES[record.action][record.recordedVia === 'platform' ? 'platform' : 'person'] },
                  { title: record.text.title, version: record.version, when: intl.formatDate(record.recordedAt, { dateStyle: 'long', timeStyle: 'short' }), language: record.language, platform: platform.displayName },
                )}
              </p>
              {record.recordedVia === 'platform' ? (
                <p className="agreement-meta agreement-recorded-by">{intl.formatMessage({ id: 'agreements.history.recordedByPlatform' }, { platform: platform.displayName })}</p>
              ) : null}
              <details>
                <summary>{intl.formatMessage({ id: 'agreements.history.textAsShown' })}</summary>
                <div className="agreement-text" lang={record.language}><DocumentBody text={record.text} /></div>
                <p className="agreement-meta">{intl.formatMessage({ id: 'agreements.history.digest' }, { digest: record.sha256 })}</p>
              </details>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
