import { useRef, useState, type FormEvent } from 'react';
import { ApiProblem, call } from '../../api.ts';
import { useSession } from '../../session.tsx';
import { ErrorSummary } from '../../components/ErrorSummary.tsx';
import { Field } from '../../components/Field.tsx';
import { Notice } from '../../components/Notice.tsx';
import { FieldInput } from '../../fields/FieldInput.tsx';
import { countryCode } from '../../fields/countries.ts';
import { useCurrentLanguage } from '../../i18n/LanguageProvider.tsx';
import { useIntl } from '../../i18n/useIntl.ts';
import { problemText, reasonText, type Formatter } from '../../i18n/problems.ts';
import type { FieldDefinition } from '../../fields/FieldInput.tsx';

const HELP_TEXTS: Partial<Record<EditableKey, true>> = { displayName: true, phone: true };

/** A property's label in the page's language. */
const labelOf = (intl: Formatter, key: EditableKey) => intl.formatMessage({ id: `profile.field.${key}` });

/** The property's input as FieldInput shows it, in the page's language. */
function localised(intl: Formatter, key: EditableKey, definition: FieldDefinition): FieldDefinition {
  const helpText = HELP_TEXTS[key] ? intl.formatMessage({ id: `profile.field.${key}.help` }) : definition.uiConfig.helpText;
  return { ...definition, label: labelOf(intl, key), uiConfig: helpText === undefined ? definition.uiConfig : { ...definition.uiConfig, helpText } };
}

/**
 * The text beside an input for a refused property. The contract gives a `reason` so a client
 * can say it its own way; otherwise the errors catalogue's words for the reason, or the
 * gateway's message (a fragment such as "must be at most 100 characters") after the label.
 */
function profileErrorText(intl: Formatter, key: EditableKey, reason: string | undefined, message: string): string {
  if (key === 'locale') return intl.formatMessage({ id: 'profile.error.locale' });
  const own: Record<string, string> = { INVALID_PHONE: 'profile.error.phone', INVALID_COUNTRY: 'profile.error.country', INVALID_DATE: 'profile.error.date' };
  if (reason && own[reason]) return intl.formatMessage({ id: own[reason] });
  return reasonText(intl, reason, labelOf(intl, key)) ?? sentence(`${labelOf(intl, key)} ${message}`);
}
import {
  changesBetween, isEditableKey, PROFILE_FIELDS, sentence, valuesOf,
  type EditableKey, type Profile, type ProfileValues,
} from './profileModel.ts';
import { useSummarySlot } from './summarySlot.tsx';

type Outcome =
  | { kind: 'saved' }
  | { kind: 'unchanged' }
  | { kind: 'failed'; message: string; errors: Partial<Record<EditableKey, string>>; attempt: number };

/**
 * The canonical profile, edited with the onboarding inputs of the same kind. Save sends only
 * what changed; a refusal keeps what was typed, says why above the form (taking the focus) and
 * beside each input.
 */
