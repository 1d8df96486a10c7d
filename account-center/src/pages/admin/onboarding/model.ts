// The schema editor's model: a field definition as the form edits it (a draft of strings, so
// an unfinished number stays in its box), the request bodies built from it, the reordering
// plan, and the words of a dry run's impact. Pure: no React, no I/O. The gateway is the
// judge of every rule (each save starts with its dry run); the form only hides what cannot
// apply to the chosen type and refuses numbers it cannot read.
import type { IntlShape } from 'react-intl';
import type { Schemas } from '../../../api.ts';
import type { FieldDefinition } from '../../../fields/FieldInput.tsx';

export type Definition = Schemas['OnboardingFieldDefinition'];
export type FieldType = Schemas['OnboardingFieldType'];
export type FieldSource = Schemas['OnboardingFieldSource'];
export type ProfileProperty = NonNullable<Schemas['ProfileField']>;
export type CreateBody = Schemas['OnboardingFieldCreateRequest'];
export type UpdateBody = Schemas['OnboardingFieldUpdateRequest'];
export type ChangePreview = Schemas['OnboardingSchemaChangePreview'];
export type Width = NonNullable<Schemas['OnboardingFieldUiConfig']['width']>;

/** The eleven types, in the contract's order; their words are `schema.type.<TYPE>`. */
export const FIELD_TYPES: readonly { type: FieldType }[] = [
  { type: 'TEXT' },
  { type: 'TEXTAREA' },
  { type: 'NUMBER' },
  { type: 'BOOLEAN' },
  { type: 'DATE' },
  { type: 'SELECT' },
  { type: 'MULTI_SELECT' },
  { type: 'COUNTRY' },
  { type: 'PHONE' },
  { type: 'EMAIL' },
  { type: 'URL' },
];

export function typeLabel(intl: IntlShape, type: FieldType): string {
  return FIELD_TYPES.some((entry) => entry.type === type) ? intl.formatMessage({ id: `schema.type.${type}` }) : type;
}

/**
 * The canonical profile properties a PROFILE_FIELD binds and the one type each needs (the
 * gateway's src/services/onboarding/profileFields.ts PROFILE_FIELD_TYPES). Their words are the
 * profile page's (`profile.field.<property>`), so a property has one name everywhere.
 */
export const PROFILE_PROPERTIES: readonly { property: ProfileProperty; type: FieldType }[] = [
  { property: 'firstName', type: 'TEXT' },
  { property: 'lastName', type: 'TEXT' },
  { property: 'displayName', type: 'TEXT' },
  { property: 'dateOfBirth', type: 'DATE' },
  { property: 'phone', type: 'PHONE' },
  { property: 'country', type: 'COUNTRY' },
];

export function profileProperty(property: ProfileProperty | null | undefined) {
  return PROFILE_PROPERTIES.find((entry) => entry.property === property);
}

export function propertyLabel(intl: IntlShape, property: ProfileProperty): string {
  return intl.formatMessage({ id: `profile.field.${property}` });
}

/** Types with options (SELECT, MULTI_SELECT). */
export const OPTION_TYPES: readonly FieldType[] = ['SELECT', 'MULTI_SELECT'];
/** Types with minLength/maxLength ("text types"). */
export const LENGTH_TYPES: readonly FieldType[] = ['TEXT', 'TEXTAREA', 'EMAIL', 'URL'];
/** Types with min/max. */
export const RANGE_TYPES: readonly FieldType[] = ['NUMBER'];
/** Types whose input shows no placeholder (a checkbox, a group of checkboxes, a date picker). */
export const NO_PLACEHOLDER_TYPES: readonly FieldType[] = ['BOOLEAN', 'MULTI_SELECT', 'DATE'];

export const takesOptions = (type: FieldType) => OPTION_TYPES.includes(type);
export const takesLengths = (type: FieldType) => LENGTH_TYPES.includes(type);
export const takesRange = (type: FieldType) => RANGE_TYPES.includes(type);

export const FIELD_KEY_PATTERN = /^[A-Za-z][A-Za-z0-9_]{1,63}$/;
export const PLATFORM_KEY_PATTERN = /^[A-Z][A-Z0-9_]{1,63}$/;
export const SORT_ORDER_LIMIT = 1_000_000;

export interface OptionDraft {
  /** A stable id for React and for the inputs' ids; never sent. */
  id: string;
  value: string;
  label: string;
}

