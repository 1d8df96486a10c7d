import { useRef, useState, type FormEvent } from 'react';
import { ApiProblem, type Problem } from '../../api.ts';
import { useSession } from '../../session.tsx';
import { ErrorSummary } from '../../components/ErrorSummary.tsx';
import { Field } from '../../components/Field.tsx';
import { Notice } from '../../components/Notice.tsx';
import { retryAfterSeconds, sentence, tooManyAttemptsText } from './profileModel.ts';
import { useSummarySlot } from './summarySlot.tsx';

type Errors = { currentPassword?: string; newPassword?: string };
type Outcome = { kind: 'changed' } | { kind: 'failed'; message: string; errors: Errors; attempt: number };

const LABELS = { currentPassword: 'Current password', newPassword: 'New password' } as const;

/**
 * Changing the password at the identity provider. The passwords live only in this form's
 * state: never in a URL (the form is never submitted by the browser), storage or a log, and
 * they are cleared once changed.
 */
export function PasswordSection() {
  const { api, me } = useSession();
  const summary = useSummarySlot('password');
  const [currentPassword, setCurrentPassword] = useState('');
  const [newPassword, setNewPassword] = useState('');
  const [show, setShow] = useState(false);
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const attempts = useRef(0);
  const ids = useRef<Record<keyof Errors, string>>({ currentPassword: '', newPassword: '' });

  const errors = outcome?.kind === 'failed' ? outcome.errors : {};
  const fail = (message: string, fieldErrors: Errors = {}) => {
    attempts.current += 1;
    summary.claim();
    setOutcome({ kind: 'failed', message, errors: fieldErrors, attempt: attempts.current });
  };

  async function change(event: FormEvent) {
    event.preventDefault();
    if (busy) return;
    const missing: Errors = {};
    if (currentPassword === '') missing.currentPassword = 'Enter your current password.';
    if (newPassword === '') missing.newPassword = 'Enter a new password.';
    else if ([...newPassword].length < 8) missing.newPassword = 'Use at least 8 characters for the new password.';
    if (Object.keys(missing).length > 0) {
      fail('Your password was not changed.', missing);
      return;
    }
    setBusy(true);
    try {
      // Not call(): a 429's Retry-After is in the response's headers.
      const result = await api.POST('/v1/account/password', { body: { currentPassword, newPassword } }).catch(() => null);
      if (!result) {
        fail('Your password was not changed: the gateway could not be reached. Check your connection and try again.');
        return;
      }
      const { response } = result;
      if (response.ok) {
        setCurrentPassword('');
        setNewPassword('');
        setOutcome({ kind: 'changed' });
        return;
      }
      const problem = (result.error && typeof result.error === 'object' && 'code' in result.error ? result.error : null) as Problem | null;
      if (response.status === 429) {
        fail(tooManyAttemptsText(retryAfterSeconds(response.headers.get('Retry-After'), problem?.detail)));
      } else if (response.status === 403 && problem?.code !== 'ORIGIN_NOT_ALLOWED') {
        fail('Your password was not changed.', { currentPassword: 'The current password is not correct.' });
      } else if (response.status === 400) {
        const found = new ApiProblem(400, problem).fieldErrors();
        const fieldErrors: Errors = {};
        if (found.has('newPassword')) fieldErrors.newPassword = sentence(found.get('newPassword')!);
        if (found.has('currentPassword')) fieldErrors.currentPassword = sentence(`${LABELS.currentPassword} ${found.get('currentPassword')!}`);
        fail(`Your password was not changed.${Object.keys(fieldErrors).length === 0 && problem?.detail ? ` ${problem.detail}` : ''}`, fieldErrors);
      } else {
        const detail = new ApiProblem(response.status, problem).message;
        fail(response.status === 503
          ? 'Your password was not changed: your sign-in provider cannot be reached right now. Try again later.'
          : response.status === 401 ? 'Your sign-in has ended. Sign in again to change your password.' : `Your password was not changed. ${detail}`);
      }
    } finally {
      setBusy(false);
    }
  }

  return (
    // method=post: should this form ever be submitted without the script, nothing goes into a URL.
    <form method="post" noValidate onSubmit={change}>
      {outcome?.kind === 'failed' && summary.visible ? (
        <ErrorSummary
          key={outcome.attempt}
          message={outcome.message}
          errors={(Object.entries(outcome.errors) as [keyof Errors, string][]).map(([key, message]) => ({ inputId: ids.current[key], label: LABELS[key], message }))}
        />
      ) : null}
      {outcome?.kind === 'changed' ? (
        <Notice tone="success" title="Your password was changed.">
          <p>Use the new password the next time you sign in.</p>
        </Notice>
      ) : null}
      {/* For password managers: whose password this is (hidden, not focusable). */}
      <input type="text" name="username" autoComplete="username" value={me?.user.email ?? ''} readOnly hidden />
      <div className="form-grid">
        <Field label={LABELS.currentPassword} width="half" error={errors.currentPassword ?? null}>
          {({ id, describedBy, invalid }) => {
            ids.current.currentPassword = id;
            return (
              <input id={id} type={show ? 'text' : 'password'} autoComplete="current-password" value={currentPassword} maxLength={512}
                aria-describedby={describedBy} aria-invalid={invalid || undefined} onChange={(event) => setCurrentPassword(event.target.value)} />
            );
          }}
        </Field>
        <Field label={LABELS.newPassword} width="half" error={errors.newPassword ?? null}
          help="At least 8 characters. Your sign-in provider may have more rules; if it refuses the password, it says why here.">
          {({ id, describedBy, invalid }) => {
            ids.current.newPassword = id;
            return (
              <input id={id} type={show ? 'text' : 'password'} autoComplete="new-password" value={newPassword} maxLength={512}
                aria-describedby={describedBy} aria-invalid={invalid || undefined} onChange={(event) => setNewPassword(event.target.value)} />
            );
          }}
        </Field>
      </div>
      <label className="choice profile-show-passwords">
        <input type="checkbox" checked={show} onChange={(event) => setShow(event.target.checked)} />
        <span>Show passwords</span>
      </label>
      <div className="actions">
        <button type="submit" className="button" aria-disabled={busy || undefined}>{busy ? 'Changing…' : 'Change password'}</button>
      </div>
    </form>
  );
}
