// Onboarding field definition rules (spec: "Onboarding field definition"), shared
// by the admin API and the operator CLI. The API's contract validation runs first
// and catches shapes; the checks below repeat the shapes (the CLI does not pass
// through the contract) and add the cross-property rules JSON Schema cannot
// express. Every problem of a body is reported at once, each under its JSON
// pointer (`/body/options/2/value`, `/body/validation/min`).
//
// Pure module: no I/O.

import type { components } from '../../../generated/gateway.ts';
import { validationError, type FieldError } from '../../errors/catalogue.ts';
import { isProfileField, profileValueRules, PROFILE_FIELD_MAX_LENGTH, PROFILE_FIELD_TYPES, PROFILE_FIELDS, type ProfileFieldName } from './profileFields.ts';
import { checkText, escapePointer, fail, isPlainObject, pointer } from './definitionText.ts';
import { checkTranslatedOptions, checkTranslations } from './fieldTranslations.ts';
import { FIELD_TYPES, LENGTH_LIMITED_TYPES, OPTION_TYPES, RANGE_TYPES, type ValueRules } from './values.ts';
import type { FieldDefinitionSettings as StoredDefinition, FieldOption, FieldSharing, FieldSource, FieldTranslation, FieldTranslations, FieldType, FieldUiConfig, FieldValidation } from '../../domain/onboarding.ts';

export type { FieldSource, FieldOption, FieldValidation, FieldUiConfig, FieldType } from '../../domain/onboarding.ts';
export type FieldCreateInput = components['schemas']['OnboardingFieldCreateRequest'];
export type FieldUpdateInput = components['schemas']['OnboardingFieldUpdateRequest'];
export type { ProfileFieldName } from './profileFields.ts';

/**
 * The stored settings of a definition (src/domain/onboarding.ts): everything a PATCH may
 * change; fieldKey is immutable.
 */
export type FieldDefinitionSettings = Omit<StoredDefinition, 'fieldKey'>;

/** A validated create body with its defaults filled in (the key plus the settings). */
export type NewFieldDefinition = StoredDefinition;

export const FIELD_KEY_PATTERN = /^[A-Za-z][A-Za-z0-9_]{1,63}$/;
export const FIELD_SOURCES: readonly FieldSource[] = Object.freeze(['CUSTOM_FIELD', 'PROFILE_FIELD'] as const);
export const FIELD_SHARING_RULES: readonly FieldSharing[] = Object.freeze(['shared', 'ask', 'own'] as const);
export const UI_WIDTHS: readonly NonNullable<FieldUiConfig['width']>[] = Object.freeze(['full', 'half', 'third'] as const);
export { DESCRIPTION_MAX_LENGTH, HELP_TEXT_MAX_LENGTH, LABEL_MAX_LENGTH, MAX_OPTIONS, OPTION_MAX_LENGTH, PLACEHOLDER_MAX_LENGTH } from './definitionText.ts';
import { DESCRIPTION_MAX_LENGTH, HELP_TEXT_MAX_LENGTH, LABEL_MAX_LENGTH, MAX_OPTIONS, OPTION_MAX_LENGTH, PLACEHOLDER_MAX_LENGTH } from './definitionText.ts';
export const SORT_ORDER_LIMIT = 1_000_000;
/** The contract's bound on minLength/maxLength, whatever the type. */
const LENGTH_LIMIT = 10_000;

/** The settings in a fixed order: the order of `changed`. */
export const FIELD_SETTINGS = Object.freeze([
  'label',
  'fieldType',
  'source',
  'profileField',
  'sharing',
  'required',
  'sortOrder',
  'options',
  'validation',
  'uiConfig',
  'placeholder',
  'description',
  'translations',
] as const satisfies readonly (keyof FieldDefinitionSettings)[]);
export type FieldSettingKey = (typeof FIELD_SETTINGS)[number];

const DEFAULTS: Omit<FieldDefinitionSettings, 'label' | 'fieldType'> = Object.freeze({
  source: 'CUSTOM_FIELD',
  profileField: null,
  sharing: null,
  required: false,
  sortOrder: 0,
  options: [],
  validation: {},
  uiConfig: {},
  placeholder: null,
  description: null,
  translations: {},
});

