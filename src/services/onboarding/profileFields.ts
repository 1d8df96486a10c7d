// The canonical profile properties an onboarding field may bind to (source
// PROFILE_FIELD), and the value rules of each. Profile updates and PROFILE_FIELD
// onboarding values go through the same checkFieldValue with these rules, so the
// two writers of the profile accept exactly the same values (GUIDE §7).
//
// Pure module: no I/O.

import type { FieldType, ValueRules } from './values.ts';

/** A canonical profile property (the contract's ProfileField without null). */
export type { ProfileField as ProfileFieldName } from '../../domain/onboarding.ts';
import type { ProfileField as ProfileFieldName } from '../../domain/onboarding.ts';

/**
 * The field types a PROFILE_FIELD definition may have for each property; the value
 * written into the profile column must be of the column's kind:
 * first_name / last_name / display_name: single-line text; date_of_birth: a date;
 * phone: E.164 text; country: a two-letter code.
 */
export const PROFILE_FIELD_TYPES: Readonly<Record<ProfileFieldName, readonly FieldType[]>> = Object.freeze({
  firstName: ['TEXT'],
  lastName: ['TEXT'],
  displayName: ['TEXT'],
  dateOfBirth: ['DATE'],
  phone: ['PHONE'],
  country: ['COUNTRY'],
});

/** The contract's ProfileField enum, in its order. */
export const PROFILE_FIELDS: readonly ProfileFieldName[] = Object.freeze(Object.keys(PROFILE_FIELD_TYPES) as ProfileFieldName[]);

/**
 * Length limits (characters, i.e. code points) of the text properties, from the
 * contract's Profile schema: PersonName (firstName, lastName) 1..100 and
 * ProfileDisplayName 1..200. The profile columns allow 200; the contract is the
 * stricter bound, and what a profile read returns must satisfy it.
 */
export const PROFILE_FIELD_MAX_LENGTH: Readonly<Partial<Record<ProfileFieldName, number>>> = Object.freeze({
  firstName: 100,
  lastName: 100,
  displayName: 200,
});

export function isProfileField(value: unknown): value is ProfileFieldName {
  return typeof value === 'string' && Object.hasOwn(PROFILE_FIELD_TYPES, value);
}

/**
 * The value rules of a profile property. Without `definition`: the property's own
 * rules, for the profile update endpoint (`checkFieldValue(profileValueRules(name),
 * value)`). With the PROFILE_FIELD definition bound to it: the definition's rules,
 * tightened by the property's length limit (also when the definition sets none),
 * so an onboarding value is always one the profile can hold.
 */
export function profileValueRules(name: ProfileFieldName, definition?: Pick<ValueRules, 'fieldType' | 'options' | 'validation'>): ValueRules {
  const profileMax = PROFILE_FIELD_MAX_LENGTH[name];
  const base: ValueRules = definition ?? { fieldType: PROFILE_FIELD_TYPES[name][0]!, options: [], validation: {} };
  const validation = { ...base.validation };
  if (profileMax !== undefined) validation.maxLength = Math.min(validation.maxLength ?? profileMax, profileMax);
  // Both writers of the profile's date of birth (the profile update, a field bound to it) refuse
  // one in the future or absurdly far back; an onboarding DATE field of the platform's own keeps its rules.
  return { fieldType: base.fieldType, options: base.options, validation, ...(name === 'dateOfBirth' ? { birthDate: true } : {}) };
}
