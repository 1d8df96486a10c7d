import { useRef, useState, type FormEvent } from 'react';
import { useIntl } from 'react-intl';
import { ApiProblem, type Problem } from '../../api.ts';
import { useSession } from '../../session.tsx';
import { ErrorSummary } from '../../components/ErrorSummary.tsx';
import { Field } from '../../components/Field.tsx';
import { Notice } from '../../components/Notice.tsx';
import { retryAfterSeconds, sentence, tooManyAttemptsText } from './profileModel.ts';
import { problemText, reasonText } from '../../i18n/problems.ts';
import { useSummarySlot } from './summarySlot.tsx';

type Errors = { currentPassword?: string; newPassword?: string };
type Outcome = { kind: 'changed' } | { kind: 'failed'; message: string; errors: Errors; attempt: number };

/** The two inputs; their labels are `account.password.<key>`. */
const LABEL_IDS = { currentPassword: 'account.password.currentPassword', newPassword: 'account.password.newPassword' } as const;

/**
 * Changing the password at the identity provider. The passwords live only in this form's
 * state: never in a URL (the form is never submitted by the browser), storage or a log, and
 * they are cleared once changed.
 */
export function PasswordSection() {
  const { api, me } = useSession();
  const summary = useSummarySlot('password');
  const intl = useIntl();
  const t = (id: string, values?: Record<string, string | number>) => intl.formatMessage({ id }, values);
  const labelOf = (key: keyof Errors) => t(LABEL_IDS[key]);
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
    if (currentPassword === '') missing.currentPassword = t('account.password.currentMissing');
    if (newPassword === '') missing.newPassword = t('account.password.newMissing');
    else if ([...newPassword].length < 8) missing.newPassword = t('account.password.tooShort', { min: 8 });
    if (Object.keys(missing).length > 0) {
      fail(t('account.password.notChanged'), missing);
      return;
    }
    setBusy(true);
    try {
      // Not call(): a 429's Retry-After is in the response's headers.
      const result = await api.POST('/v1/account/password', { body: { currentPassword, newPassword } }).catch(() => null);
      if (!result) {
        fail(t('account.password.network'));
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
        fail(tooManyAttemptsText(intl, retryAfterSeconds(response.headers.get('Retry-After'), problem?.detail)));
      } else if (response.status === 403 && problem?.code !== 'ORIGIN_NOT_ALLOWED') {
        fail(t('account.password.notChanged'), { currentPassword: t('account.password.wrongCurrent') });
      } else if (response.status === 400) {
        const found = new ApiProblem(400, problem).fieldErrors();
        const reasons = new Map((problem?.errors ?? []).map((error) => [error.pointer, error.reason]));
        const fieldErrors: Errors = {};
        // The provider's own words for a refused new password (its policy) say what to change: kept as sent.
        if (found.has('newPassword')) fieldErrors.newPassword = sentence(found.get('newPassword')!);
        if (found.has('currentPassword')) {
          fieldErrors.currentPassword =
            reasonText(intl, reasons.get('/body/currentPassword'), labelOf('currentPassword')) ?? sentence(`${labelOf('currentPassword')} ${found.get('currentPassword')!}`);
        }
        fail(Object.keys(fieldErrors).length === 0 && problem?.detail ? t('account.password.notChangedDetail', { detail: problem.detail }) : t('account.password.notChanged'), fieldErrors);
      } else {
        const detail = problemText(intl, new ApiProblem(response.status, problem));
        fail(response.status === 503
          ? t('account.password.providerDown')
          : response.status === 401 ? t('account.password.signedOut') : t('account.password.notChangedDetail', { detail }));
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
          errors={(Object.entries(outcome.errors) as [keyof Errors, string][]).map(([key, message]) => ({ inputId: ids.current[key], label: labelOf(key), message }))}
        />
      ) : null}
      {outcome?.kind === 'changed' ? (
        <Notice tone="success" title={t('account.password.changed')}>
          <p>{t('account.password.changedNext')}</p>
        </Notice>
      ) : null}
      {/* For password managers: whose password this is (hidden, not focusable). */}
      <input type="text" name="username" autoComplete="username" value={me?.user.email ?? ''} readOnly hidden />
      <div className="form-grid">
        <Field label={labelOf('currentPassword')} width="half" error={errors.currentPassword ?? null}>
          {({ id, describedBy, invalid }) => {
            ids.current.currentPassword = id;
            return (
              <input id={id} type={show ? 'text' : 'password'} autoComplete="current-password" value={currentPassword} maxLength={512}
                aria-describedby={describedBy} aria-invalid={invalid || undefined} onChange={(event) => setCurrentPassword(event.target.value)} />
            );
          }}
        </Field>
        <Field label={labelOf('newPassword')} width="half" error={errors.newPassword ?? null}
          help={t('account.password.newHelp', { min: 8 })}>
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
        <span>{t('account.password.show')}</span>
      </label>
      <div className="actions">
        <button type="submit" className="button" aria-disabled={busy || undefined}>{t(busy ? 'account.password.changing' : 'account.password.change')}</button>
      </div>
    </form>
  );
}
