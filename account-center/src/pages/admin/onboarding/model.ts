// The schema editor's model: a field definition as the form edits it (a draft of strings, so
// an unfinished number stays in its box) and what each type takes. Beside it, as pure as it:
// settings.ts (the request bodies built from a draft), reordering.ts (the reordering plan),
// impact.ts (the words of a dry run's impact) and pointers.ts (errors beside their inputs).
// No React, no I/O. The gateway is the judge of every rule (each save starts with its dry
// run); the form only hides what cannot apply to the chosen type and refuses numbers it cannot read.
import type { IntlShape } from 'react-intl';
import type { Schemas } from '../../../api.ts';

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
/** One copy in the account center: the registry pages' (contract: PlatformKey). */
export { PLATFORM_KEY_PATTERN } from '../platforms/model.ts';
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
  /** A profile-bound field's sharing rule (issue 36); ignored for a custom field. */
  sharing: Sharing;
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
export type Sharing = NonNullable<Schemas['OnboardingFieldSharing']>;
export const SHARING_RULES: readonly Sharing[] = ['shared', 'ask', 'own'];

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
    sharing: 'shared',
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
    sharing: definition.sharing ?? 'shared',
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