// ---------------------------------------------------------------- create and patch

/**
 * A create body, checked, with its defaults filled in: source CUSTOM_FIELD,
 * profileField null, required false, sortOrder 0, options [], validation {},
 * uiConfig {}, placeholder null, description null, translations {}. Throws 400 VALIDATION_FAILED
 * listing every problem. Takes `unknown`: the CLI's input has not met the contract.
 */
export function validateFieldCreate(input: FieldCreateInput | unknown): NewFieldDefinition {
  if (!isPlainObject(input)) throw validationError([{ pointer: '/body', message: 'must be a JSON object' }]);
  const errors: FieldError[] = [];
  for (const key of Object.keys(input)) {
    if (key !== 'fieldKey' && !(FIELD_SETTINGS as readonly string[]).includes(key)) errors.push({ pointer: pointer(escapePointer(key)), message: 'is not a known property' });
  }
  const fieldKey = checkFieldKey(input.fieldKey, errors);
  const candidate: Partial<FieldDefinitionSettings> = {};
  for (const key of FIELD_SETTINGS) {
    if (input[key] !== undefined) assign(candidate, key, CHECKS[key](input[key], errors));
    else if (key === 'label' || key === 'fieldType') errors.push({ pointer: pointer(key), message: 'is required' });
    else assign(candidate, key, DEFAULTS[key]);
  }
  checkCrossRules(candidate, errors, null, input.sharing !== undefined && input.sharing !== null);
  if (errors.length > 0) throw validationError(errors);
  return { fieldKey: fieldKey!, ...(candidate as FieldDefinitionSettings) };
}

/**
 * A PATCH (merge semantics: a present property replaces the stored one, `null`
 * clears a nullable one). The merged definition must satisfy the create rules, so
 * a patch that changes one side of a rule sends the other too (TEXT to SELECT sends
 * options; PROFILE_FIELD to CUSTOM_FIELD sends `profileField: null`). `fieldKey` is
 * immutable. `changed` lists the settings whose value really changes (deep
 * equality, key order ignored); a patch that changes nothing gives `[]`. `merged`
 * is `current` (with whatever else it carries, such as fieldKey) with the settings applied.
 */
export function validateFieldPatch<T extends FieldDefinitionSettings>(
  current: T,
  patch: FieldUpdateInput | unknown,
): { merged: T; changed: FieldSettingKey[] } {
  if (!isPlainObject(patch)) throw validationError([{ pointer: '/body', message: 'must be a JSON object' }]);
  const errors: FieldError[] = [];
  const keys = Object.keys(patch);
  if (keys.length === 0) errors.push({ pointer: '/body', message: 'must change at least one property' });
  for (const key of keys) {
    if (key === 'fieldKey') errors.push({ pointer: pointer(key), message: 'is immutable and cannot be changed' });
    else if (!(FIELD_SETTINGS as readonly string[]).includes(key)) errors.push({ pointer: pointer(escapePointer(key)), message: 'is not a known property' });
  }
  const touched = new Set(keys);
  const candidate: Partial<FieldDefinitionSettings> = {};
  for (const key of FIELD_SETTINGS) {
    if (touched.has(key)) assign(candidate, key, CHECKS[key](patch[key], errors));
    else assign(candidate, key, current[key]);
  }
  checkCrossRules(candidate, errors, touched, touched.has('sharing') && patch.sharing !== null);
  if (errors.length > 0) throw validationError(errors);
  // Whatever else `current` carries (fieldKey, a row's id) is kept.
  const merged: T = { ...current, ...candidate };
  return { merged, changed: FIELD_SETTINGS.filter((key) => !sameValue(current[key], merged[key])) };
}

/**
 * The value rules of a definition: its own, tightened for a PROFILE_FIELD by the
 * profile property's limit (see profileValueRules).
 */
export function valueRulesFor(definition: Pick<FieldDefinitionSettings, 'fieldType' | 'options' | 'validation' | 'source' | 'profileField'>): ValueRules {
  if (definition.source === 'PROFILE_FIELD' && definition.profileField) return profileValueRules(definition.profileField, definition);
  return { fieldType: definition.fieldType, options: definition.options, validation: { ...definition.validation } };
}

