// The settings a draft stands for and the request bodies built from them (create, a PATCH of
// what differs), and the preview of the field as it would be stored. Pure: no React, no I/O.
import type { IntlShape } from 'react-intl';
import type { FieldDefinition } from '../../../fields/FieldInput.tsx';
import { takesLengths, takesOptions, takesRange, type CreateBody, type Definition, type Draft, type Translations, type UpdateBody } from './model.ts';

/** The settings of a definition as the gateway stores them (a create body without its key). */
export type Settings = Required<Omit<CreateBody, 'fieldKey'>>;

/** Form errors by the gateway's pointer below /body/ (`sortOrder`, `validation/min`…). */
export type FormErrors = Map<string, string>;

const INTEGER = /^[+-]?\d+$/;
const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

/**
 * The settings the draft stands for, or the numbers the form cannot read. Only what applies
 * to the type is kept: options for SELECT/MULTI_SELECT, lengths for text types, a range for
 * NUMBER. Empty texts are "not set" (null, or left out of uiConfig).
 */
export function settingsOf(intl: IntlShape, draft: Draft): { settings: Settings; errors: FormErrors } {
  const errors: FormErrors = new Map();
  const integer = (at: string, text: string): number | undefined => {
    const trimmed = text.trim();
    if (trimmed === '') return undefined;
    if (!INTEGER.test(trimmed)) {
      errors.set(at, intl.formatMessage({ id: `schema.error.integer.${at}` }));
      return undefined;
    }
    return Number(trimmed);
  };
  const number = (at: string, text: string): number | undefined => {
    const trimmed = text.trim();
    if (trimmed === '') return undefined;
    if (!NUMBER.test(trimmed) || !Number.isFinite(Number(trimmed))) {
      errors.set(at, intl.formatMessage({ id: 'schema.error.number' }, { example: 2.5 }));
      return undefined;
    }
    return Number(trimmed);
  };

  const sortOrder = integer('sortOrder', draft.sortOrder);
  if (draft.sortOrder.trim() === '') errors.set('sortOrder', intl.formatMessage({ id: 'schema.error.integer.sortOrder' }));

  const validation: Settings['validation'] = {};
  if (takesLengths(draft.fieldType)) {
    const minLength = integer('validation/minLength', draft.minLength);
    const maxLength = integer('validation/maxLength', draft.maxLength);
    if (minLength !== undefined) validation.minLength = minLength;
    if (maxLength !== undefined) validation.maxLength = maxLength;
  }
  if (takesRange(draft.fieldType)) {
    const min = number('validation/min', draft.min);
    const max = number('validation/max', draft.max);
    if (min !== undefined) validation.min = min;
    if (max !== undefined) validation.max = max;
  }
  const uiConfig: Settings['uiConfig'] = {};
  if (draft.width !== '') uiConfig.width = draft.width;
  if (draft.helpText.trim() !== '') uiConfig.helpText = draft.helpText;

  const settings: Settings = {
    label: draft.label,
    fieldType: draft.fieldType,
    source: draft.source,
    profileField: draft.source === 'PROFILE_FIELD' ? draft.profileField : null,
    sharing: draft.source === 'PROFILE_FIELD' ? draft.sharing : null,
    required: draft.required,
    sortOrder: sortOrder ?? 0,
    options: takesOptions(draft.fieldType) ? draft.options.map((option) => ({ value: option.value, label: option.label })) : [],
    validation,
    uiConfig,
    placeholder: draft.placeholder.trim() === '' ? null : draft.placeholder,
    description: draft.description.trim() === '' ? null : draft.description,
    translations: cleanTranslations(draft.translations, takesOptions(draft.fieldType) ? draft.options.map((option) => option.value) : []),
  };
  return { settings, errors };
}

export function createBody(draft: Draft, settings: Settings): CreateBody {
  return { fieldKey: draft.fieldKey.trim(), ...settings };
}

const SETTING_KEYS = ['label', 'fieldType', 'source', 'profileField', 'sharing', 'required', 'sortOrder', 'options', 'validation', 'uiConfig', 'placeholder', 'description', 'translations'] as const;

/**
 * The translations as the gateway takes them: blank texts left out (a blank box means "not
 * translated", shown in the default text), option labels only of options the field still
 * has, languages with no text dropped.
 */
export function cleanTranslations(translations: Translations, optionValues: readonly string[]): Translations {
  const cleaned: Translations = {};
  for (const [language, texts] of Object.entries(translations)) {
    const kept: Translations[string] = {};
    for (const key of ['label', 'placeholder', 'description', 'helpText'] as const) {
      const text = texts[key];
      if (text !== undefined && text.trim() !== '') kept[key] = text;
    }
    const options = Object.entries(texts.options ?? {}).filter(([value, label]) => optionValues.includes(value) && label.trim() !== '');
    if (options.length > 0) kept.options = Object.fromEntries(options);
    if (Object.keys(kept).length > 0) cleaned[language] = kept;
  }
  return cleaned;
}

/**
 * A PATCH of the settings that differ from the stored definition (key order ignored), so a
 * concurrent change of another property is not overwritten. Empty when nothing differs.
 */
export function patchBody(stored: Definition, settings: Settings): UpdateBody {
  const patch: Record<string, unknown> = {};
  for (const key of SETTING_KEYS) {
    if (canonical(stored[key]) !== canonical(settings[key])) patch[key] = settings[key];
  }
  return patch as UpdateBody;
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([key, item]) => `${JSON.stringify(key)}:${canonical(item)}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** What FieldInput renders for the draft: the user's view of the field as it would be stored. */
export function previewDefinition(intl: IntlShape, draft: Draft, settings: Settings): FieldDefinition {
  // FieldInput keys options by value: the preview shows each value once, and only filled rows.
  const options: Settings['options'] = [];
  for (const option of settings.options) {
    if (option.value.trim() === '' || options.some((shown) => shown.value === option.value)) continue;
    options.push({ value: option.value, label: option.label.trim() === '' ? option.value : option.label });
  }
  return {
    fieldKey: draft.fieldKey || 'newField',
    label: draft.label.trim() === '' ? intl.formatMessage({ id: 'schema.preview.untitled' }) : draft.label,
    fieldType: settings.fieldType,
    required: settings.required,
    options,
    validation: settings.validation,
    uiConfig: settings.uiConfig,
    placeholder: settings.placeholder,
    description: settings.description,
  };
}