/** The form's state: every input as typed. */
export interface Draft {
  fieldKey: string;
  label: string;
  fieldType: FieldType;
  required: boolean;
  sortOrder: string;
  source: FieldSource;
  profileField: ProfileProperty | null;
  options: OptionDraft[];
  minLength: string;
  maxLength: string;
  min: string;
  max: string;
  /** '' = not set (the form shows it full width). */
  width: Width | '';
  helpText: string;
  placeholder: string;
  description: string;
  /** The texts in other languages, by language tag (edited side by side with the default texts). */
  translations: Translations;
}

export type Translations = Schemas['OnboardingFieldTranslations'];

let optionCounter = 0;
export function newOption(value = '', label = ''): OptionDraft {
  optionCounter += 1;
  return { id: `option-${optionCounter}`, value, label };
}

/** A new field: custom, single-line text, after the last active field. */
export function emptyDraft(nextSortOrder: number): Draft {
  return {
    fieldKey: '',
    label: '',
    fieldType: 'TEXT',
    required: false,
    sortOrder: String(nextSortOrder),
    source: 'CUSTOM_FIELD',
    profileField: null,
    options: [],
    minLength: '',
    maxLength: '',
    min: '',
    max: '',
    width: '',
    helpText: '',
    placeholder: '',
    description: '',
    translations: {},
  };
}

export function draftOf(definition: Definition): Draft {
  const text = (value: number | undefined) => (value === undefined ? '' : String(value));
  return {
    fieldKey: definition.fieldKey,
    label: definition.label,
    fieldType: definition.fieldType,
    required: definition.required,
    sortOrder: String(definition.sortOrder),
    source: definition.source,
    profileField: definition.profileField,
    options: definition.options.map((option) => newOption(option.value, option.label)),
    minLength: text(definition.validation.minLength),
    maxLength: text(definition.validation.maxLength),
    min: text(definition.validation.min),
    max: text(definition.validation.max),
    width: definition.uiConfig.width ?? '',
    helpText: definition.uiConfig.helpText ?? '',
    placeholder: definition.placeholder ?? '',
    description: definition.description ?? '',
    translations: definition.translations,
  };
}

/** The sortOrder after the last of these fields, rounded up to the next ten. */
export function nextSortOrder(fields: readonly Definition[]): number {
  const active = fields.filter((field) => !field.archived);
  if (active.length === 0) return 10;
  const last = Math.max(...active.map((field) => field.sortOrder));
  return Math.min(SORT_ORDER_LIMIT, Math.floor(last / 10) * 10 + 10);
}

/** A change of type: options, limits and the profile binding that no longer fit are dropped by `settingsOf`. */
export function withType(draft: Draft, fieldType: FieldType): Draft {
  const next = { ...draft, fieldType };
  if (takesOptions(fieldType) && draft.options.length === 0) next.options = [newOption()];
  return next;
}

/** Switching the source: custom forgets the property; profile keeps the type when a property fits it. */
export function withSource(draft: Draft, source: FieldSource): Draft {
  if (source === 'CUSTOM_FIELD') return { ...draft, source, profileField: null };
  return { ...draft, source };
}

/** Picking a profile property sets the type it needs. */
export function withProfileProperty(draft: Draft, property: ProfileProperty | null): Draft {
  const entry = profileProperty(property);
  return entry ? { ...draft, profileField: entry.property, fieldType: entry.type } : { ...draft, profileField: null };
}

/** The types the type select offers: all, or, for a bound profile property, the one it needs. */
export function allowedTypes(draft: Pick<Draft, 'source' | 'profileField'>): readonly { type: FieldType }[] {
  const entry = draft.source === 'PROFILE_FIELD' ? profileProperty(draft.profileField) : undefined;
  return entry ? FIELD_TYPES.filter((candidate) => candidate.type === entry.type) : FIELD_TYPES;
}

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

const SETTING_KEYS = ['label', 'fieldType', 'source', 'profileField', 'required', 'sortOrder', 'options', 'validation', 'uiConfig', 'placeholder', 'description', 'translations'] as const;

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

// ---------------------------------------------------------------- reordering

export interface SortChange {
  fieldKey: string;
  sortOrder: number;
}

/**
 * The PATCHes of sortOrder that move the active field at `index` one place up (-1) or down
 * (+1). One PATCH when a whole number fits strictly between the new neighbours (the gateway
 * breaks ties by key, so a tie is never relied on); otherwise the active fields are numbered
 * 10, 20, 30… in the new order, one PATCH per field whose number changes. Every PATCH raises
 * the requirement version by one.
 */
