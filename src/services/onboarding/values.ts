// Field value rules: one validator per field type, shared by onboarding values
// (CUSTOM_FIELD and PROFILE_FIELD) and profile updates (GUIDE §7). Each check
// returns the NORMALISED value to store, or a stable reason (the contract's
// FieldErrorReason) with a short message for people. Messages never repeat the
// submitted value: values can be personal data, and messages end up in logs.
//
// Decisions (the contract's OnboardingValue text mirrors them):
// - Empty: `null` (and an absent value) clears any field; it is stored as the
//   type's empty value, `null` for scalars and `[]` for MULTI_SELECT. A string
//   that is empty or white space only is the empty value of every string-valued
//   type (TEXT, TEXTAREA, EMAIL, URL, PHONE, DATE, SELECT, COUNTRY) and is stored
//   as `null`. Empty values are always accepted here; whether a field may be
//   empty is the `required` flag's business (status calculation). As in HTML,
//   minLength does not apply to an empty value.
// - `false` is a BOOLEAN value, not an empty one.
// - Lengths count Unicode code points, as JSON Schema (and Ajv), and PostgreSQL's
//   char_length do. HTML's maxlength counts UTF-16 code units, so an HTML client
//   never lets through more than the service accepts.
// - Text typed by people (TEXT, TEXTAREA, EMAIL, URL, PHONE) loses its leading
//   and trailing white space; lengths are measured after that. Picker values
//   (DATE, COUNTRY, SELECT, MULTI_SELECT) must be exact.
// - No string may hold a lone surrogate or a control character (U+0000 breaks
//   jsonb); a tab is allowed in TEXT and TEXTAREA, a line break in TEXTAREA only
//   (CRLF and CR become LF, as a textarea's value has them). A TEXT value with a
//   line break is WRONG_TYPE: it is not single-line text. No Unicode normalisation.
// - Strings are at most 10000 characters (the contract's OnboardingValue limit).

import { createRequire } from 'node:module';
import type { components } from '../../../generated/gateway.ts';
import type { FieldErrorReason } from '../../errors/catalogue.ts';
import { hasUnsafeCharacters } from '../../security/urls.ts';

export type { FieldType } from '../../domain/onboarding.ts';
import type { FieldType } from '../../domain/onboarding.ts';
/** A stored (normalised) value: the contract's OnboardingValue. */
export type StoredValue = components['schemas']['OnboardingValue'];
export type { FieldErrorReason } from '../../errors/catalogue.ts';

export const FIELD_TYPES: readonly FieldType[] = Object.freeze([
  'TEXT',
  'TEXTAREA',
  'NUMBER',
  'BOOLEAN',
  'DATE',
  'SELECT',
  'MULTI_SELECT',
  'COUNTRY',
  'PHONE',
  'EMAIL',
  'URL',
] as const);

/** Types whose definitions carry options. */
export const OPTION_TYPES: readonly FieldType[] = Object.freeze(['SELECT', 'MULTI_SELECT'] as const);

/**
 * The "text types" of the definition's `minLength`/`maxLength`: the free-form
 * string values (the spec's value table), whose HTML controls also take
 * minlength/maxlength. Each has an inherent maximum (characters).
 */
export const LENGTH_LIMITED_TYPES: Readonly<Partial<Record<FieldType, number>>> = Object.freeze({
  TEXT: 10_000,
  TEXTAREA: 10_000,
  EMAIL: 254,
  URL: 2048,
});

/** Types whose definitions may carry `min`/`max`. */
export const RANGE_TYPES: readonly FieldType[] = Object.freeze(['NUMBER'] as const);

export const STRING_MAX_LENGTH = 10_000;
/** RFC 5321 §4.5.3.1.3 (a 256-octet path, less the angle brackets). */
export const EMAIL_MAX_LENGTH = 254;
/** RFC 5321 §4.5.3.1.1. */
const EMAIL_LOCAL_PART_MAX_LENGTH = 64;
export const URL_MAX_LENGTH = 2048;
/** Raw phone input, separators included; no valid number comes near it. */
const PHONE_INPUT_MAX_LENGTH = 64;

export interface ValueRules {
  fieldType: FieldType;
  options: readonly { readonly value: string }[];
  validation: { minLength?: number; maxLength?: number; min?: number; max?: number };
  /** A DATE that is a person's date of birth (the profile's dateOfBirth): see checkBirthDate. */
  birthDate?: boolean;
}

export type ValueCheck =
  | { ok: true; value: StoredValue }
  /** `at`: a JSON pointer below the value (e.g. `/2` for a MULTI_SELECT entry), when the problem is one entry. */
  | { ok: false; reason: FieldErrorReason; message: string; at?: string };

