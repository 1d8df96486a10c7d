import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { call } from '../../../api.ts';
import { useSession } from '../../../session.tsx';
import { Field } from '../../../components/Field.tsx';
import { ErrorSummary } from '../../../components/ErrorSummary.tsx';
import { Notice } from '../../../components/Notice.tsx';
import { EventDeliveryFields } from './EventDeliveryFields.tsx';
import { HANDOFF_CHALLENGE_OFF_WARNING, MAX_RETURN_URLS, MODE_OPTIONS, PLATFORM_KEY_HINT, toProblem, type OnboardingMode, type Platform, type PlatformWithCredentials } from './model.ts';
import {
  buildCreateRequest,
  buildUpdateRequest,
  emptyFormValues,
  FIELD_LABELS,
  formValuesOf,
  mapProblemToForm,
  newReturnUrlRow,
  returnUrlKey,
  validateForm,
  type ErrorKey,
  type FieldName,
  type FormErrors,
  type PlatformFormValues,
} from './platformForm.ts';

type FormProps =
  | { mode: 'create'; onCreated: (created: PlatformWithCredentials) => void; cancelTo: string }
  | { mode: 'edit'; platform: Platform; onSaved: (platform: Platform, changed: string[]) => void; cancelTo: string };

/**
 * The platform form, for registering (every property, the key upper-cased as typed) and for
 * editing (the key read-only, only changed properties sent). Checks what it can before
 * sending; the registry's errors are shown beside their inputs and listed above the form.
 */