export function ProfileDetails({ profile, onSaved }: { profile: Profile; onSaved: (profile: Profile) => void }) {
  const { api, reload } = useSession();
  // The country input lists names in the page's language: a typed name is read in it.
  const language = useCurrentLanguage();
  const intl = useIntl();
  const say = (id: string, values?: Record<string, string>) => intl.formatMessage({ id: `profile.details.${id}` }, values);
  const summary = useSummarySlot('profile');
  const formRef = useRef<HTMLFormElement>(null);
  const [saved, setSaved] = useState<ProfileValues>(() => valuesOf(profile));
  const [values, setValues] = useState<ProfileValues>(() => valuesOf(profile));
  const [countryVersion, setCountryVersion] = useState(0);
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const attempts = useRef(0);

  const errors = outcome?.kind === 'failed' ? outcome.errors : {};
  const set = (key: EditableKey, value: unknown) => {
    setValues((current) => ({ ...current, [key]: typeof value === 'string' ? value : null }));
  };

  /** The id of a property's input (Field gives ids; the summary links to them). */
  const inputId = (key: EditableKey) => formRef.current?.querySelector(['input', 'select', 'textarea'].map((tag) => `[data-property="${key}"] ${tag}`).join(', '))?.id ?? '';

  const fail = (message: string, fieldErrors: Partial<Record<EditableKey, string>> = {}) => {
    attempts.current += 1;
    summary.claim();
    setOutcome({ kind: 'failed', message, errors: fieldErrors, attempt: attempts.current });
  };

  async function save(event: FormEvent) {
    event.preventDefault();
    if (busy) return;
    // A typed country that names none submits nothing: say so instead of clearing the stored one.
    const typedCountry = (formRef.current?.querySelector<HTMLInputElement>('[data-property="country"] input')?.value ?? '').trim();
    if (typedCountry !== '' && countryCode(typedCountry, language) === null) {
      fail(say('checkHighlighted'), { country: intl.formatMessage({ id: 'profile.error.country' }) });
      return;
    }
    const patch = changesBetween(saved, values);
    if (Object.keys(patch).length === 0) {
      setOutcome({ kind: 'unchanged' });
      return;
    }
    setBusy(true);
    try {
      const updated = await call(api.PATCH('/v1/profile/me', { body: patch }));
      const next = valuesOf(updated);
      setSaved(next);
      setValues(next);
      if ('country' in patch) setCountryVersion((version) => version + 1);
      setOutcome({ kind: 'saved' });
      onSaved(updated);
      void reload(); // the name in the frame
    } catch (failure) {
      const problem = failure instanceof ApiProblem ? failure : new ApiProblem(0, null);
      const fieldErrors: Partial<Record<EditableKey, string>> = {};
      const other: string[] = [];
      for (const error of problem.problem?.errors ?? []) {
        const property = error.pointer.startsWith('/body/') ? error.pointer.slice('/body/'.length).split('/')[0]! : '';
        if (isEditableKey(property)) fieldErrors[property] ??= profileErrorText(intl, property, error.reason, error.message);
        else other.push(sentence(error.message));
      }
      const message = Object.keys(fieldErrors).length > 0
        ? say('notSavedFields')
        : [problem.needsSignIn ? say('signInEnded') : say('notSaved', { message: problemText(intl, problem) }), ...other].join(' ');
      fail(message, fieldErrors);
    } finally {
      setBusy(false);
    }
  }

  return (
    <form ref={formRef} noValidate onSubmit={save} aria-describedby="profile-details-note">
      {outcome?.kind === 'failed' && summary.visible ? (
        <ErrorSummary
          key={outcome.attempt}
          message={outcome.message}
          errors={(Object.entries(outcome.errors) as [EditableKey, string][]).map(([key, message]) => ({ inputId: inputId(key), label: labelOf(intl, key), message }))}
        />
      ) : null}
      {outcome?.kind === 'saved' ? <Notice tone="success" title={say('saved')} /> : null}
      {outcome?.kind === 'unchanged' ? <Notice title={say('unchanged')} /> : null}
      <p id="profile-details-note" className="profile-note">{say('note')}</p>
      <div className="form-grid">
        {PROFILE_FIELDS.map(({ key, definition }) => (
          <div key={key === 'country' ? `country-${countryVersion}` : key} className="profile-slot" data-property={key}>
            <FieldInput definition={localised(intl, key, definition)} value={values[key]} error={errors[key] ?? null} onChange={(value) => set(key, value)} />
          </div>
        ))}
        <div className="profile-slot" data-property="locale">
          <Field label={labelOf(intl, 'locale')} width="half" help={intl.formatMessage({ id: 'profile.field.locale.help' })} error={errors.locale ?? null}>
            {({ id, describedBy, invalid }) => (
              <input id={id} type="text" value={values.locale ?? ''} autoComplete="language" spellCheck={false} maxLength={35}
                aria-describedby={describedBy} aria-invalid={invalid || undefined} onChange={(event) => set('locale', event.target.value)} />
            )}
          </Field>
        </div>
      </div>
      <dl className="profile-readonly">
        <dt>{say('email')}</dt>
        <dd>
          <span className="profile-email">{profile.email ?? say('none')}</span>
          <span className="profile-readonly-note">{say('emailNote')}</span>
        </dd>
      </dl>
      <div className="actions">
        <button type="submit" className="button" aria-disabled={busy || undefined}>{busy ? say('saving') : say('save')}</button>
      </div>
    </form>
  );
}