/** The type's empty value: `[]` for MULTI_SELECT, `null` for every other type. */
export function emptyValueOf(fieldType: FieldType): null | [] {
  return fieldType === 'MULTI_SELECT' ? [] : null;
}

/**
 * Whether a stored or submitted value counts as empty (a required field then is
 * missing): `null`, absent, a string that is empty or white space only, `[]`.
 * `false` and `0` are values.
 */
export function isEmptyValue(value: unknown): boolean {
  if (value === null || value === undefined) return true;
  if (typeof value === 'string') return value.trim() === '';
  if (Array.isArray(value)) return value.length === 0;
  return false;
}

/** Checks one value against its field's rules; on success, the value to store. */
export function checkFieldValue(rules: ValueRules, value: unknown): ValueCheck {
  const { fieldType } = rules;
  if (value === null || value === undefined) return ok(emptyValueOf(fieldType));
  switch (fieldType) {
    case 'NUMBER':
      return checkNumber(rules, value);
    case 'BOOLEAN':
      return typeof value === 'boolean' ? ok(value) : fail('WRONG_TYPE', 'must be true or false');
    case 'MULTI_SELECT':
      return checkMultiSelect(rules, value);
    default:
      break;
  }
  if (typeof value !== 'string') return fail('WRONG_TYPE', 'must be a string');
  if (isEmptyValue(value)) return ok(null);
  if (!value.isWellFormed()) return fail('WRONG_TYPE', 'must be valid Unicode text');
  switch (fieldType) {
    case 'TEXT':
    case 'TEXTAREA':
      return checkText(rules, value);
    case 'DATE':
      if (!isCalendarDate(value)) return fail('INVALID_DATE', 'must be a date of the calendar as YYYY-MM-DD');
      return rules.birthDate ? checkBirthDate(value) : ok(value);
    case 'SELECT':
      return rules.options.some((option) => option.value === value) ? ok(value) : fail('NOT_AN_OPTION', 'must be one of the options');
    case 'COUNTRY':
      return isAssignedCountry(value) ? ok(value) : fail('INVALID_COUNTRY', 'must be an ISO 3166-1 alpha-2 country code in upper case');
    case 'PHONE':
      return checkPhone(value.trim());
    case 'EMAIL':
      return checkEmail(rules, value.trim());
    case 'URL':
      return checkUrl(rules, value.trim());
  }
}

// ---------------------------------------------------------------- per type

function checkNumber(rules: ValueRules, value: unknown): ValueCheck {
  if (typeof value !== 'number') return fail('WRONG_TYPE', 'must be a number');
  // JSON has neither; a caller outside the HTTP API (or 1e400 parsed) could still pass them.
  if (!Number.isFinite(value)) return fail('WRONG_TYPE', 'must be a finite number');
  const { min, max } = rules.validation;
  if (min !== undefined && value < min) return fail('BELOW_MIN', `must be at least ${min}`);
  if (max !== undefined && value > max) return fail('ABOVE_MAX', `must be at most ${max}`);
  return ok(value + 0); // -0 is stored as 0
}

const LINE_BREAK = /[\n\r\v\f\u0085\u2028\u2029]/u;
const CONTROL_EXCEPT_TAB = /[^\P{Cc}\t]/u;
const CONTROL_EXCEPT_TAB_LF = /[^\P{Cc}\t\n]/u;

function checkText(rules: ValueRules, raw: string): ValueCheck {
  let text = raw.trim();
  if (rules.fieldType === 'TEXT') {
    if (LINE_BREAK.test(text)) return fail('WRONG_TYPE', 'must be a single line');
    if (CONTROL_EXCEPT_TAB.test(text)) return fail('WRONG_TYPE', 'must not contain control characters');
  } else {
    text = text.replace(/\r\n?/g, '\n');
    if (CONTROL_EXCEPT_TAB_LF.test(text)) return fail('WRONG_TYPE', 'must not contain control characters');
  }
  return checkLength(rules, text, STRING_MAX_LENGTH);
}

/** minLength/maxLength of the definition, and the type's own maximum, on the normalised text. */
function checkLength(rules: ValueRules, text: string, typeMax: number): ValueCheck {
  const length = codePoints(text);
  const { minLength, maxLength } = rules.validation;
  const max = Math.min(typeMax, maxLength ?? typeMax);
  if (length > max) return fail('TOO_LONG', `must be at most ${max} characters`);
  if (minLength !== undefined && length < minLength) return fail('TOO_SHORT', `must be at least ${minLength} characters`);
  return ok(text);
}

