import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { useIntl, type IntlShape } from 'react-intl';
import { call } from '../../../api.ts';
import { useSession } from '../../../session.tsx';
import { ErrorSummary } from '../../../components/ErrorSummary.tsx';
import { Notice } from '../../../components/Notice.tsx';
import { AddressesSection } from './AddressesSection.tsx';
import { IdentitySection, MetadataSection, OnboardingSection, type SectionProps } from './PlatformFormSections.tsx';
import { problemText } from '../../../i18n/problems.ts';
import { toProblem, type Platform, type PlatformWithCredentials } from './model.ts';
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
  const editRow = (rowId: string, value: string) =>
    setValues((previous) => ({ ...previous, returnUrls: previous.returnUrls.map((item) => (item.id === rowId ? { ...item, value } : item)) }));
  const section: SectionProps = { formId, mode, values, set, clearError, errorOf, remember, checkbox };

  return (
    <form id={formId} className="platforms-form" noValidate onSubmit={(event) => void submit(event)} aria-busy={busy}>
      {summary ? <ErrorSummary key={summary.attempt} message={summary.message} errors={summaryEntries} /> : null}
      {info ? <Notice>{info}</Notice> : null}

      <IdentitySection {...section} />

      <AddressesSection {...section} addButtonId={addButtonId} addRow={addRow} removeRow={removeRow} editRow={editRow} />

      <OnboardingSection {...section} />

      <MetadataSection {...section} />

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