// ---------------------------------------------------------------- one property at a time

type Check<K extends FieldSettingKey> = (value: unknown, errors: FieldError[]) => FieldDefinitionSettings[K] | undefined;

const CHECKS: { [K in FieldSettingKey]: Check<K> } = {
  label: (value, errors) => checkText('label', value, errors, { min: 1, max: LABEL_MAX_LENGTH, nullable: false, multiline: false }) as string | undefined,
  fieldType: (value, errors) =>
    isOneOf(value, FIELD_TYPES) ? value : fail(errors, 'fieldType', `must be one of ${FIELD_TYPES.join(', ')}`),
  source: (value, errors) => (isOneOf(value, FIELD_SOURCES) ? value : fail(errors, 'source', `must be one of ${FIELD_SOURCES.join(', ')}`)),
  profileField: (value, errors) =>
    value === null || isProfileField(value) ? value : fail(errors, 'profileField', `must be null or one of ${PROFILE_FIELDS.join(', ')}`),
  sharing: (value, errors) => (value === null || isOneOf(value, FIELD_SHARING_RULES) ? value : fail(errors, 'sharing', `must be null or one of ${FIELD_SHARING_RULES.join(', ')}`)),
  required: (value, errors) => (typeof value === 'boolean' ? value : fail(errors, 'required', 'must be true or false')),
  sortOrder: (value, errors) =>
    Number.isInteger(value) && Math.abs(value as number) <= SORT_ORDER_LIMIT
      ? (value as number) + 0
      : fail(errors, 'sortOrder', `must be an integer from -${SORT_ORDER_LIMIT} to ${SORT_ORDER_LIMIT}`),
  options: checkOptions,
  validation: checkValidationShape,
  uiConfig: checkUiConfig,
  placeholder: (value, errors) => checkText('placeholder', value, errors, { min: 0, max: PLACEHOLDER_MAX_LENGTH, nullable: true, multiline: false }),
  description: (value, errors) => checkText('description', value, errors, { min: 0, max: DESCRIPTION_MAX_LENGTH, nullable: true, multiline: true }),
  translations: checkTranslations,
};

function checkFieldKey(value: unknown, errors: FieldError[]): string | undefined {
  if (value === undefined) return fail(errors, 'fieldKey', 'is required');
  if (typeof value !== 'string' || !FIELD_KEY_PATTERN.test(value)) {
    return fail(errors, 'fieldKey', 'must match ^[A-Za-z][A-Za-z0-9_]{1,63}$ (a letter, then 1 to 63 letters, digits or underscores)');
  }
  return value;
}

/** Options as stored: new `{ value, label }` objects, values unique. Whether the type takes options is a cross rule. */
function checkOptions(value: unknown, errors: FieldError[]): FieldOption[] | undefined {
  if (!Array.isArray(value)) return fail(errors, 'options', 'must be an array of { value, label } objects');
  if (value.length > MAX_OPTIONS) return fail(errors, 'options', `must hold at most ${MAX_OPTIONS} options`);
  const before = errors.length;
  const options: FieldOption[] = [];
  const firstIndex = new Map<string, number>();
  value.forEach((item: unknown, index) => {
    const at = `options/${index}`;
    if (!isPlainObject(item)) return void fail(errors, at, 'must be an object with value and label');
    for (const key of Object.keys(item)) {
      if (key !== 'value' && key !== 'label') fail(errors, `${at}/${escapePointer(key)}`, 'is not a known property');
    }
    const optionValue = checkText(`${at}/value`, item.value, errors, { min: 1, max: OPTION_MAX_LENGTH, nullable: false, multiline: false });
    const label = checkText(`${at}/label`, item.label, errors, { min: 1, max: OPTION_MAX_LENGTH, nullable: false, multiline: false });
    if (typeof optionValue === 'string') {
      // A value with outer white space could never be chosen: white space around a submitted value makes it another string.
      if (optionValue.trim() !== optionValue) fail(errors, `${at}/value`, 'must not begin or end with white space');
      const first = firstIndex.get(optionValue);
      if (first !== undefined) fail(errors, `${at}/value`, `duplicates the value of option ${first}`);
      else firstIndex.set(optionValue, index);
    }
    if (typeof optionValue === 'string' && typeof label === 'string') options.push({ value: optionValue, label });
  });
  return errors.length === before ? options : undefined;
}

