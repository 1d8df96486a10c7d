import { useState } from 'react';
import { call, problemOf, type Schemas } from '../../api.ts';
import { useGatewayRead } from '../../components/useGatewayRead.ts';
import { oneStepSignOutUrl, useSession } from '../../session.tsx';
import { ConfirmDialog } from '../../components/ConfirmDialog.tsx';
import { LoadState } from '../../components/LoadState.tsx';
import { Notice } from '../../components/Notice.tsx';
import { PageTitle } from '../../components/PageTitle.tsx';
import { SessionCard } from './SessionCard.tsx';
import { useIntl } from '../../i18n/useIntl.ts';
import { problemText } from '../../i18n/problems.ts';
import './sessions.css';

type Session = Schemas['Session'];


/**
 * /sessions, "Where you're signed in": every live session of the person (each browser signed in
 * through the gateway), with the platforms it reached, a readable device and the coarse network.
 * One session can be ended, or all the others at once (DELETE /v1/sessions), or all of them:
 * the others first, then this browser's own sign-out, which also ends the provider's session.
 * The gateway tells every platform of an ended session (back-channel logout).
 */
export function SessionsPage() {
  const { api, config, me } = useSession();
  const { value: sessions, error, load } = useGatewayRead(async () => (await call(api.GET('/v1/sessions'))).items, [api]);
  const [message, setMessage] = useState<{ tone: 'success' | 'warning'; text: string } | null>(null);
  const intl = useIntl();
  const say = (id: string, values?: Record<string, string | number>) => intl.formatMessage({ id: `sessions.${id}` }, values);
  const [busy, setBusy] = useState<string | null>(null);
  const [confirmAll, setConfirmAll] = useState(false);


  const platformNames = new Map((me?.memberships ?? []).map((membership) => [membership.platformKey, membership.displayName]));

  async function run(key: string, work: () => Promise<string>) {
    if (busy) return;
    setBusy(key);
    setMessage(null);
    try {
      setMessage({ tone: 'success', text: await work() });
      await load();
    } catch (failure) {
      const problem = problemOf(failure);
      setMessage({ tone: 'warning', text: problem.needsSignIn ? say('result.ownEnded') : say('result.nothing', { message: problemText(intl, problem) }) });
    } finally {
      setBusy(null);
    }
  }

  const endOne = (session: Session, name: string) =>
    run(session.id, async () => {
      await call(api.DELETE('/v1/sessions/{sessionId}', { params: { path: { sessionId: session.id } } }));
      return say('result.one', { name });
    });

  const endOthers = () =>
    run('others', async () => {
      const { endedCount } = await call(api.DELETE('/v1/sessions'));
      return say('result.others', { count: endedCount });
    });

  // Everywhere: the others in one request, then this browser through the gateway's sign-out (a
  // whole-page navigation that ends the provider's session too and lands on /signed-out).
  async function endAll() {
    setBusy('all');
    try {
      await call(api.DELETE('/v1/sessions'));
    } catch (failure) {
      setBusy(null);
      setConfirmAll(false);
      setMessage({ tone: 'warning', text: say('result.nothing', { message: problemText(intl, problemOf(failure)) }) });
      return;
    }
    window.location.assign(await oneStepSignOutUrl(api, config));
  }

  async function endThis() {
    setBusy('this');
    window.location.assign(await oneStepSignOutUrl(api, config));
  }

  const others = (sessions ?? []).filter((session) => !session.current);
  return (
    <>
      <PageTitle lead={say('lead')}>{say('title')}</PageTitle>
      {/* A live region present from the start, so each outcome is announced as it appears. */}
      <div aria-live="polite">{message ? <Notice tone={message.tone}><p>{message.text}</p></Notice> : null}</div>
      <LoadState loading={sessions === null && error === null} error={error} onRetry={() => void load()} what={say('what')}>
        <ul className="sessions-list" aria-label={say('list')}>
          {(sessions ?? []).map((session) => (
            <SessionCard key={session.id} session={session} platformNames={platformNames} busy={busy !== null}
              onEnd={(name) => void (session.current ? endThis() : endOne(session, name))} />
          ))}
        </ul>
        <section className="panel sessions-everywhere" aria-labelledby="sessions-everywhere-heading">
          <h2 id="sessions-everywhere-heading">{say('everywhere.title')}</h2>
          {others.length > 0 ? (
            <p>{say('everywhere.others', { count: others.length })}</p>
          ) : (
            <p>{say('everywhere.none')}</p>
          )}
          <div className="actions">
            {others.length > 0 ? (
              <button type="button" className="button button-secondary" disabled={busy !== null} onClick={() => void endOthers()}>
                {busy === 'others' ? say('everywhere.signingOut') : say('everywhere.else')}
              </button>
            ) : null}
            <button type="button" className="button button-danger" disabled={busy !== null} onClick={() => setConfirmAll(true)}>{say('everywhere.all')}</button>
          </div>
        </section>
      </LoadState>
      <ConfirmDialog open={confirmAll} title={say('confirm.title')} confirmLabel={say('everywhere.all')} danger busy={busy === 'all'}
        onConfirm={() => void endAll()} onCancel={() => setConfirmAll(false)}>
        <p>{say('confirm.body')}</p>
      </ConfirmDialog>
    </>
  );
}
