// The checks every text of an onboarding field definition goes through (label, placeholder,
// description, help text, option labels, and their translations), and the error helpers of
// the definition rules. Pure module: no I/O.
import type { FieldError } from '../../errors/catalogue.ts';
import { codePoints } from './values.ts';

export const LABEL_MAX_LENGTH = 200;
export const PLACEHOLDER_MAX_LENGTH = 200;
export const DESCRIPTION_MAX_LENGTH = 1000;
export const HELP_TEXT_MAX_LENGTH = 500;
export const OPTION_MAX_LENGTH = 200;
export const MAX_OPTIONS = 200;

const CONTROL = /\p{Cc}/u;
const CONTROL_EXCEPT_LINE_BREAKS = /[^\P{Cc}\t\n\r]/u;

/**
 * Plain display text, stored as sent: a string of min..max characters (code
 * points), not blank when min > 0, valid Unicode, no control characters (a
 * multiline text may hold tabs and line breaks). `null` only when nullable.
 */
export function checkText(
  at: string,
  value: unknown,
  errors: FieldError[],
  rule: { min: number; max: number; nullable: boolean; multiline: boolean },
): string | null | undefined {
  if (value === null && rule.nullable) return null;
  if (typeof value !== 'string') return fail(errors, at, rule.nullable ? 'must be a string or null' : 'must be a string');
  if (rule.min > 0 && value.trim() === '') return fail(errors, at, 'must not be empty');
  const length = codePoints(value);
  if (length > rule.max) return fail(errors, at, `must be at most ${rule.max} characters`);
  if (length < rule.min) return fail(errors, at, `must be at least ${rule.min} characters`);
  if (!value.isWellFormed() || (rule.multiline ? CONTROL_EXCEPT_LINE_BREAKS : CONTROL).test(value)) {
    return fail(errors, at, rule.multiline ? 'must not contain control characters other than tabs and line breaks' : 'must not contain control characters');
  }
  return value;
}

export function pointer(at: string): string {
  return `/body/${at}`;
}

/** Records the error and returns undefined, so a check reads `return fail(...)`. */
export function fail(errors: FieldError[], at: string, message: string): undefined {
  errors.push({ pointer: pointer(at), message });
  return undefined;
}

export const escapePointer = (segment: string) => segment.replaceAll('~', '~0').replaceAll('/', '~1');

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}