const VALIDATION_KEYS = ['minLength', 'maxLength', 'min', 'max'] as const;

/**
 * The shape of `validation`; which keys fit the field type, and the pairs, are cross
 * rules. The well-formed keys are returned even when others are not: each key stands
 * alone, so the cross rules can still report on them (any error refuses the body).
 */
function checkValidationShape(value: unknown, errors: FieldError[]): FieldValidation | undefined {
  if (!isPlainObject(value)) return fail(errors, 'validation', 'must be an object');
  for (const key of Object.keys(value)) {
    if (!(VALIDATION_KEYS as readonly string[]).includes(key)) {
      fail(errors, `validation/${escapePointer(key)}`, `is not a known validation key (${VALIDATION_KEYS.join(', ')})`);
    }
  }
  const result: FieldValidation = {};
  for (const key of ['minLength', 'maxLength'] as const) {
    const limit = value[key];
    if (limit === undefined) continue;
    if (!Number.isInteger(limit) || (limit as number) < 0 || (limit as number) > LENGTH_LIMIT) {
      fail(errors, `validation/${key}`, `must be an integer from 0 to ${LENGTH_LIMIT}`);
    } else result[key] = (limit as number) + 0;
  }
  for (const key of ['min', 'max'] as const) {
    const limit = value[key];
    if (limit === undefined) continue;
    if (typeof limit !== 'number' || !Number.isFinite(limit)) fail(errors, `validation/${key}`, 'must be a finite number');
    else result[key] = limit + 0;
  }
  return result;
}

/** Inert rendering hints: `width` and a plain `helpText`; never interpreted as HTML. */
function checkUiConfig(value: unknown, errors: FieldError[]): FieldUiConfig | undefined {
  if (!isPlainObject(value)) return fail(errors, 'uiConfig', 'must be an object');
  const before = errors.length;
  for (const key of Object.keys(value)) {
    if (key !== 'width' && key !== 'helpText') fail(errors, `uiConfig/${escapePointer(key)}`, 'is not a known key (width, helpText)');
  }
  const result: FieldUiConfig = {};
  if (value.width !== undefined) {
    if (isOneOf(value.width, UI_WIDTHS)) result.width = value.width;
    else fail(errors, 'uiConfig/width', `must be one of ${UI_WIDTHS.join(', ')}`);
  }
  if (value.helpText !== undefined) {
    const helpText = checkText('uiConfig/helpText', value.helpText, errors, { min: 0, max: HELP_TEXT_MAX_LENGTH, nullable: false, multiline: true });
    if (typeof helpText === 'string') result.helpText = helpText;
  }
  return errors.length === before ? result : undefined;
}

// ---------------------------------------------------------------- rules across properties

/**
 * The rules that join properties, on the candidate (create: body plus defaults;
 * patch: the merged definition). A property that failed its own check is absent,
 * and the rules that need it are skipped, so each problem is reported once.
 * `touched` (patch only) decides which of two properties a mismatch points at.
 */
function checkCrossRules(candidate: Partial<FieldDefinitionSettings>, errors: FieldError[], touched: ReadonlySet<string> | null, sharingGiven: boolean): void {
  const { fieldType, source, profileField, options, validation } = candidate;
  settleSharing(candidate, errors, sharingGiven);

  if (source !== undefined && profileField !== undefined) {
    if (source === 'CUSTOM_FIELD' && profileField !== null) fail(errors, 'profileField', 'must be null when source is CUSTOM_FIELD');
    if (source === 'PROFILE_FIELD' && profileField === null) fail(errors, 'profileField', 'is required when source is PROFILE_FIELD');
  }
  const bound = source === 'PROFILE_FIELD' && profileField ? profileField : null;
  if (bound !== null && fieldType !== undefined && !PROFILE_FIELD_TYPES[bound].includes(fieldType)) {
    const fits = PROFILE_FIELD_TYPES[bound].join(' or ');
    if (touched !== null && touched.has('profileField') && !touched.has('fieldType')) {
      fail(errors, 'profileField', `needs fieldType ${fits} for the profile property ${bound}`);
    } else {
      fail(errors, 'fieldType', `must be ${fits} for the profile property ${bound}`);
    }
  }

  if (fieldType !== undefined && options !== undefined) {
    const takesOptions = OPTION_TYPES.includes(fieldType);
    if (takesOptions && options.length === 0) fail(errors, 'options', `must not be empty for ${fieldType} fields`);
    if (!takesOptions && options.length > 0) fail(errors, 'options', `must be empty for ${fieldType} fields`);
  }

  if (validation !== undefined) checkValidationRules(validation, fieldType, bound, errors);

  if (options !== undefined && candidate.translations !== undefined) {
    candidate.translations = checkTranslatedOptions(candidate.translations, options, errors, touched === null || touched.has('translations'));
  }
}

