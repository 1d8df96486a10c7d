import { useCallback, useEffect, useState } from 'react';
import { useIntl } from 'react-intl';
import { ApiProblem, call, problemOf, type Schemas } from '../../api.ts';
import { useSession } from '../../session.tsx';
import { LoadState } from '../../components/LoadState.tsx';
import { Notice } from '../../components/Notice.tsx';

type DataExport = Schemas['DataExport'];

/** While an export is being written, its status is asked again this often. */
const POLL_MS = 2000;


/**
 * "Download my data": the latest export and what can be done with it. Preparing starts a job
 * (POST /v1/account/data-exports) and the section follows it until it is ready; downloading
 * asks for a single-use link and follows it (the gateway answers with the file as an
 * attachment, so this page stays).
 */
export function DownloadSection() {
  const { api } = useSession();
  const intl = useIntl();
  const [latest, setLatest] = useState<DataExport | null | undefined>(undefined);
  const [error, setError] = useState<ApiProblem | null>(null);
  const [busy, setBusy] = useState<'start' | 'link' | null>(null);
  const [message, setMessage] = useState<string | null>(null);

  const load = useCallback(async () => {
    setError(null);
    try {
      setLatest((await call(api.GET('/v1/account/data-exports'))).items[0] ?? null);
    } catch (failure) {
      setError(problemOf(failure));
    }
  }, [api]);

  useEffect(() => {
    void load();
  }, [load]);

  // Follow a pending export until the job has finished.
  useEffect(() => {
    if (latest?.status !== 'pending') return;
    const timer = setTimeout(() => {
      void call(api.GET('/v1/account/data-exports/{exportId}', { params: { path: { exportId: latest.id } } }))
        .then(setLatest, () => setLatest({ ...latest }));
    }, POLL_MS);
    return () => clearTimeout(timer);
  }, [api, latest]);

  async function start() {
    setBusy('start');
    setMessage(null);
    try {
      setLatest(await call(api.POST('/v1/account/data-exports')));
    } catch (failure) {
      setMessage(intl.formatMessage({ id: 'dataRights.download.refused' }, { reason: problemOf(failure).message }));
    } finally {
      setBusy(null);
    }
  }

  async function download(exportId: string) {
    setBusy('link');
    setMessage(null);
    try {
      const link = await call(api.POST('/v1/account/data-exports/{exportId}/link', { params: { path: { exportId } } }));
      window.location.assign(link.url);
      // The download does not leave the page; show when it happened.
      setTimeout(() => void load(), 1500);
    } catch (failure) {
      setMessage(intl.formatMessage({ id: 'dataRights.download.linkRefused' }, { reason: problemOf(failure).message }));
    } finally {
      setBusy(null);
    }
  }

  const dateTime = (iso: string) => intl.formatDate(new Date(iso), { dateStyle: 'medium', timeStyle: 'short' });
  const size = (bytes: number) =>
    bytes < 1_000_000
      ? intl.formatNumber(Math.max(1, Math.round(bytes / 1000)), { style: 'unit', unit: 'kilobyte' })
      : intl.formatNumber(bytes / 1_000_000, { style: 'unit', unit: 'megabyte', maximumFractionDigits: 1 });

  return (
    <section className="panel" aria-labelledby="data-download-heading">
      <h2 id="data-download-heading">{intl.formatMessage({ id: 'dataRights.download.heading' })}</h2>
      <p>{intl.formatMessage({ id: 'dataRights.download.intro' })}</p>
      <div aria-live="polite">
        {message ? <Notice tone="warning"><p>{message}</p></Notice> : null}
        {latest?.status === 'pending' ? <p role="status">{intl.formatMessage({ id: 'dataRights.download.pending' })}</p> : null}
        {latest?.status === 'failed' ? <Notice tone="warning"><p>{intl.formatMessage({ id: 'dataRights.download.failed' })}</p></Notice> : null}
        {latest?.status === 'ready' ? (
          <Notice tone="success">
            <p>{intl.formatMessage({ id: 'dataRights.download.ready' }, { size: size(latest.byteSize ?? 0), until: dateTime(latest.expiresAt) })}</p>
            {latest.downloadedAt ? <p>{intl.formatMessage({ id: 'dataRights.download.downloaded' }, { when: dateTime(latest.downloadedAt) })}</p> : null}
          </Notice>
        ) : null}
      </div>
      <LoadState loading={latest === undefined && error === null} error={error} onRetry={() => void load()} what={intl.formatMessage({ id: 'dataRights.download.loadWhat' })}>
        <div className="actions">
          {latest?.status === 'ready' ? (
            <button type="button" className="button" disabled={busy !== null} onClick={() => void download(latest.id)}>
              {intl.formatMessage({ id: busy === 'link' ? 'dataRights.download.linking' : 'dataRights.download.button' })}
            </button>
          ) : null}
          {latest?.status !== 'pending' ? (
            <button type="button" className={latest?.status === 'ready' ? 'button button-secondary' : 'button'} disabled={busy !== null} onClick={() => void start()}>
              {intl.formatMessage({ id: busy === 'start' ? 'dataRights.download.starting' : latest ? 'dataRights.download.again' : 'dataRights.download.start' })}
            </button>
          ) : null}
        </div>
        <p className="data-rights-note">{intl.formatMessage({ id: 'dataRights.download.limit' })}</p>
      </LoadState>
    </section>
  );
}
