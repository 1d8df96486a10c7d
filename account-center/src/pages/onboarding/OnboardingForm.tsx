import { useEffect, useLayoutEffect, useRef, useState, type FormEvent, type RefObject } from 'react';
import { Link, useNavigate } from 'react-router';
import { ApiProblem, call } from '../../api.ts';
import { useSession } from '../../session.tsx';
import { ErrorSummary } from '../../components/ErrorSummary.tsx';
import { FieldInput, emptyValue } from '../../fields/FieldInput.tsx';
import {
  checkBeforeWrite,
  initialValues,
  listOf,
  mergeValues,
  requiredMessage,
  resumeUrl,
  sortFields,
  storedValue,
  valueErrors,
  valuesToWrite,
  type OnboardingStatus,
  type RequirementField,
  type Values,
} from './onboardingFlow.ts';
import { gatewayFieldMessage } from './fieldMessages.ts';
import { StatusNotice } from './OnboardingNotices.tsx';
import { useIntl } from '../../i18n/useIntl.ts';
import { problemText, type Formatter } from '../../i18n/problems.ts';
import type { PendingDocuments } from './AgreementsStep.tsx';
import { SharedOffer, type OfferChoice } from './SharedOffer.tsx';

// The central onboarding form (OnboardingPage.tsx loads what it needs): the platform's fields,
// and the steps of a save: check what the page can, write the values, complete and require
// COMPLETE, then continue the login at the gateway or go back to the profile.

interface SummaryEntry {
  fieldKey: string;
  label: string;
  message: string;
}

interface Summary {
  /** Counts the failed attempts: a new one remounts the summary, which takes the focus again. */
  attempt: number;
  message: string;
  entries: SummaryEntry[];
}

