import { useState } from 'react';
import { call, problemOf, type Schemas } from '../../api.ts';
import { useGatewayRead } from '../../components/useGatewayRead.ts';
import { useSession } from '../../session.tsx';
import { LoadState } from '../../components/LoadState.tsx';
import { Notice } from '../../components/Notice.tsx';
import { PageTitle } from '../../components/PageTitle.tsx';
import { useIntl } from '../../i18n/useIntl.ts';
import { problemText } from '../../i18n/problems.ts';

type SupportAccess = Schemas['SupportAccess'];
const DATE_TIME = { dateStyle: 'medium', timeStyle: 'short' } as const;

/**
 * /support-access, "Support access" (issue 35): what support asked to see as the person, and
 * what became of it. A pending request is approved or refused here (only here: the gateway takes
 * the answer from the person's own browser session alone); a running one ends with "End it now",
 * and the platform's session ends with it (back-channel logout).
 */
export function SupportAccessPage() {
  const { api } = useSession();
  const intl = useIntl();
  const say = (id: string, values?: Record<string, string | number>) => intl.formatMessage({ id: `supportAccess.${id}` }, values);
  const { value: items, error, load } = useGatewayRead(async () => (await call(api.GET('/v1/account/support-access'))).items, [api]);
  const [busy, setBusy] = useState<string | null>(null);
  const [message, setMessage] = useState<{ tone: 'success' | 'warning'; text: string } | null>(null);

  async function act(access: SupportAccess, what: 'approve' | 'refuse' | 'end') {
    if (busy) return;
    setBusy(access.id);
    setMessage(null);
    try {
      const path = { params: { path: { supportAccessId: access.id } } };
      if (what === 'end') await call(api.POST('/v1/account/support-access/{supportAccessId}/end', path));
      else await call(api.POST('/v1/account/support-access/{supportAccessId}/answer', { ...path, body: { decision: what } }));
      setMessage({ tone: 'success', text: say(`result.${what}`, { platform: access.platform.displayName }) });
      await load();
    } catch (failure) {
      setMessage({ tone: 'warning', text: problemText(intl, problemOf(failure)) });
    } finally {
      setBusy(null);
    }
  }

  const when = (iso: string | null) => (iso ? <time dateTime={iso}>{intl.formatDate(new Date(iso), DATE_TIME)}</time> : null);
  const pending = (items ?? []).filter((item) => item.status === 'pending');
  const running = (items ?? []).filter((item) => item.status === 'active');
  const history = (items ?? []).filter((item) => item.status !== 'pending' && item.status !== 'active');
  const operatorName = (access: SupportAccess) => access.operator.name ?? access.operator.sub;

  return (
    <>
      <PageTitle lead={say('lead')}>{say('title')}</PageTitle>
      <div aria-live="polite">{message ? <Notice tone={message.tone}><p>{message.text}</p></Notice> : null}</div>
      <LoadState loading={items === null && error === null} error={error} onRetry={() => void load()} what={say('what')}>
        {pending.map((access) => (
          <section key={access.id} className="panel" aria-label={say('pending.label', { platform: access.platform.displayName })}>
            <p>{say('pending.text', { operator: operatorName(access), platform: access.platform.displayName, minutes: access.durationMinutes, reason: access.reason })}</p>
            <p>{say('pending.answerBy')} {when(access.answerBy)}</p>
            <div className="actions">
              <button type="button" className="button" disabled={busy !== null} onClick={() => void act(access, 'approve')}>{say('approve')}</button>
              <button type="button" className="button button-secondary" disabled={busy !== null} onClick={() => void act(access, 'refuse')}>{say('refuse')}</button>
            </div>
          </section>
        ))}
        {running.map((access) => (
          <section key={access.id} className="panel" aria-label={say('running.label', { platform: access.platform.displayName })}>
            <p>{say('running.text', { operator: operatorName(access), platform: access.platform.displayName, reason: access.reason })}</p>
            <p>{say('running.until')} {when(access.endsAt)}</p>
            <div className="actions">
              <button type="button" className="button button-danger" disabled={busy !== null} onClick={() => void act(access, 'end')}>{say('endNow')}</button>
            </div>
          </section>
        ))}
        <section className="panel" aria-labelledby="support-history-heading">
          <h2 id="support-history-heading">{say('history.title')}</h2>
          {history.length === 0 ? <p>{say('history.none')}</p> : (
            <ul className="support-history">
              {history.map((access) => (
                <li key={access.id}>
                  {say('history.item', { operator: operatorName(access), platform: access.platform.displayName, minutes: access.durationMinutes, reason: access.reason })}{' '}
                  ({say(`how.${access.mode}`)}, {say(`status.${access.status}`)}) {when(access.requestedAt)}
                </li>
              ))}
            </ul>
          )}
        </section>
      </LoadState>
    </>
  );
}
