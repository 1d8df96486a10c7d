import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { useIntl, type IntlShape } from 'react-intl';
import { call } from '../../../api.ts';
import { useSession } from '../../../session.tsx';
import { Field } from '../../../components/Field.tsx';
import { ErrorSummary } from '../../../components/ErrorSummary.tsx';
import { Notice } from '../../../components/Notice.tsx';
import { EventDeliveryFields } from './EventDeliveryFields.tsx';
import { problemText } from '../../../i18n/problems.ts';
import { MAX_RETURN_URLS, MODES, toProblem, type OnboardingMode, type Platform, type PlatformWithCredentials } from './model.ts';
import {
  buildCreateRequest,
  buildUpdateRequest,
  emptyFormValues,
  fieldLabel,
  formValuesOf,
  mapProblemToForm,
  newReturnUrlRow,
  returnUrlKey,
  validateForm,
  type ErrorKey,
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
  const intl = useIntl();
  const t = (id: string, values?: Record<string, string | number>) => intl.formatMessage({ id }, values);
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
    const clientErrors = validateForm(intl, values, mode);
    if (clientErrors.size > 0) {
      fail(t(mode === 'create' ? 'platforms.form.notRegisteredCorrect' : 'platforms.form.notSavedCorrect'), clientErrors);
      return;
    }
    const create = props.mode === 'create' ? buildCreateRequest(intl, values) : null;
    const update = props.mode === 'edit' ? buildUpdateRequest(intl, props.platform, values) : null;
    if (update && Object.keys(update.body).length === 0) {
      setErrors(new Map());
      setSummary(null);
      setInfo(t('platforms.form.nothingChanged'));
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
      const placed = mapProblemToForm(intl, problem, (create ?? update)?.rowIds ?? [], mode, create?.body.platformKey);
      const created = mode === 'create';
      // The registry's remarks that fit no input (pointer and its English text) follow the sentence.
      const other = placed.other.join('; ');
      let message: string;
      if (problem.status === 409 && create && placed.errors.has('platformKey')) message = t('platforms.form.keyTaken', { key: create.body.platformKey, other });
      else if (problem.status === 400 && placed.errors.size > 0) message = t(created ? 'platforms.form.notRegisteredRefused' : 'platforms.form.notSavedRefused', { other });
      else message = t(created ? 'platforms.form.notRegistered' : 'platforms.form.notSaved', { reason: problemText(intl, problem), other });
      fail(message.trim(), placed.errors);
    } finally {
      setBusy(false);
    }
  };

  const summaryEntries = [...errors].map(([key, message]) => ({
    inputId: inputIds.current.get(key) ?? (key === 'allowedReturnUrls' ? addButtonId : formId),
    label: labelOf(intl, key, values),
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


  return (
    <form id={formId} className="platforms-form" noValidate onSubmit={(event) => void submit(event)} aria-busy={busy}>
      {summary ? <ErrorSummary key={summary.attempt} message={summary.message} errors={summaryEntries} /> : null}
      {info ? <Notice>{info}</Notice> : null}

      <section className="panel" aria-labelledby={`${formId}-identity`}>
        <h2 id={`${formId}-identity`}>{t('platforms.form.identity')}</h2>
        <div className="form-grid">
          <Field label={t('platforms.field.platformKey')} required={mode === 'create'} help={t(mode === 'create' ? 'platforms.form.keyHint' : 'platforms.form.keyFixed')} error={errorOf('platformKey')} width="half">
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
          <Field label={t('platforms.field.displayName')} required help={t('platforms.form.displayNameHelp')} error={errorOf('displayName')} width="half">
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
        <h2 id={`${formId}-addresses`}>{t('platforms.form.addresses')}</h2>
        <div className="form-grid">
          <Field
            label={t('platforms.field.callbackUrl')}
            help={t('platforms.form.callbackUrlHelp')}
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
            label={t('platforms.field.backchannelLogoutUrl')}
            help={t('platforms.form.backchannelLogoutUrlHelp')}
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
            label={t('platforms.field.allowedReturnUrls')}
            description={t('platforms.form.returnUrlsHelp')}
            error={errorOf('allowedReturnUrls')}
          >
            {() => (
              <>
                {values.returnUrls.length === 0 ? <p className="platforms-muted">{t('platforms.form.noReturnUrl')}</p> : null}
                <ol className="platforms-url-list">
                  {values.returnUrls.map((row, index) => (
                    <li key={row.id}>
                      <Field label={t('platforms.form.returnUrl', { number: index + 1 })} error={errorOf(returnUrlKey(row.id))}>
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
                            <button type="button" className="button button-secondary" aria-label={t('platforms.form.removeReturnUrl', { number: index + 1 })} onClick={() => removeRow(index)}>
                              {t('platforms.form.remove')}
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
                  {t('platforms.form.addReturnUrl')}
                </button>
              </>
            )}
          </Field>
        </div>
      </section>

      <section className="panel" aria-labelledby={`${formId}-onboarding`}>
        <h2 id={`${formId}-onboarding`}>{t('platforms.form.onboarding')}</h2>
        <div className="form-grid">
          <Field label={t('platforms.field.defaultOnboardingMode')} help={MODES.includes(values.mode) ? t(`platforms.mode.${values.mode}.description`) : undefined} error={errorOf('defaultOnboardingMode')} width="half">
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
                {MODES.map((option) => <option key={option} value={option}>{t(`platforms.mode.${option}`)}</option>)}
              </select>
            )}
          </Field>
          <Field label={t('platforms.field.platformOnboardingPath')} help={t('platforms.form.onboardingPathHelp')} error={errorOf('platformOnboardingPath')} width="half">
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
          <Field label={t('platforms.field.defaultLanguage')} help={t('platforms.form.defaultLanguageHelp')} error={errorOf('defaultLanguage')} width="half">
            {({ id, describedBy, invalid }) => (
              <input
                id={remember('defaultLanguage', id)}
                name="defaultLanguage"
                type="text"
                value={values.defaultLanguage}
                aria-describedby={describedBy}
                aria-invalid={invalid || undefined}
                autoComplete="off"
                spellCheck={false}
                maxLength={35}
                onChange={(event) => {
                  set('defaultLanguage', event.target.value);
                  clearError('defaultLanguage');
                }}
              />
            )}
          </Field>
          <Field kind="checkbox" label={t('platforms.field.centralOnboardingEnabled')} help={t('platforms.form.centralOnboardingHelp')} error={errorOf('centralOnboardingEnabled')}>
            {checkbox('centralOnboardingEnabled', 'centralOnboardingEnabled')}
          </Field>
          <Field
            kind="checkbox"
            label={t('platforms.field.handoffChallengeRequired')}
            help={t('platforms.form.handoffChallengeHelp')}
            description={values.handoffChallengeRequired ? null : t('platforms.handoffChallengeOffWarning')}
            error={errorOf('handoffChallengeRequired')}
          >
            {checkbox('handoffChallengeRequired', 'handoffChallengeRequired')}
          </Field>
        </div>
      </section>

      <section className="panel" aria-labelledby={`${formId}-more`}>
        <h2 id={`${formId}-more`}>{t(mode === 'create' ? 'platforms.form.metadataAndStatus' : 'platforms.form.metadata')}</h2>
        <div className="form-grid">
          <Field label={t('platforms.field.metadata')} help={t('platforms.form.metadataHelp', { example: '{"team": "identity"}' })} error={errorOf('metadata')}>
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
            <Field kind="checkbox" label={t('platforms.field.active')} help={t('platforms.form.createInactiveHelp')} error={errorOf('active')}>
              {checkbox('createInactive', 'active')}
            </Field>
          ) : null}
        </div>
      </section>

      <div className="actions">
        <button type="submit" className="button" disabled={busy}>
          {t(busy ? (mode === 'create' ? 'platforms.form.registering' : 'platforms.form.saving') : mode === 'create' ? 'platforms.form.register' : 'platforms.form.save')}
        </button>
        <Link className="button button-secondary" to={props.cancelTo}>{t('common.cancel')}</Link>
      </div>
    </form>
  );
}

function labelOf(intl: IntlShape, key: ErrorKey, values: PlatformFormValues): string {
  if (key.startsWith('returnUrl:')) {
    const index = values.returnUrls.findIndex((row) => returnUrlKey(row.id) === key);
    return intl.formatMessage({ id: 'platforms.form.returnUrl' }, { number: index + 1 });
  }
  return fieldLabel(intl, key);
}