export function OnboardingForm({ platformKey, platformName, language, resume, initialFields, initialStatus, pendingDocuments, leave, onExpired }: {
  platformKey: string;
  /** The language the fields' texts were asked for (kept for a re-read of the schema). */
  language: string | undefined;
  platformName: string;
  resume: string | null;
  initialFields: RequirementField[];
  initialStatus: OnboardingStatus;
  pendingDocuments: PendingDocuments;
  leave: (url: string) => void;
  onExpired: () => void;
}) {
  const { api, config } = useSession();
  const intl = useIntl();
  const platform = platformName;
  const navigate = useNavigate();
  const [fields, setFields] = useState(initialFields);
  const [status, setStatus] = useState(initialStatus);
  const [values, setValues] = useState<Values>(() => initialValues(initialFields));
  const [inputErrors, setInputErrors] = useState<Record<string, string | null>>({});
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});
  const [summary, setSummary] = useState<Summary | null>(null);
  const [phase, setPhase] = useState<'idle' | 'saving' | 'leaving'>('idle');
  // The answers to the offers of `ask` fields (issue 36): absent until the person picks one.
  const [choices, setChoices] = useState<Record<string, OfferChoice>>({});
  /** A field showing its offer (not answered with "enter another one"): its value is not written. */
  const asking = (field: RequirementField) => field.sharedOffer !== null && choices[field.fieldKey] !== 'other';
  const busy = useRef(false);
  const attempts = useRef(0);
  const formRef = useRef<HTMLFormElement>(null);
  const controlIds = useControlIds(formRef);
  const path = { params: { path: { platformKey } } };

  // Back from the gateway or the platform, a browser may restore this page as it was left
  // ("Continuing…"): make the form usable again.
  useEffect(() => {
    const restored = (event: PageTransitionEvent) => {
      if (!event.persisted) return;
      busy.current = false;
      setPhase('idle');
    };
    window.addEventListener('pageshow', restored);
    return () => window.removeEventListener('pageshow', restored);
  }, []);

  function showErrors(message: string, entries: SummaryEntry[], beside: Record<string, string>) {
    attempts.current += 1;
    setFieldErrors(beside);
    setSummary({ attempt: attempts.current, message, entries });
  }

  /** A field changed: its error is out of date, beside the input and in the summary (the others stay). */
  function clearError(fieldKey: string) {
    setFieldErrors((current) => {
      if (!(fieldKey in current)) return current;
      const { [fieldKey]: _gone, ...rest } = current;
      return rest;
    });
    setSummary((current) => (current && current.entries.some((entry) => entry.fieldKey === fieldKey)
      ? { ...current, entries: current.entries.filter((entry) => entry.fieldKey !== fieldKey) }
      : current));
  }

  /** A 401 from any call: the page turns into "sign in again". */
  function expiredBy(problem: ApiProblem): boolean {
    if (problem.needsSignIn) onExpired();
    return problem.needsSignIn;
  }

  /**
   * Reads the schema again (it changed under the form), keeping what was entered: the new
   * fields, 'expired' after a 401 (the page has switched to "sign in again"), or null when it
   * could not be read (the form stays as it is).
   */
  async function refreshFields(): Promise<RequirementField[] | 'expired' | null> {
    try {
      const requirements = await call(api.GET('/v1/onboarding/{platformKey}/requirements', { params: { path: { platformKey }, query: language ? { language } : {} } }));
      const sorted = sortFields(requirements.fields);
      setFields(sorted);
      setValues((entered) => mergeValues(sorted, entered));
      return sorted;
    } catch (failure) {
      return expiredBy(asProblem(intl, failure)) ? 'expired' : null;
    }
  }

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (busy.current) return;
    const labelOf = (key: string, among = fields) => among.find((field) => field.fieldKey === key)?.label ?? key;

    // 1. What the page can tell without the gateway (an empty required checkbox group…).
    // Each required document is accepted by its own explicit action, never by this button.
    if (pendingDocuments.documents.length > 0) {
      showErrors(pendingDocuments.message, pendingDocuments.documents.map((document) => ({ fieldKey: `agreement-${document.documentKey}`, label: document.title, message: pendingDocuments.entryMessage })), {});
      return;
    }
    const written = fields.filter((field) => !asking(field));
    const accepted = fields.filter((field) => field.sharedOffer !== null && choices[field.fieldKey] === 'use').map((field) => field.fieldKey);
    const problems = checkBeforeWrite(intl, written, values, inputErrors);
    for (const field of fields) {
      if (asking(field) && field.required && choices[field.fieldKey] === undefined) problems.set(field.fieldKey, intl.formatMessage({ id: 'onboarding.shared.choose' }));
    }
    if (problems.size > 0) {
      const entries = [...problems].map(([fieldKey, message]) => ({ fieldKey, label: labelOf(fieldKey), message }));
      showErrors(intl.formatMessage({ id: 'onboarding.summary.missing' }), entries, Object.fromEntries(problems));
      return;
    }

    busy.current = true;
    setPhase('saving');
    setSummary(null);
    setFieldErrors({});
    const stop = () => {
      busy.current = false;
      setPhase('idle');
    };

    // 2. Write the complete field map (nothing to write when the platform asks for nothing).
    if (fields.length > 0) {
      try {
        // A confirmed offer is sent as its key only: the gateway copies the value it offered.
        const saved = await call(api.PUT('/v1/onboarding/{platformKey}/values', { ...path, body: { values: valuesToWrite(written, values), ...(accepted.length > 0 ? { acceptShared: accepted } : {}) } }));
        if (accepted.length > 0) {
          // Answered: the field now holds the shared value as this platform's own, and shows it.
          const answered = fields.map((field) => (accepted.includes(field.fieldKey) ? { ...field, sharedOffer: null, currentValue: saved.values[field.fieldKey] ?? null } : field));
          setFields(answered);
          setValues((current) => ({ ...current, ...Object.fromEntries(answered.filter((field) => accepted.includes(field.fieldKey)).map((field) => [field.fieldKey, storedValue(field)])) }));
        }
      } catch (failure) {
        const problem = asProblem(intl, failure);
        if (expiredBy(problem)) return stop();
        const errors = valueErrors(problem.problem);
        if (problem.status === 400 && errors.length > 0) {
          // An unknown or archived field: the schema changed since the page read it.
          const shown = errors.filter((error) => fields.some((field) => field.fieldKey === error.fieldKey) && error.reason !== 'UNKNOWN_FIELD' && error.reason !== 'ARCHIVED_FIELD');
          const stale = shown.length < errors.length;
          const refreshed = stale ? await refreshFields() : null;
          stop();
          if (refreshed === 'expired') return;
          const current = refreshed ?? fields;
          // The gateway's words in the page's voice, the same beside the input and in the summary.
          const kept = shown.flatMap((error) => {
            const field = current.find((candidate) => candidate.fieldKey === error.fieldKey);
            return field ? [{ fieldKey: error.fieldKey, label: field.label, message: gatewayFieldMessage(intl, field, error.reason, error.message) }] : [];
          });
          const message = problemText(intl, problem);
          showErrors(
            stale ? intl.formatMessage({ id: 'onboarding.summary.formChanged' }, { message }) : message,
            kept,
            Object.fromEntries(kept.map((entry) => [entry.fieldKey, entry.message])),
          );
        } else {
          stop();
          showErrors(intl.formatMessage({ id: 'onboarding.summary.notSaved' }, { message: problemText(intl, problem) }), [], {});
        }
        return;
      }
    }

    // 3. Complete, and require COMPLETE.
    let completed: OnboardingStatus;
    try {
      completed = await call(api.POST('/v1/onboarding/{platformKey}/complete', path));
    } catch (failure) {
      stop();
      const problem = asProblem(intl, failure);
      if (expiredBy(problem)) return;
      showErrors(intl.formatMessage({ id: 'onboarding.summary.notConfirmed' }, { message: problemText(intl, problem) }), [], {});
      return;
    }
    setStatus(completed);
    if (completed.status !== 'COMPLETE') {
      // A required field the form does not show (the schema changed) is named by its label: read it again.
      const before = fields;
      const refreshed = await refreshFields();
      stop();
      if (refreshed === 'expired') return;
      const current = refreshed ?? fields;
      const missing = completed.missingFields.map((fieldKey) => ({ fieldKey, field: current.find((field) => field.fieldKey === fieldKey) }));
      const changed = current.some((field) => !before.some((known) => known.fieldKey === field.fieldKey));
      const labels = missing.map(({ fieldKey, field }) => field?.label ?? fieldKey);
      const shown = missing.filter((entry): entry is { fieldKey: string; field: RequirementField } => entry.field !== undefined);
      showErrors(
        labels.length > 0
          ? intl.formatMessage({ id: changed ? 'onboarding.summary.stillNeedsChanged' : 'onboarding.summary.stillNeeds' }, { platform, fields: listOf(intl, labels) })
          : intl.formatMessage({ id: 'onboarding.summary.notAccepted' }, { platform }),
        shown.map(({ fieldKey, field }) => ({ fieldKey, label: field.label, message: requiredMessage(intl, field) })),
        Object.fromEntries(shown.map(({ fieldKey, field }) => [fieldKey, requiredMessage(intl, field)])),
      );
      return;
    }

    // 4. COMPLETE: continue the login at the gateway, or back to the profile.
    if (resume) {
      setPhase('leaving');
      leave(resumeUrl(config, resume));
      return;
    }
    stop();
    navigate('/profile');
  }

  const idle = phase === 'idle';
  const submitLabel = fields.length === 0
    ? intl.formatMessage({ id: 'onboarding.submit.continueTo' }, { platform })
    : intl.formatMessage({ id: resume ? 'onboarding.submit.saveAndContinue' : 'onboarding.submit.save' });
  const labelled = new Map(fields.map((field) => [field.fieldKey, field.label]));

  return (
    <>
      {summary ? (
        <ErrorSummary
          key={summary.attempt}
          message={summary.message}
          errors={summary.entries.map((entry) => ({ inputId: controlIds[entry.fieldKey] ?? `field-${entry.fieldKey}`, label: labelled.get(entry.fieldKey) ?? entry.label, message: entry.message }))}
        />
      ) : null}
      {/* The saved status; once a save was tried the summary says what is what, and the notice would contradict unsaved input. */}
      {summary ? null : <StatusNotice status={status} fields={fields} platformName={platformName} resume={resume !== null} />}
      <form ref={formRef} className="onboarding-form panel" noValidate aria-busy={!idle} aria-label={intl.formatMessage({ id: 'onboarding.formLabel' }, { platform })} onSubmit={(event) => void submit(event)}>
        {fields.length === 0 ? (
          <p>{intl.formatMessage({ id: 'onboarding.nothingToFill' }, { platform })}</p>
        ) : (
          <>
            {/* Each required field says "(required)" to a screen reader itself: this note is for the eye. */}
            {fields.some((field) => field.required) ? <p className="onboarding-required-note" aria-hidden="true">{intl.formatMessage({ id: 'onboarding.requiredNote' }, { mark: (chunks) => <span className="required">{chunks}</span> })}</p> : null}
            <div className="form-grid">
              {fields.map((field) => (
                <div key={field.fieldKey} className="onboarding-slot" data-field-key={field.fieldKey}>
                  {field.sharedOffer ? (
                    <SharedOffer field={field} platformName={platformName} choice={choices[field.fieldKey]} error={choices[field.fieldKey] === 'other' ? null : (fieldErrors[field.fieldKey] ?? null)}
                      onChoose={(choice) => {
                        setChoices((current) => ({ ...current, [field.fieldKey]: choice }));
                        clearError(field.fieldKey);
                      }} />
                  ) : null}
                  {asking(field) ? null : <FieldInput
                    definition={field}
                    value={values[field.fieldKey] ?? emptyValue(field.fieldType)}
                    error={fieldErrors[field.fieldKey] ?? null}
                    onChange={(value) => {
                      setValues((current) => ({ ...current, [field.fieldKey]: value }));
                      clearError(field.fieldKey);
                    }}
                    onInputError={(message) => setInputErrors((current) => (current[field.fieldKey] === message ? current : { ...current, [field.fieldKey]: message }))}
                  />}
                </div>
              ))}
            </div>
          </>
        )}
        <div className="actions">
          {fields.length > 0 || resume ? (
            <button type="submit" className="button" aria-disabled={!idle || undefined}>
              {phase === 'saving' ? intl.formatMessage({ id: 'onboarding.submit.saving' }) : phase === 'leaving' ? intl.formatMessage({ id: 'onboarding.submit.continuing' }, { platform }) : submitLabel}
            </button>
          ) : null}
          {!resume || fields.length === 0 ? (
            <Link className={fields.length === 0 && !resume ? 'button' : 'button button-secondary'} to="/profile">
              {intl.formatMessage({ id: fields.length === 0 ? 'onboarding.goToProfile' : 'onboarding.backToProfile' })}
            </Link>
          ) : null}
          <p className="onboarding-progress" role="status">
            {phase === 'saving' ? intl.formatMessage({ id: 'onboarding.progress.saving' }) : phase === 'leaving' ? intl.formatMessage({ id: 'onboarding.progress.leaving' }, { platform }) : ''}
          </p>
        </div>
      </form>
    </>
  );
}

/**
 * The id of each field's first control (its input, or a checkbox group's first box), read
 * from the page after rendering, so an error summary entry can move the focus to it.
 */
function useControlIds(formRef: RefObject<HTMLFormElement | null>): Record<string, string> {
  const [ids, setIds] = useState<Record<string, string>>({});
  useLayoutEffect(() => {
    const next: Record<string, string> = {};
    formRef.current?.querySelectorAll<HTMLElement>('[data-field-key]').forEach((slot) => {
      const control = slot.querySelector<HTMLElement>('input, select, textarea');
      if (control?.id && slot.dataset.fieldKey) next[slot.dataset.fieldKey] = control.id;
    });
    setIds((current) => (sameEntries(current, next) ? current : next));
  });
  return ids;
}

function sameEntries(a: Record<string, string>, b: Record<string, string>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => a[key] === b[key]);
}

/** Any failure as a problem the page can word (a network failure is an unexpected one). */
export function asProblem(intl: Formatter, failure: unknown): ApiProblem {
  return failure instanceof ApiProblem ? failure : new ApiProblem(-1, null, intl.formatMessage({ id: 'errors.unexpected' }));
}