/**
 * The sharing rule belongs to profile-bound fields only (issue 36): a PROFILE_FIELD without one
 * is `shared` (the behaviour before the rule); one the caller set on a field that is not
 * profile-bound is refused with its own reason; one kept from before a PROFILE_FIELD became a
 * CUSTOM_FIELD (not sent in the patch) is dropped with the binding.
 */
function settleSharing(candidate: Partial<FieldDefinitionSettings>, errors: FieldError[], sharingGiven: boolean): void {
  if (candidate.source === undefined || candidate.sharing === undefined) return;
  if (candidate.source === 'PROFILE_FIELD') {
    candidate.sharing ??= 'shared';
  } else if (candidate.sharing !== null) {
    if (sharingGiven) errors.push({ pointer: '/body/sharing', reason: 'NOT_PROFILE_BOUND', message: 'must be null when source is not PROFILE_FIELD' });
    else candidate.sharing = null;
  }
}

/**
 * Which validation keys fit the field type (minLength/maxLength the text types,
 * at most the type's or the bound profile property's own maximum; min/max NUMBER),
 * and each pair in order. With an invalid fieldType, only the pairs are checked.
 */
function checkValidationRules(validation: FieldValidation, fieldType: FieldType | undefined, bound: ProfileFieldName | null, errors: FieldError[]): void {
  let lengthsApply = true;
  let rangeApplies = true;
  if (fieldType !== undefined) {
    const typeMax = LENGTH_LIMITED_TYPES[fieldType];
    const profileMax = bound === null ? undefined : PROFILE_FIELD_MAX_LENGTH[bound];
    lengthsApply = typeMax !== undefined;
    rangeApplies = RANGE_TYPES.includes(fieldType);
    for (const key of ['minLength', 'maxLength'] as const) {
      const limit = validation[key];
      if (limit === undefined) continue;
      if (typeMax === undefined) fail(errors, `validation/${key}`, `does not apply to ${fieldType} fields`);
      else if (profileMax !== undefined && limit > profileMax) fail(errors, `validation/${key}`, `must be at most ${profileMax} for the profile property ${bound}`);
      else if (limit > typeMax) fail(errors, `validation/${key}`, `must be at most ${typeMax} for ${fieldType} fields`);
    }
    for (const key of ['min', 'max'] as const) {
      if (validation[key] !== undefined && !rangeApplies) fail(errors, `validation/${key}`, `does not apply to ${fieldType} fields`);
    }
  }
  const { minLength, maxLength, min, max } = validation;
  if (lengthsApply && minLength !== undefined && maxLength !== undefined && minLength > maxLength) {
    fail(errors, 'validation/minLength', 'must not be greater than maxLength');
  }
  if (rangeApplies && min !== undefined && max !== undefined && min > max) fail(errors, 'validation/min', 'must not be greater than max');
}

// ---------------------------------------------------------------- helpers

function assign<K extends FieldSettingKey>(target: Partial<FieldDefinitionSettings>, key: K, value: FieldDefinitionSettings[K] | undefined): void {
  if (value !== undefined) target[key] = value;
}

function isOneOf<T extends string>(value: unknown, allowed: readonly T[]): value is T {
  return typeof value === 'string' && (allowed as readonly string[]).includes(value);
}

/** Value equality for the stored shapes (scalars, arrays, JSON objects), key order ignored. */
function sameValue(a: unknown, b: unknown): boolean {
  return canonicalJson(a) === canonicalJson(b);
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value)
      .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
