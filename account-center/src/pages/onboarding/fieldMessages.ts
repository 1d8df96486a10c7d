// What the onboarding form says about a value, in one voice: a short instruction that reads on
// its own beside the input ("Enter a phone number in international format…"), whether the page
// found the problem itself or the gateway did. The page checks what it can before a write, so
// every problem shows in one pass; the gateway stays the judge (these checks are never
// stricter than its rules: the phone check here knows only the lengths, the gateway the digits).
import { parsePhoneNumberFromString } from 'libphonenumber-js/min';
import type { Schemas } from '../../api.ts';
import type { FieldDefinition, FieldValue } from '../../fields/FieldInput.tsx';
import { reasonText, type Formatter } from '../../i18n/problems.ts';

type Field = Pick<FieldDefinition, 'fieldType' | 'label' | 'validation'>;
type Reason = Schemas['FieldErrorReason'] | undefined;

/** The instruction for a reason the gateway or the page gives, in the page's language; null when it has none of its own. */
function instruction(intl: Formatter, field: Field, reason: Reason): string | null {
  const { min, max, minLength, maxLength } = (field.validation ?? {}) as { min?: number; max?: number; minLength?: number; maxLength?: number };
  const say = (id: string, values?: Record<string, number>) => intl.formatMessage({ id }, values);
  switch (reason) {
    case 'INVALID_PHONE':
      return say('onboarding.value.phone');
    case 'INVALID_EMAIL':
      return say('onboarding.value.email');
    case 'INVALID_URL':
      return say('onboarding.value.url');
    case 'INVALID_DATE':
      return say('onboarding.value.date');
    case 'NOT_AN_OPTION':
      return say('onboarding.value.option');
    case 'INVALID_COUNTRY':
      return say('onboarding.value.country');
    case 'BELOW_MIN':
      return field.fieldType === 'NUMBER' && min !== undefined ? say('onboarding.value.min', { min }) : null;
    case 'ABOVE_MAX':
      return field.fieldType === 'NUMBER' && max !== undefined ? say('onboarding.value.max', { max }) : null;
    case 'TOO_SHORT':
      return minLength !== undefined ? say('onboarding.value.minLength', { count: minLength }) : null;
    case 'TOO_LONG':
      return maxLength !== undefined ? say('onboarding.value.maxLength', { count: maxLength }) : null;
    default:
      return null;
  }
}

/**
 * The gateway's field error as the page says it: its own instruction for a known reason, the
 * catalogue's words for the reason, or else the gateway's (English) words ("must be …") made a
 * sentence with the field's label in front.
 */
export function gatewayFieldMessage(intl: Formatter, field: Field, reason: Reason, message: string): string {
  return instruction(intl, field, reason) ?? reasonText(intl, reason, field.label) ?? sentence(field.label, message);
}

/**
 * A sentence for beside the input. The gateway's messages read after the field's name
 * ("must be a valid international phone number starting with +"), so they get the label in
 * front; a message that is already a sentence is kept as it is.
 */
export function sentence(label: string, message: string): string {
  const text = message.trim();
  const full = /^[a-z]/.test(text) ? `${label} ${text}` : text;
  return /[.!?]$/.test(full) ? full : `${full}.`;
}

/** What the page can tell is wrong with a filled-in value before any write; null when nothing. */
export function valueProblem(intl: Formatter, field: Field, value: FieldValue): string | null {
  const { min, max, minLength, maxLength } = (field.validation ?? {}) as { min?: number; max?: number; minLength?: number; maxLength?: number };
  if (typeof value === 'number') {
    if (min !== undefined && value < min) return instruction(intl, field, 'BELOW_MIN');
    if (max !== undefined && value > max) return instruction(intl, field, 'ABOVE_MAX');
    return null;
  }
  if (typeof value !== 'string' || value.trim() === '') return null;
  const text = value.trim();
  switch (field.fieldType) {
    case 'PHONE':
      return text.startsWith('+') && parsePhoneNumberFromString(text)?.isPossible() ? null : instruction(intl, field, 'INVALID_PHONE');
    case 'EMAIL':
      return /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(text) ? null : instruction(intl, field, 'INVALID_EMAIL');
    case 'URL':
      return /^https?:\/\/[^/?#\s@]+/i.test(text) && URL.canParse(text) ? null : instruction(intl, field, 'INVALID_URL');
    case 'TEXT':
    case 'TEXTAREA': {
      const length = [...text].length;
      if (minLength !== undefined && length < minLength) return instruction(intl, field, 'TOO_SHORT');
      if (maxLength !== undefined && length > maxLength) return instruction(intl, field, 'TOO_LONG');
      return null;
    }
    default:
      return null;
  }
}

/** A stored phone number (E.164, "+442071838750") as people write it: "+44 20 7183 8750". */
export function formatPhone(value: string): string {
  return parsePhoneNumberFromString(value)?.formatInternational() ?? value;
}
