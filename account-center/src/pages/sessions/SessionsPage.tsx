import { useCallback, useEffect, useState } from 'react';
import { ApiProblem, call, type Schemas } from '../../api.ts';
import { oneStepSignOutUrl, useSession } from '../../session.tsx';
import { ConfirmDialog } from '../../components/ConfirmDialog.tsx';
import { LoadState } from '../../components/LoadState.tsx';
import { Notice } from '../../components/Notice.tsx';
import { PageTitle } from '../../components/PageTitle.tsx';
import { SessionCard } from './SessionCard.tsx';
import './sessions.css';

type Session = Schemas['Session'];

const failureOf = (failure: unknown) => (failure instanceof ApiProblem ? failure : new ApiProblem(0, null));

/**
 * /sessions, "Where you're signed in": every live session of the person (each browser signed in
 * through the gateway), with the platforms it reached, a readable device and the coarse network.
 * One session can be ended, or all the others at once (DELETE /v1/sessions), or all of them:
 * the others first, then this browser's own sign-out, which also ends the provider's session.
 * The gateway tells every platform of an ended session (back-channel logout).
 */
export function SessionsPage() {
  const { api, config, me } = useSession();
  const [sessions, setSessions] = useState<Session[] | null>(null);
  const [error, setError] = useState<ApiProblem | null>(null);
  const [message, setMessage] = useState<{ tone: 'success' | 'warning'; text: string } | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const [confirmAll, setConfirmAll] = useState(false);

  const load = useCallback(async () => {
    setError(null);
    try {
      setSessions((await call(api.GET('/v1/sessions'))).items);
    } catch (failure) {
      setError(failureOf(failure));
    }
  }, [api]);

  useEffect(() => {
    void load();
  }, [load]);

  const platformNames = new Map((me?.memberships ?? []).map((membership) => [membership.platformKey, membership.displayName]));

  async function run(key: string, work: () => Promise<string>) {
    if (busy) return;
    setBusy(key);
    setMessage(null);
    try {
      setMessage({ tone: 'success', text: await work() });
      await load();
    } catch (failure) {
      const problem = failureOf(failure);
      setMessage({ tone: 'warning', text: problem.needsSignIn ? 'Your own sign-in has ended. Sign in again to manage your sessions.' : `Nothing was signed out. ${problem.message}` });
    } finally {
      setBusy(null);
    }
  }

  const endOne = (session: Session, name: string) =>
    run(session.id, async () => {
      await call(api.DELETE('/v1/sessions/{sessionId}', { params: { path: { sessionId: session.id } } }));
      return `Signed out of ${name}.`;
    });

  const endOthers = () =>
    run('others', async () => {
      const { endedCount } = await call(api.DELETE('/v1/sessions'));
      return endedCount === 1 ? 'Signed out of 1 other session.' : `Signed out of ${endedCount} other sessions.`;
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
      setMessage({ tone: 'warning', text: `Nothing was signed out. ${failureOf(failure).message}` });
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
      <PageTitle lead="Each sign-in to your account: the browser, when it was last used and the platforms it reached. A browser signed in to several platforms may show more than once. Sign out any you do not recognise.">
        Where you're signed in
      </PageTitle>
      {/* A live region present from the start, so each outcome is announced as it appears. */}
      <div aria-live="polite">{message ? <Notice tone={message.tone}><p>{message.text}</p></Notice> : null}</div>
      <LoadState loading={sessions === null && error === null} error={error} onRetry={() => void load()} what="your sessions">
        <ul className="sessions-list" aria-label="Your sessions">
          {(sessions ?? []).map((session) => (
            <SessionCard key={session.id} session={session} platformNames={platformNames} busy={busy !== null}
              onEnd={(name) => void (session.current ? endThis() : endOne(session, name))} />
          ))}
        </ul>
        <section className="panel sessions-everywhere" aria-labelledby="sessions-everywhere-heading">
          <h2 id="sessions-everywhere-heading">Sign out everywhere</h2>
          {others.length > 0 ? (
            <p>{others.length === 1 ? 'You have 1 other session.' : `You have ${others.length} other sessions.`} Every platform they reached is told to sign you out.</p>
          ) : (
            <p>You are signed in on this browser only.</p>
          )}
          <div className="actions">
            {others.length > 0 ? (
              <button type="button" className="button button-secondary" disabled={busy !== null} onClick={() => void endOthers()}>
                {busy === 'others' ? 'Signing out…' : 'Sign out everywhere else'}
              </button>
            ) : null}
            <button type="button" className="button button-danger" disabled={busy !== null} onClick={() => setConfirmAll(true)}>Sign out everywhere</button>
          </div>
        </section>
      </LoadState>
      <ConfirmDialog open={confirmAll} title="Sign out everywhere?" confirmLabel="Sign out everywhere" danger busy={busy === 'all'}
        onConfirm={() => void endAll()} onCancel={() => setConfirmAll(false)}>
        <p>Every browser signed in to your account is signed out, this one too, and every platform is told. You can sign in again at any time.</p>
      </ConfirmDialog>
    </>
  );
}
