// The onboarding page's rules that need no React: which resume value counts, where the
// browser goes to continue a login, the value map the page writes, the client-side check
// before a write, and the reading of the gateway's field errors.
import type { Schemas } from '../../api.ts';
import { gatewayBaseUrl, type AccountCenterConfig } from '../../config.ts';
import { emptyValue, isEmpty, type FieldDefinition, type FieldValue } from '../../fields/FieldInput.tsx';
import { formatPhone, valueProblem } from './fieldMessages.ts';
import type { Formatter } from '../../i18n/problems.ts';

export type RequirementField = Schemas['OnboardingRequirementField'];
export type OnboardingStatus = Schemas['OnboardingStatus'];
export type Values = Record<string, FieldValue>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The login transaction to resume: a UUID, or null (no resume, or not one the gateway could know). */
export function resumeTransaction(raw: string | null): string | null {
  return raw !== null && UUID.test(raw) ? raw.toLowerCase() : null;
}

/** `GET {gateway}/v1/auth/resume?transaction=…`: the gateway decides where the browser goes next. */
export function resumeUrl(config: AccountCenterConfig, transactionId: string): string {
  return `${gatewayBaseUrl(config)}/v1/auth/resume?transaction=${encodeURIComponent(transactionId)}`;
}

/** The fields in the order the contract says to render them (ascending sortOrder; ties keep the gateway's order). */
export function sortFields<T extends { sortOrder: number }>(fields: readonly T[]): T[] {
  return fields.map((field, index) => ({ field, index })).sort((a, b) => a.field.sortOrder - b.field.sortOrder || a.index - b.index).map(({ field }) => field);
}

/**
 * A stored value as the form shows it: empty when absent, and for a choice only what is still
 * one of the options (a value an administrator removed could be neither seen nor unticked,
 * and the gateway would refuse it).
 */
export function storedValue(field: RequirementField): FieldValue {
  const value = field.currentValue ?? emptyValue(field.fieldType);
  const options = new Set(field.options.map((option) => option.value));
  if (field.fieldType === 'MULTI_SELECT') return Array.isArray(value) ? value.filter((item) => options.has(item)) : [];
  if (field.fieldType === 'SELECT') return typeof value === 'string' && options.has(value) ? value : null;
  // Stored in E.164 ("+442071838750"); shown as people write it, as it was typed.
  if (field.fieldType === 'PHONE' && typeof value === 'string') return formatPhone(value);
  return value;
}

/** The stored values as the form starts with them. */
export function initialValues(fields: readonly RequirementField[]): Values {
  return Object.fromEntries(fields.map((field) => [field.fieldKey, storedValue(field)]));
}

/**
 * After the schema was read again: fields still there keep what the person entered, new
 * fields start from their stored value, removed fields are dropped (their values would be
 * refused as archived or unknown).
 */
export function mergeValues(fields: readonly RequirementField[], entered: Values): Values {
  return Object.fromEntries(fields.map((field) => [field.fieldKey, field.fieldKey in entered ? (entered[field.fieldKey] ?? emptyValue(field.fieldType)) : storedValue(field)]));
}

/** The value a field submits: what the input shows. An untouched checkbox shows "no", so it submits false. */
export function submittedValue(field: Pick<FieldDefinition, 'fieldType'>, value: FieldValue | undefined): FieldValue {
  if (field.fieldType === 'BOOLEAN') return value === true;
  if (field.fieldType === 'MULTI_SELECT') return Array.isArray(value) ? value : [];
  return value === undefined || isEmpty(value) ? null : value;
}

/** The complete field map of the write (every field the page renders). */
export function valuesToWrite(fields: readonly FieldDefinition[], values: Values): Values {
  return Object.fromEntries(fields.map((field) => [field.fieldKey, submittedValue(field, values[field.fieldKey])]));
}

/** What to say beside a required field that is empty. */
export function requiredMessage(intl: Formatter, field: Pick<FieldDefinition, 'fieldType'>): string {
  const own = ['MULTI_SELECT', 'SELECT', 'COUNTRY', 'DATE', 'NUMBER', 'BOOLEAN'].includes(field.fieldType);
  return intl.formatMessage({ id: `onboarding.required.${own ? field.fieldType : 'other'}` });
}

/**
 * The client-side check before a write, every field in one pass: what an input itself knows is
 * wrong (a name that is no country…), required fields left empty, and values the page can tell
 * are wrong (a phone number, an e-mail address, a web address, a number out of range, a text
 * too long or short: fieldMessages.ts). The gateway stays the judge of everything else.
 */
export function checkBeforeWrite(intl: Formatter, fields: readonly FieldDefinition[], values: Values, inputErrors: Record<string, string | null>): Map<string, string> {
  const problems = new Map<string, string>();
  for (const field of fields) {
    const inputError = inputErrors[field.fieldKey];
    const value = submittedValue(field, values[field.fieldKey]);
    const problem = inputError || (field.required && isEmpty(value) ? requiredMessage(intl, field) : valueProblem(intl, field, value));
    if (problem) problems.set(field.fieldKey, problem);
  }
  return problems;
}

/**
 * The field a gateway error is about: `/body/values/{fieldKey}` or below it (an entry of a
 * multi-select: `/body/values/interests/2`). JSON pointer escapes are undone.
 */
export function fieldKeyOfPointer(pointer: string): string | null {
  const match = /^\/body\/values\/([^/]+)/.exec(pointer);
  return match ? match[1]!.replace(/~1/g, '/').replace(/~0/g, '~') : null;
}

export interface GatewayFieldError {
  fieldKey: string;
  reason: Schemas['FieldErrorReason'] | undefined;
  message: string;
}

/** The gateway's field errors of a values write, one per field (the first one wins). */
export function valueErrors(problem: Schemas['Problem'] | null): GatewayFieldError[] {
  const byField = new Map<string, GatewayFieldError>();
  for (const error of problem?.errors ?? []) {
    const fieldKey = fieldKeyOfPointer(error.pointer);
    if (fieldKey && !byField.has(fieldKey)) byField.set(fieldKey, { fieldKey, reason: error.reason, message: error.message });
  }
  return [...byField.values()];
}

export { sentence } from './fieldMessages.ts';

/** "A", "A and B", "A, B and C" (Intl.ListFormat: "A, B und C" in German). */
export function listOf(intl: Formatter, items: readonly string[]): string {
  return intl.formatList(items, { type: 'conjunction' });
}