function checkMultiSelect(rules: ValueRules, value: unknown): ValueCheck {
  if (!Array.isArray(value)) return fail('WRONG_TYPE', 'must be an array of option values');
  const order = new Map(rules.options.map((option, index) => [option.value, index]));
  const seen = new Set<string>();
  for (const [index, item] of value.entries()) {
    if (typeof item !== 'string') return fail('WRONG_TYPE', 'must be an array of option values (strings)', `/${index}`);
    if (!order.has(item)) return fail('NOT_AN_OPTION', 'must list only options of the field', `/${index}`);
    if (seen.has(item)) return fail('DUPLICATE_OPTION', 'must list each option once', `/${index}`);
    seen.add(item);
  }
  // A checkbox group has no order: store the choices in the field's option order,
  // so equal selections are equal values.
  return ok([...seen].sort((a, b) => order.get(a)! - order.get(b)!));
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/**
 * `YYYY-MM-DD` naming a day of the proleptic Gregorian calendar, years 0001 to 9999.
 * Year 0000 is refused, as HTML's date input ("year > 0") and PostgreSQL's date do.
 */
function isCalendarDate(value: string): boolean {
  const match = DATE.exec(value);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (year < 1 || month < 1 || month > 12 || day < 1) return false;
  return day <= daysInMonth(year, month);
}

/** How far back a date of birth may lie: longer than any recorded human life (122 years). */
export const BIRTH_DATE_MAX_AGE_YEARS = 150;
/** UTC+14 (Line Islands) is the first zone in a new day: a birth date "today" there is valid. */
const EARLIEST_ZONE_OFFSET_MS = 14 * 3600 * 1000;

/**
 * A date of birth is not after today, read in the earliest time zone so nobody born today is
 * refused because the server is in UTC, and not more than BIRTH_DATE_MAX_AGE_YEARS back.
 * Compared as YYYY-MM-DD text (both are 4-digit years here, so text order is date order).
 */
function checkBirthDate(value: string, now: Date = new Date()): ValueCheck {
  const latest = new Date(now.getTime() + EARLIEST_ZONE_OFFSET_MS).toISOString().slice(0, 10);
  if (value > latest) return fail('ABOVE_MAX', 'must not be after today');
  const earliest = new Date(now.getTime());
  earliest.setUTCFullYear(earliest.getUTCFullYear() - BIRTH_DATE_MAX_AGE_YEARS);
  const floor = earliest.toISOString().slice(0, 10);
  if (value < floor) return fail('BELOW_MIN', `must not be more than ${BIRTH_DATE_MAX_AGE_YEARS} years ago`);
  return ok(value);
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/**
 * ISO 3166-1 code elements reserved for user assignment by the standard: AA,
 * QM to QZ, XA to XZ, ZZ. They name no country of the standard. The npm list carries
 * one of them, XK, which several bodies use for Kosovo, but the ISO 3166 Maintenance
 * Agency has not assigned it; country lists built from the standard (and the services
 * that read the profile) do not know it, so it is refused with the rest.
 */
function isUserAssigned(code: string): boolean {
  return code === 'AA' || code === 'ZZ' || (code[0] === 'Q' && code[1]! >= 'M') || code[0] === 'X';
}

/**
 * The country list and the phone metadata are loaded at the first value that needs them
 * (synchronously, through require): ~5 MB of resident memory that a gateway whose platforms
 * ask for neither, and the login flow, never needs (docs/benchmarks.md, "Memory").
 */
const requireOnFirstUse = createRequire(import.meta.url);
let assignedCountries: ReadonlySet<string> | undefined;
let phoneNumbers: typeof import('libphonenumber-js/max') | undefined;

/** The officially assigned alpha-2 codes, from the npm list (never a hand-written table). */
function assignedCountryCodes(): ReadonlySet<string> {
  assignedCountries ??= new Set(
    Object.keys((requireOnFirstUse('i18n-iso-countries') as typeof import('i18n-iso-countries')).getAlpha2Codes())
      .filter((code) => /^[A-Z]{2}$/.test(code) && !isUserAssigned(code)),
  );
  return assignedCountries;
}

/** Exact upper case: the package's own isValid also takes `gb`, alpha-3 and numeric codes. */
function isAssignedCountry(value: string): boolean {
  return assignedCountryCodes().has(value);
}

/** `+`, then digits and the separators people type: spaces, dots, dashes, parentheses. */
const PHONE_INPUT = /^\+[0-9 .()-]+$/;
/** E.164, as the contract's PhoneNumber and the profile column's CHECK constraint want it. */
const E164 = /^\+[1-9][0-9]{6,14}$/;

/**
 * An international number that libphonenumber-js calls valid with its full
 * metadata, stored in E.164. Letters, extensions (`ext.`, `x`, `;ext=`), other
 * characters and unbalanced or nested parentheses are refused; a number without
 * a leading `+` is refused (no default country is guessed).
 */
function checkPhone(value: string): ValueCheck {
  const invalid = fail('INVALID_PHONE', 'must be a valid international phone number starting with +');
  if (value.length > PHONE_INPUT_MAX_LENGTH || !PHONE_INPUT.test(value) || !parenthesesBalanced(value)) return invalid;
  phoneNumbers ??= requireOnFirstUse('libphonenumber-js/max') as typeof import('libphonenumber-js/max');
  const parsed = phoneNumbers.parsePhoneNumberFromString(value, { extract: false });
  if (!parsed || parsed.ext || !parsed.isValid() || !E164.test(parsed.number)) return invalid;
  return ok(parsed.number);
}

function parenthesesBalanced(value: string): boolean {
  let open = false;
  for (const character of value) {
    if (character === '(') {
      if (open) return false;
      open = true;
    } else if (character === ')') {
      if (!open) return false;
      open = false;
    }
  }
  return !open;
}

/**
 * WHATWG HTML's "valid e-mail address" (what `<input type=email>` accepts), ASCII
 * only: no quoted local parts, no address literals, no Unicode local part or
 * domain (an input sends an international domain as punycode).
 */
const EMAIL =
  /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/;

/** Also: a dot in the domain (`a@b` is refused), local part ≤ 64, whole ≤ 254; the domain is stored in lower case. */
function checkEmail(rules: ValueRules, value: string): ValueCheck {
  if (codePoints(value) > EMAIL_MAX_LENGTH) return fail('TOO_LONG', `must be at most ${EMAIL_MAX_LENGTH} characters`);
  const invalid = fail('INVALID_EMAIL', 'must be an e-mail address');
  if (!EMAIL.test(value)) return invalid;
  const at = value.lastIndexOf('@');
  const local = value.slice(0, at);
  const domain = value.slice(at + 1).toLowerCase();
  if (!domain.includes('.') || local.length > EMAIL_LOCAL_PART_MAX_LENGTH) return invalid;
  return checkLength(rules, `${local}@${domain}`, EMAIL_MAX_LENGTH);
}

const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*):/;

/**
 * An absolute `http` or `https` URL with a host, as `scheme://host...` (WHATWG would
 * also read `https:host` or `https:///host`). Refused: other schemes (`javascript:`,
 * `data:`, `mailto:`), relative references, userinfo (even empty: `user@` can
 * disguise the real host), whitespace, control, format characters and backslashes
 * anywhere. Query and fragment are allowed. Stored as the WHATWG serialisation:
 * lower-case scheme and host, punycode host, default port dropped, path at least `/`.
 */
function checkUrl(rules: ValueRules, value: string): ValueCheck {
  if (codePoints(value) > URL_MAX_LENGTH) return fail('TOO_LONG', `must be at most ${URL_MAX_LENGTH} characters`);
  const invalid = fail('INVALID_URL', 'must be an absolute http or https URL');
  if (hasUnsafeCharacters(value)) return invalid;
  const scheme = SCHEME.exec(value)?.[1]?.toLowerCase();
  if (scheme !== 'http' && scheme !== 'https') return invalid;
  const rest = value.slice(scheme.length + 1);
  if (!rest.startsWith('//') || rest.startsWith('///')) return invalid;
  const afterSlashes = rest.slice(2);
  const end = afterSlashes.search(/[/?#]/);
  const authority = end === -1 ? afterSlashes : afterSlashes.slice(0, end);
  if (authority === '' || authority.includes('@')) return invalid;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return invalid;
  }
  if (url.hostname === '' || url.username !== '' || url.password !== '') return invalid;
  return checkLength(rules, url.href, URL_MAX_LENGTH);
}

// ---------------------------------------------------------------- helpers

/** Length in Unicode code points (JSON Schema's and PostgreSQL's "characters"). */
export function codePoints(text: string): number {
  let count = 0;
  for (const _ of text) count += 1;
  return count;
}

function ok(value: StoredValue): ValueCheck {
  return { ok: true, value };
}

function fail(reason: FieldErrorReason, message: string, at?: string): ValueCheck {
  return at === undefined ? { ok: false, reason, message } : { ok: false, reason, message, at };
}