export function movePlan(active: readonly Definition[], index: number, direction: -1 | 1): SortChange[] {
  const target = index + direction;
  const moving = active[index];
  if (!moving || target < 0 || target >= active.length) return [];
  const order = active.filter((_, position) => position !== index);
  order.splice(target, 0, moving);
  const before = order[target - 1];
  const after = order[target + 1];
  const low = before ? before.sortOrder : -SORT_ORDER_LIMIT - 1;
  const high = after ? after.sortOrder : SORT_ORDER_LIMIT + 1;
  if (high - low >= 2) {
    let value: number;
    if (!before) value = Math.max(high - 10, low + 1);
    else if (!after) value = Math.min(low + 10, high - 1);
    else value = Math.floor((low + high) / 2);
    return [{ fieldKey: moving.fieldKey, sortOrder: value }];
  }
  return order
    .map((field, position) => ({ fieldKey: field.fieldKey, sortOrder: (position + 1) * 10, current: field.sortOrder }))
    .filter((change) => change.sortOrder !== change.current)
    .map(({ fieldKey, sortOrder }) => ({ fieldKey, sortOrder }));
}

// ---------------------------------------------------------------- the words of an impact

/**
 * The impact of a change from its dry run: who is asked again and the version it leads to.
 * `steps`: how many changes the action makes (a reorder may take several), each raising the
 * version by one; the first one reopens everyone who had completed.
 */
export function impactSentence(intl: IntlShape, preview: Pick<ChangePreview, 'changed' | 'reopenedUsers' | 'requirementVersion'>, steps = 1): string {
  if (!preview.changed) return intl.formatMessage({ id: 'schema.impact.nothing' });
  const version = preview.requirementVersion + Math.max(0, steps - 1);
  return intl.formatMessage({ id: 'schema.impact.sentence' }, { count: preview.reopenedUsers, version });
}

/** The properties a change can set (`schema.changed.<property>`). */
const CHANGED_PROPERTIES = new Set([
  'fieldKey', 'label', 'fieldType', 'source', 'profileField', 'required', 'sortOrder', 'options', 'validation', 'uiConfig', 'placeholder', 'description', 'archived', 'translations',
]);

/** The properties a change sets, in words ("label and required"). */
export function changedWords(intl: IntlShape, changedFields: readonly string[]): string {
  return intl.formatList(
    changedFields.map((field) => (CHANGED_PROPERTIES.has(field) ? intl.formatMessage({ id: `schema.changed.${field}` }) : field)),
    { type: 'unit' },
  );
}

// ---------------------------------------------------------------- errors beside their inputs

/** A person's name for the input behind a pointer below /body/ (for the error summary). */
export function pointerLabel(intl: IntlShape, pointer: string): string {
  const translation = /^translations\/([^/]+)(?:\/(.+))?$/.exec(pointer);
  if (translation) {
    const [, language = '', part] = translation;
    const option = part ? /^options\/(.+)$/.exec(part) : null;
    if (!part) return intl.formatMessage({ id: 'schema.pointer.translation' }, { language });
    return intl.formatMessage({ id: option ? 'schema.pointer.translationOption' : 'schema.pointer.translationPart' }, { language, part: option ? option[1]! : part });
  }
  const option = /^options\/(\d+)(?:\/(value|label))?$/.exec(pointer);
  if (option) return intl.formatMessage({ id: 'schema.pointer.option' }, { number: Number(option[1]) + 1, part: option[2] ?? 'whole' });
  return POINTER_NAMES.has(pointer) ? intl.formatMessage({ id: `schema.pointer.${pointer}` }) : pointer;
}

/** The pointers with a name of their own (`schema.pointer.<pointer>`). */
const POINTER_NAMES = new Set([
  'fieldKey', 'label', 'fieldType', 'source', 'profileField', 'required', 'sortOrder', 'options', 'validation',
  'validation/minLength', 'validation/maxLength', 'validation/min', 'validation/max', 'uiConfig', 'uiConfig/width', 'uiConfig/helpText', 'placeholder', 'description',
]);

/** The order the form shows its inputs in, so the first error is the first on screen. */
export function pointerRank(pointer: string): number {
  const order = ['fieldKey', 'label', 'fieldType', 'required', 'sortOrder', 'source', 'profileField', 'options', 'validation', 'uiConfig', 'placeholder', 'description'];
  const head = pointer.split('/')[0] ?? pointer;
  const rank = order.indexOf(head);
  const option = /^options\/(\d+)(?:\/(value|label))?$/.exec(pointer);
  const sub = option ? 1 + Number(option[1]) * 3 + (option[2] === 'label' ? 2 : option[2] === 'value' ? 1 : 0) : 0;
  return (rank === -1 ? order.length : rank) * 10_000 + sub;
}
