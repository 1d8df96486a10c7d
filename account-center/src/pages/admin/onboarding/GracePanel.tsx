import { useId, useState, type FormEvent } from 'react';
import { useIntl } from 'react-intl';
import { call, problemOf } from '../../../api.ts';
import { useGatewayRead } from '../../../components/useGatewayRead.ts';
import { problemText } from '../../../i18n/problems.ts';
import { useSession } from '../../../session.tsx';

const GRACE = '/v1/platforms/{platformKey}/onboarding/grace';

/**
 * The platform's changes still in a grace period (issue 36), with the date each is enforced
 * from; a writer moves that date (later for more time, or enforces them now). Nothing shows
 * while every change is enforced. `requirementVersion` reloads it after a change on the page.
 */
export function GracePanel({ platformKey, canWrite, requirementVersion }: { platformKey: string; canWrite: boolean; requirementVersion: number }) {
  const intl = useIntl();
  const t = (id: string, values?: Record<string, string | number>) => intl.formatMessage({ id: `schema.grace.${id}` }, values);
  const { api } = useSession();
  const id = useId();
  const { value: list, load } = useGatewayRead(async () => await call(api.GET(GRACE, { params: { path: { platformKey } } })), [api, platformKey, requirementVersion]);
  const [date, setDate] = useState('');
  const [message, setMessage] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function move(enforceAfter: string) {
    setBusy(true);
    setMessage(null);
    try {
      await call(api.PUT(GRACE, { params: { path: { platformKey } }, body: { enforceAfter } }));
      setDate('');
      await load();
    } catch (failure) {
      setMessage(problemText(intl, problemOf(failure)));
    } finally {
      setBusy(false);
    }
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    const parsed = new Date(date);
    if (date && !Number.isNaN(parsed.getTime())) void move(parsed.toISOString());
  }

  if (!list || list.items.length === 0) return null;
  return (
    <section className="panel" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{t('title')}</h2>
      <p className="oa-muted">{t('note')}</p>
      <ul>
        {list.items.map((item) => (
          <li key={item.requirementVersion}>{t('item', { version: item.requirementVersion, date: intl.formatDate(item.enforceAfter, { dateStyle: 'long', timeStyle: 'short' }) })}</li>
        ))}
      </ul>
      {message ? <p className="field-error" role="alert">{message}</p> : null}
      {canWrite ? (
        <form onSubmit={submit} aria-labelledby={`${id}-title`}>
          <div className="field">
            <label htmlFor={`${id}-date`}>{t('newDate')}</label>
            <input id={`${id}-date`} type="datetime-local" value={date} onChange={(event) => setDate(event.target.value)} />
          </div>
          <div className="actions">
            <button type="submit" className="button button-secondary" disabled={busy || !date}>{t('move')}</button>
            <button type="button" className="button" disabled={busy} onClick={() => void move(new Date().toISOString())}>{t('enforceNow')}</button>
          </div>
        </form>
      ) : null}
    </section>
  );
}
