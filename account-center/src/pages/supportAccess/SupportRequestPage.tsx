import { useState, type FormEvent } from 'react';
import { ApiProblem, call, problemOf, type Schemas } from '../../api.ts';
import { useGatewayRead } from '../../components/useGatewayRead.ts';
import { useSession } from '../../session.tsx';
import { LoadState } from '../../components/LoadState.tsx';
import { Notice } from '../../components/Notice.tsx';
import { PageTitle } from '../../components/PageTitle.tsx';
import { useIntl } from '../../i18n/useIntl.ts';
import { problemText } from '../../i18n/problems.ts';
import { retryAfterSeconds } from '../profile/profileModel.ts';

type SupportAccess = Schemas['SupportAccess'];

/**
 * /admin/support (operators holding support:access, issue 35): ask to see a platform as a person,
 * with a reason and a duration; the list shows each request's state, the sign-in link while it
 * can be used (it signs in once, in this browser, as you), and "End".
 */
export function SupportRequestPage() {
  const { api } = useSession();
  const intl = useIntl();
  const say = (id: string, values?: Record<string, string | number>) => intl.formatMessage({ id: `supportAccess.operator.${id}` }, values);
  const { value: items, error, load } = useGatewayRead(async () => (await call(api.GET('/v1/support-access'))).items, [api]);
  const [form, setForm] = useState({ person: '', platformKey: '', reason: '', durationMinutes: 15 });
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<{ tone: 'success' | 'warning'; text: string } | null>(null);

  async function run(work: () => Promise<string>) {
    setBusy(true);
    setMessage(null);
    try {
      setMessage({ tone: 'success', text: await work() });
      await load();
    } catch (failure) {
      setMessage({ tone: 'warning', text: problemText(intl, problemOf(failure)) });
    } finally {
      setBusy(false);
    }
  }

  const submit = (event: FormEvent) => {
    event.preventDefault();
    void run(async () => {
      const sent = api.POST('/v1/support-access', { body: { ...form, reason: form.reason.trim() } });
      try {
        const created = await call(sent);
        return say(created.status === 'pending' ? 'result.pending' : 'result.active');
      } catch (failure) {
        throw await tooManyRequestsWithWait(failure, sent);
      }
    });
  };

  /**
   * The person was asked 3 times in 10 minutes (429 TOO_MANY_SUPPORT_REQUESTS): say when the
   * operator may ask again, from the answer's Retry-After (exposed to the account center), so
   * they neither retry blindly nor think the gateway broke. Any other failure stays as it is.
   */
  async function tooManyRequestsWithWait(failure: unknown, sent: Promise<{ response: Response }>): Promise<unknown> {
    const problem = problemOf(failure);
    if (problem.problem?.code !== 'TOO_MANY_SUPPORT_REQUESTS') return failure;
    const answer = await sent.catch(() => null);
    const seconds = retryAfterSeconds(answer?.response.headers.get('Retry-After') ?? null, problem.problem.detail);
    if (seconds === null) return failure;
    return new ApiProblem(-1, null, say('tooMany', { minutes: Math.ceil(seconds / 60) }));
  }
  const end = (access: SupportAccess) =>
    run(async () => {
      await call(api.POST('/v1/support-access/{supportAccessId}/end', { params: { path: { supportAccessId: access.id } } }));
      return say('result.ended');
    });

  return (
    <>
      <PageTitle lead={say('lead')}>{say('title')}</PageTitle>
      <div aria-live="polite">{message ? <Notice tone={message.tone}><p>{message.text}</p></Notice> : null}</div>
      <form className="panel form" onSubmit={submit}>
        <label>{say('person')}<input type="text" required value={form.person} maxLength={320} onChange={(e) => setForm({ ...form, person: e.target.value })} /></label>
        <label>{say('platform')}<input type="text" required value={form.platformKey} pattern="[A-Z][A-Z0-9_]{1,63}" onChange={(e) => setForm({ ...form, platformKey: e.target.value })} /></label>
        <label>{say('reason')}<textarea required maxLength={500} value={form.reason} onChange={(e) => setForm({ ...form, reason: e.target.value })} /></label>
        <label>{say('duration')}<input type="number" min={1} max={30} required value={form.durationMinutes} onChange={(e) => setForm({ ...form, durationMinutes: Number(e.target.value) })} /></label>
        <div className="actions"><button type="submit" className="button" disabled={busy}>{say('submit')}</button></div>
      </form>
      <LoadState loading={items === null && error === null} error={error} onRetry={() => void load()} what={say('what')}>
        <ul className="support-requests" aria-label={say('list')}>
          {(items ?? []).map((access) => (
            <li key={access.id} className="panel">
              <p>{say('item', { person: access.person.displayName ?? access.person.sub, platform: access.platform.displayName, minutes: access.durationMinutes })} — {intl.formatMessage({ id: `supportAccess.status.${access.status}` })}</p>
              {access.signInUrl ? <p><a className="button" href={access.signInUrl}>{say('signIn', { platform: access.platform.displayName })}</a></p> : null}
              {access.status === 'pending' || access.status === 'active' ? (
                <button type="button" className="button button-secondary" disabled={busy} onClick={() => void end(access)}>{say('end')}</button>
              ) : null}
            </li>
          ))}
        </ul>
      </LoadState>
    </>
  );
}
