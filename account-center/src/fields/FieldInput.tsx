import { useId, useState } from 'react';
import type { Schemas } from '../api.ts';
import { Field } from '../components/Field.tsx';
import { countriesIn, countryCode, countryName } from './countries.ts';
import { useIntl } from '../i18n/useIntl.ts';
import { useCurrentLanguage } from '../i18n/LanguageProvider.tsx';

export type FieldDefinition = Pick<
  Schemas['OnboardingFieldDefinition'],
  'fieldKey' | 'label' | 'fieldType' | 'required' | 'options' | 'validation' | 'uiConfig' | 'placeholder' | 'description'
> &
  Partial<Pick<Schemas['OnboardingFieldDefinition'], 'profileField'>>;

/**
 * WCAG 2.2 SC 1.3.5 (Identify Input Purpose): an input that asks for something about the person
 * says what, with its HTML autofill token (WHATWG HTML, "Autofill"), so that browsers can fill
 * it in and assistive technology can mark it. Known from the profile property a field is bound
 * to; otherwise from the field's type, for the types that can only be one thing.
 */
const AUTOFILL_BY_PROFILE_FIELD: Record<NonNullable<FieldDefinition['profileField']>, string> = {
  firstName: 'given-name',
  lastName: 'family-name',
  displayName: 'nickname',
  dateOfBirth: 'bday',
  phone: 'tel',
  country: 'country-name',
};
const AUTOFILL_BY_TYPE: Partial<Record<FieldDefinition['fieldType'], string>> = { PHONE: 'tel', EMAIL: 'email', URL: 'url', COUNTRY: 'country-name' };

export function autofillToken(definition: Pick<FieldDefinition, 'fieldType' | 'profileField'>): string | undefined {
  return definition.profileField ? AUTOFILL_BY_PROFILE_FIELD[definition.profileField] : AUTOFILL_BY_TYPE[definition.fieldType];
}
export type FieldValue = Schemas['OnboardingValue'];

export interface FieldInputProps {
  definition: FieldDefinition;
  value: FieldValue;
  onChange: (value: FieldValue) => void;
  error?: string | null;
  disabled?: boolean;
  /**
   * Told when what is typed cannot become a value (a name that is no country, an unfinished
   * number), with a message for the person, and told `null` once it can. The value is then
   * empty, so a form should refuse to submit while a field reports such a problem rather than
   * silently clearing what the person typed.
   */
  onInputError?: (message: string | null) => void;
}

/** The empty value of a field: [] for a multi-select, null otherwise (the contract's rule). */
export function emptyValue(fieldType: FieldDefinition['fieldType']): FieldValue {
  return fieldType === 'MULTI_SELECT' ? [] : null;
}

export function isEmpty(value: FieldValue): boolean {
  return value === null || (typeof value === 'string' && value.trim() === '') || (Array.isArray(value) && value.length === 0);
}

/**
 * The input for one onboarding field, by its type (spec: single-line text, multiline text,
 * number, checkbox, date, single select, checkbox group, country, telephone, e-mail, URL).
 * Label, placeholder, description and help text are rendered as text; the width comes from
 * uiConfig.width. Values are what the gateway stores; the gateway is the judge of them.
 */
export function FieldInput({ definition, value, onChange, error, disabled, onInputError }: FieldInputProps) {
  const intl = useIntl();
  const common = {
    label: definition.label,
    required: definition.required,
    description: definition.description,
    help: definition.uiConfig?.helpText ?? null,
    error: error ?? null,
    width: definition.uiConfig?.width ?? null,
  };
  const placeholder = definition.placeholder ?? undefined;
  const text = typeof value === 'string' ? value : '';
  const setText = (next: string) => onChange(next === '' ? null : next);

  switch (definition.fieldType) {
    case 'BOOLEAN':
      return (
        <Field {...common} kind="checkbox">
          {({ id, describedBy, invalid }) => (
            <input id={id} type="checkbox" checked={value === true} disabled={disabled} aria-describedby={describedBy} aria-invalid={invalid || undefined}
              onChange={(event) => onChange(event.target.checked)} />
          )}
        </Field>
      );
    case 'MULTI_SELECT': {
      const chosen = Array.isArray(value) ? value : [];
      return (
        <Field {...common} kind="group">
          {({ id, describedBy, invalid }) => (
            <div id={id} aria-describedby={describedBy}>
              {definition.options.map((option, index) => (
                <label key={option.value} className="choice" htmlFor={`${id}-${index}`}>
                  <input id={`${id}-${index}`} type="checkbox" checked={chosen.includes(option.value)} disabled={disabled} aria-invalid={invalid || undefined}
                    onChange={(event) => onChange(event.target.checked ? [...chosen, option.value] : chosen.filter((item) => item !== option.value))} />
                  <span>{option.label}</span>
                </label>
              ))}
            </div>
          )}
        </Field>
      );
    }
    case 'SELECT':
      return (
        <Field {...common}>
          {({ id, describedBy, invalid }) => (
            <select id={id} value={text} disabled={disabled} aria-describedby={describedBy} aria-invalid={invalid || undefined} onChange={(event) => setText(event.target.value)}>
              <option value="">{placeholder ?? intl.formatMessage({ id: 'onboarding.input.choose' })}</option>
              {definition.options.map((option) => <option key={option.value} value={option.value}>{option.label}</option>)}
            </select>
          )}
        </Field>
      );
    case 'COUNTRY':
      return <CountryInput {...common} value={text} placeholder={placeholder} disabled={disabled} onChange={setText} onInputError={onInputError} />;
    case 'TEXTAREA':
      return (
        <Field {...common}>
          {({ id, describedBy, invalid }) => (
            <textarea id={id} value={text} placeholder={placeholder} disabled={disabled} maxLength={definition.validation?.maxLength}
              aria-describedby={describedBy} aria-invalid={invalid || undefined} onChange={(event) => setText(event.target.value)} />
          )}
        </Field>
      );
    case 'NUMBER':
      return (
        <Field {...common}>
          {({ id, describedBy, invalid }) => (
            <NumberInput id={id} value={typeof value === 'number' ? value : null} placeholder={placeholder} disabled={disabled}
              min={definition.validation?.min} max={definition.validation?.max} describedBy={describedBy} invalid={invalid} onChange={onChange}
              onInputError={onInputError} />
          )}
        </Field>
      );
    default: {
      const type = { TEXT: 'text', DATE: 'date', PHONE: 'tel', EMAIL: 'email', URL: 'url' }[definition.fieldType] ?? 'text';
      return (
        <Field {...common}>
          {({ id, describedBy, invalid }) => (
            <input id={id} type={type} value={text} placeholder={placeholder} disabled={disabled} autoComplete={autofillToken(definition)}
              maxLength={definition.validation?.maxLength} aria-describedby={describedBy} aria-invalid={invalid || undefined}
              onChange={(event) => setText(event.target.value)} />
          )}
        </Field>
      );
    }
  }
}