export function PlatformForm(props: FormProps) {
  const { api } = useSession();
  const { mode } = props;
  const [values, setValues] = useState<PlatformFormValues>(() => (props.mode === 'edit' ? formValuesOf(props.platform) : emptyFormValues()));
  const [errors, setErrors] = useState<FormErrors>(new Map());
  const [summary, setSummary] = useState<{ message: string; attempt: number } | null>(null);
  const [info, setInfo] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const attempts = useRef(0);
  /** Input ids by error key, filled as the fields render, for the summary's links. */
  const inputIds = useRef(new Map<ErrorKey, string>());
  const addButtonId = useId();
  const formId = useId();
  const pendingFocus = useRef<string | null>(null);

  // After adding or removing a return URL row, the focus goes to the new row, or to the row
  // (or the Add button) that took the removed one's place. A new row's input id is known only
  // once it has rendered, hence the row id in `pending:`.
  useEffect(() => {
    const pending = pendingFocus.current;
    if (pending === null) return;
    pendingFocus.current = null;
    const id = pending.startsWith('pending:') ? inputIds.current.get(returnUrlKey(pending.slice('pending:'.length))) : pending;
    if (id) document.getElementById(id)?.focus();
  });

  const set = <K extends keyof PlatformFormValues>(name: K, value: PlatformFormValues[K]) => setValues((previous) => ({ ...previous, [name]: value }));
  const clearError = (key: ErrorKey) =>
    setErrors((previous) => {
      if (!previous.has(key)) return previous;
      const next = new Map(previous);
      next.delete(key);
      return next;
    });
  const errorOf = (key: ErrorKey) => errors.get(key) ?? null;
  const remember = (key: ErrorKey, id: string) => {
    inputIds.current.set(key, id);
    return id;
  };
  /** The control of a checkbox field bound to one boolean of the form, its error under errorKey. */
  const checkbox =
    (name: 'centralOnboardingEnabled' | 'handoffChallengeRequired' | 'createInactive', errorKey: ErrorKey) =>
    ({ id, describedBy, invalid }: { id: string; describedBy: string | undefined; invalid: boolean }) => (
      <input
        id={remember(errorKey, id)}
        name={name}
        type="checkbox"
        checked={values[name]}
        aria-describedby={describedBy}
        aria-invalid={invalid || undefined}
        onChange={(event) => {
          set(name, event.target.checked);
          clearError(errorKey);
        }}
      />
    );

  const fail = (message: string, fieldErrors: FormErrors) => {
    attempts.current += 1;
    setErrors(fieldErrors);
    setInfo(null);
    setSummary({ message, attempt: attempts.current });
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (busy) return;
    const clientErrors = validateForm(values, mode);
    if (clientErrors.size > 0) {
      fail(`The platform was not ${mode === 'create' ? 'registered' : 'saved'}: correct the marked fields.`, clientErrors);
      return;
    }
    const create = props.mode === 'create' ? buildCreateRequest(values) : null;
    const update = props.mode === 'edit' ? buildUpdateRequest(props.platform, values) : null;
    if (update && Object.keys(update.body).length === 0) {
      setErrors(new Map());
      setSummary(null);
      setInfo('Nothing to save: no property was changed.');
      return;
    }
    setBusy(true);
    setInfo(null);
    try {
      if (props.mode === 'create' && create) {
        props.onCreated(await call(api.POST('/v1/platforms', { body: create.body })));
      } else if (props.mode === 'edit' && update) {
        const updated = await call(api.PATCH('/v1/platforms/{platformKey}', { params: { path: { platformKey: props.platform.platformKey } }, body: update.body }));
        props.onSaved(updated, Object.keys(update.body));
      }
    } catch (failure) {
      const problem = toProblem(failure);
      const placed = mapProblemToForm(problem, (create ?? update)?.rowIds ?? [], mode);
      const verb = mode === 'create' ? 'registered' : 'saved';
      let message: string;
      if (problem.status === 409 && create && placed.errors.has('platformKey')) message = `The platform was not registered: the key ${create.body.platformKey} is taken.`;
      else if (problem.status === 400 && placed.errors.size > 0) message = `The platform was not ${verb}: the registry refused the marked fields.`;
      else message = `The platform was not ${verb}. ${problem.message}`;
      if (placed.other.length > 0) message += ` ${placed.other.join('; ')}`;
      fail(message, placed.errors);
    } finally {
      setBusy(false);
    }
  };

  const summaryEntries = [...errors].map(([key, message]) => ({
    inputId: inputIds.current.get(key) ?? (key === 'allowedReturnUrls' ? addButtonId : formId),
    label: labelOf(key, values),
    message,
  }));

  const addRow = () => {
    const row = newReturnUrlRow();
    setValues((previous) => ({ ...previous, returnUrls: [...previous.returnUrls, row] }));
    pendingFocus.current = `pending:${row.id}`;
  };
  const removeRow = (index: number) => {
    const rows = values.returnUrls;
    const removed = rows[index]!;
    const next = rows[index + 1] ?? rows[index - 1];
    setValues((previous) => ({ ...previous, returnUrls: previous.returnUrls.filter((row) => row.id !== removed.id) }));
    clearError(returnUrlKey(removed.id));
    pendingFocus.current = next ? (inputIds.current.get(returnUrlKey(next.id)) ?? addButtonId) : addButtonId;
  };

  const selectedMode = MODE_OPTIONS.find((option) => option.value === values.mode);

  return (
    <form id={formId} className="platforms-form" noValidate onSubmit={(event) => void submit(event)} aria-busy={busy}>
      {summary ? <ErrorSummary key={summary.attempt} message={summary.message} errors={summaryEntries} /> : null}
      {info ? <Notice>{info}</Notice> : null}

      <section className="panel" aria-labelledby={`${formId}-identity`}>
        <h2 id={`${formId}-identity`}>Identity</h2>
        <div className="form-grid">
          <Field label="Platform key" required={mode === 'create'} help={mode === 'create' ? PLATFORM_KEY_HINT : 'The key cannot be changed.'} error={errorOf('platformKey')} width="half">
            {({ id, describedBy, invalid }) => (
              <input
                id={remember('platformKey', id)}
                name="platformKey"
                type="text"
                className="platforms-mono"
                value={values.platformKey}
                readOnly={mode === 'edit'}
                aria-describedby={describedBy}
                aria-invalid={invalid || undefined}
                aria-required={mode === 'create' || undefined}
                autoCapitalize="characters"
                autoComplete="off"
                spellCheck={false}
                maxLength={64}
                onChange={(event) => {
                  // Upper-cased as typed, keeping the caret where it was.
                  const input = event.currentTarget;
                  const upper = input.value.toUpperCase();
                  if (upper !== input.value) {
                    const { selectionStart, selectionEnd } = input;
                    input.value = upper;
                    if (selectionStart !== null && selectionEnd !== null) input.setSelectionRange(selectionStart, selectionEnd);
                  }
                  set('platformKey', upper);
                  clearError('platformKey');
                }}
              />
            )}
          </Field>
          <Field label="Display name" required help="How people see the platform, for example on the sign-in page." error={errorOf('displayName')} width="half">
            {({ id, describedBy, invalid }) => (
              <input
                id={remember('displayName', id)}
                name="displayName"
                type="text"
                value={values.displayName}
                aria-describedby={describedBy}
                aria-invalid={invalid || undefined}
                aria-required
                maxLength={200}
                onChange={(event) => {
                  set('displayName', event.target.value);
                  clearError('displayName');
                }}
              />
            )}
          </Field>
        </div>
      </section>

      <section className="panel" aria-labelledby={`${formId}-addresses`}>
        <h2 id={`${formId}-addresses`}>Addresses</h2>
        <div className="form-grid">
          <Field
            label="Callback URL"
            help="The platform's handoff endpoint, where the browser goes after sign-in, for example https://app.example.com/auth/callback. No user name, password or #fragment. Needed for an active platform."
            error={errorOf('callbackUrl')}
          >
            {({ id, describedBy, invalid }) => (
              <input
                id={remember('callbackUrl', id)}
                name="callbackUrl"
                type="url"
                inputMode="url"
                value={values.callbackUrl}
                aria-describedby={describedBy}
                aria-invalid={invalid || undefined}
                autoComplete="off"
                spellCheck={false}
                onChange={(event) => {
                  set('callbackUrl', event.target.value);
                  clearError('callbackUrl');
                }}
              />
            )}
          </Field>
          <Field
            label="Back-channel logout URL"
            help="Optional: the platform back end's back-channel logout endpoint. When a person's gateway session ends, the gateway posts a signed logout token there. No user name, password or #fragment."
            error={errorOf('backchannelLogoutUrl')}
          >
            {({ id, describedBy, invalid }) => (
              <input
                id={remember('backchannelLogoutUrl', id)}
                name="backchannelLogoutUrl"
                type="url"
                inputMode="url"
                value={values.backchannelLogoutUrl}
                aria-describedby={describedBy}
                aria-invalid={invalid || undefined}
                autoComplete="off"
                spellCheck={false}
                onChange={(event) => {
                  set('backchannelLogoutUrl', event.target.value);
                  clearError('backchannelLogoutUrl');
                }}
              />
            )}
          </Field>
          <EventDeliveryFields
            values={values}
            errorOf={errorOf}
            remember={remember}
            onChange={(name, value) => {
              set(name, value as never);
              clearError(name);
            }}
          />
          <Field
            kind="group"
            label="Allowed return URLs"
            description="After sign-in a person may only be sent to an address under one of these roots. A trailing slash matters: https://app.example.com/app/ admits only pages below /app/, https://app.example.com/app also /app itself. No query or #fragment. An active platform needs at least one."
            error={errorOf('allowedReturnUrls')}
          >
            {() => (
              <>
                {values.returnUrls.length === 0 ? <p className="platforms-muted">No return URL yet.</p> : null}
                <ol className="platforms-url-list">
                  {values.returnUrls.map((row, index) => (
                    <li key={row.id}>
                      <Field label={`Return URL ${index + 1}`} error={errorOf(returnUrlKey(row.id))}>
                        {({ id, describedBy, invalid }) => (
                          <div className="platforms-url-row">
                            <input
                              id={remember(returnUrlKey(row.id), id)}
                              type="url"
                              inputMode="url"
                              value={row.value}
                              aria-describedby={describedBy}
                              aria-invalid={invalid || undefined}
                              autoComplete="off"
                              spellCheck={false}
                              onChange={(event) => {
                                const value = event.target.value;
                                setValues((previous) => ({ ...previous, returnUrls: previous.returnUrls.map((item) => (item.id === row.id ? { ...item, value } : item)) }));
                                clearError(returnUrlKey(row.id));
                              }}
                            />
                            <button type="button" className="button button-secondary" aria-label={`Remove return URL ${index + 1}`} onClick={() => removeRow(index)}>
                              Remove
                            </button>
                          </div>
                        )}
                      </Field>
                    </li>
                  ))}
                </ol>
                <button
                  type="button"
                  id={addButtonId}
                  className="button button-secondary"
                  onClick={() => {
                    addRow();
                    clearError('allowedReturnUrls');
                  }}
                  disabled={values.returnUrls.length >= MAX_RETURN_URLS}
                >
                  Add return URL
                </button>
              </>
            )}
          </Field>
        </div>
      </section>

      <section className="panel" aria-labelledby={`${formId}-onboarding`}>
        <h2 id={`${formId}-onboarding`}>Onboarding</h2>
        <div className="form-grid">
          <Field label="Onboarding mode" help={selectedMode?.description} error={errorOf('defaultOnboardingMode')} width="half">
            {({ id, describedBy, invalid }) => (
              <select
                id={remember('defaultOnboardingMode', id)}
                name="defaultOnboardingMode"
                value={values.mode}
                aria-describedby={describedBy}
                aria-invalid={invalid || undefined}
                onChange={(event) => {
                  set('mode', event.target.value as OnboardingMode);
                  clearError('defaultOnboardingMode');
                }}
              >
                {MODE_OPTIONS.map((option) => <option key={option.value} value={option.value}>{option.label}</option>)}
              </select>
            )}
          </Field>
          <Field label="Onboarding path" help="For mode Platform: the path of the platform's own onboarding page, starting with /, for example /onboarding. Leave empty when there is none." error={errorOf('platformOnboardingPath')} width="half">
            {({ id, describedBy, invalid }) => (
              <input
                id={remember('platformOnboardingPath', id)}
                name="platformOnboardingPath"
                type="text"
                value={values.onboardingPath}
                aria-describedby={describedBy}
                aria-invalid={invalid || undefined}
                autoComplete="off"
                spellCheck={false}
                onChange={(event) => {
                  set('onboardingPath', event.target.value);
                  clearError('platformOnboardingPath');
                }}
              />
            )}
          </Field>
          <Field kind="checkbox" label="Central onboarding enabled" help="Lets the account center onboard this platform's users. Required for mode Central." error={errorOf('centralOnboardingEnabled')}>
            {checkbox('centralOnboardingEnabled', 'centralOnboardingEnabled')}
          </Field>
          <Field
            kind="checkbox"
            label="Require a handoff challenge"
            help="Sign-ins must start with handoffChallenge, and the platform's back end must hold the verifier to exchange the code. Keep this on."
            description={values.handoffChallengeRequired ? null : HANDOFF_CHALLENGE_OFF_WARNING}
            error={errorOf('handoffChallengeRequired')}
          >
            {checkbox('handoffChallengeRequired', 'handoffChallengeRequired')}
          </Field>
        </div>
      </section>

      <section className="panel" aria-labelledby={`${formId}-more`}>
        <h2 id={`${formId}-more`}>{mode === 'create' ? 'Metadata and status' : 'Metadata'}</h2>
        <div className="form-grid">
          <Field label="Metadata (JSON)" help='A JSON object for the platform’s own use (at most 100 properties and 16 KiB), for example {"team": "identity"}. The gateway never reads it.' error={errorOf('metadata')}>
            {({ id, describedBy, invalid }) => (
              <textarea
                id={remember('metadata', id)}
                name="metadata"
                className="platforms-mono"
                rows={6}
                value={values.metadata}
                aria-describedby={describedBy}
                aria-invalid={invalid || undefined}
                spellCheck={false}
                autoCapitalize="off"
                onChange={(event) => {
                  set('metadata', event.target.value);
                  clearError('metadata');
                }}
              />
            )}
          </Field>
          {mode === 'create' ? (
            <Field kind="checkbox" label="Create inactive" help="An inactive platform accepts no sign-ins. It may be saved without a callback URL and return URLs; activate it later." error={errorOf('active')}>
              {checkbox('createInactive', 'active')}
            </Field>
          ) : null}
        </div>
      </section>

      <div className="actions">
        <button type="submit" className="button" disabled={busy}>
          {busy ? (mode === 'create' ? 'Registering…' : 'Saving…') : mode === 'create' ? 'Register platform' : 'Save changes'}
        </button>
        <Link className="button button-secondary" to={props.cancelTo}>Cancel</Link>
      </div>
    </form>
  );
}

function labelOf(key: ErrorKey, values: PlatformFormValues): string {
  if (key.startsWith('returnUrl:')) {
    const index = values.returnUrls.findIndex((row) => returnUrlKey(row.id) === key);
    return `Return URL ${index + 1}`;
  }
  return FIELD_LABELS[key as FieldName] ?? key;
}