/** A number as typed: an unfinished entry ("-", "1e") stays in the box, only numbers go up. */
function NumberInput({ id, value, placeholder, disabled, min, max, describedBy, invalid, onChange, onInputError }: {
  id: string; value: number | null; placeholder?: string; disabled?: boolean; min?: number; max?: number;
  describedBy?: string; invalid: boolean; onChange: (value: FieldValue) => void; onInputError?: (message: string | null) => void;
}) {
  const intl = useIntl();
  const [draft, setDraft] = useState(value === null ? '' : String(value));
  return (
    <input id={id} type="number" inputMode="decimal" value={draft} placeholder={placeholder} disabled={disabled} min={min} max={max} step="any"
      aria-describedby={describedBy} aria-invalid={invalid || undefined}
      onChange={(event) => {
        setDraft(event.target.value);
        const parsed = event.target.value === '' ? null : Number(event.target.value);
        const number = parsed === null || Number.isFinite(parsed) ? parsed : null;
        // A browser gives '' for an unfinished entry ("1e", "-") and says so in validity.badInput.
        onInputError?.(event.target.validity?.badInput || (parsed !== null && number === null) ? intl.formatMessage({ id: 'onboarding.value.number' }) : null);
        onChange(number);
      }} />
  );
}

/**
 * The country: a text box with the list of names to pick from (type to search); it submits
 * the ISO code of the chosen name. A text that names no country keeps the box as typed and
 * submits nothing until it does.
 */
function CountryInput({ value, placeholder, disabled, onChange, onInputError, ...field }: Omit<Parameters<typeof Field>[0], 'children'> & {
  value: string; placeholder?: string; disabled?: boolean; onChange: (code: string) => void; onInputError?: (message: string | null) => void;
}) {
  const intl = useIntl();
  const language = useCurrentLanguage();
  const unmatchedMessage = intl.formatMessage({ id: 'onboarding.value.country' });
  const [typed, setTyped] = useState(countryName(value, language));
  // A switch of language shows the chosen country's name in the new language.
  const [shownIn, setShownIn] = useState(language);
  if (shownIn !== language) {
    setShownIn(language);
    if (value) setTyped(countryName(value, language));
  }
  const listId = useId();
  const unmatched = typed.trim() !== '' && countryCode(typed, language) === null;
  return (
    <Field {...field} error={field.error ?? (unmatched ? unmatchedMessage : null)}>
      {({ id, describedBy, invalid }) => (
        <>
          <input id={id} type="text" list={listId} value={typed} placeholder={placeholder ?? intl.formatMessage({ id: 'onboarding.input.countryPlaceholder' })} disabled={disabled} autoComplete="country-name"
            aria-describedby={describedBy} aria-invalid={invalid || undefined}
            onChange={(event) => {
              setTyped(event.target.value);
              const code = countryCode(event.target.value, language);
              onInputError?.(event.target.value.trim() !== '' && code === null ? unmatchedMessage : null);
              onChange(event.target.value.trim() === '' ? '' : (code ?? ''));
            }} />
          <datalist id={listId}>
            {countriesIn(language).map((country) => <option key={country.code} value={country.name} />)}
          </datalist>
        </>
      )}
    </Field>
  );
}
