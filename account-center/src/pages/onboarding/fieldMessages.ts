// What the onboarding form says about a value, in one voice: a short instruction that reads on
// its own beside the input ("Enter a phone number in international format…"), whether the page
// found the problem itself or the gateway did. The page checks what it can before a write, so
// every problem shows in one pass; the gateway stays the judge (these checks are never
// stricter than its rules: the phone check here knows only the lengths, the gateway the digits).
import { parsePhoneNumberFromString } from 'libphonenumber-js/min';
import type { Schemas } from '../../api.ts';
import type { FieldDefinition, FieldValue } from '../../fields/FieldInput.tsx';

type Field = Pick<FieldDefinition, 'fieldType' | 'label' | 'validation'>;
type Reason = Schemas['FieldErrorReason'] | undefined;

const PHONE = 'Enter a phone number in international format: + and the country code, then the number, like +44 20 7946 0958.';
const EMAIL = 'Enter an e-mail address, like name@example.com.';
const URL_MESSAGE = 'Enter a web address that starts with https:// or http://.';

/** The instruction for a reason the gateway or the page gives; null when it has none of its own. */
function instruction(field: Field, reason: Reason): string | null {
  const { min, max, minLength, maxLength } = (field.validation ?? {}) as { min?: number; max?: number; minLength?: number; maxLength?: number };
  switch (reason) {
    case 'INVALID_PHONE':
      return PHONE;
    case 'INVALID_EMAIL':
      return EMAIL;
    case 'INVALID_URL':
      return URL_MESSAGE;
    case 'INVALID_DATE':
      return 'Enter a real date.';
    case 'NOT_AN_OPTION':
      return 'Choose one of the options.';
    case 'INVALID_COUNTRY':
      return 'Choose a country from the list.';
    case 'BELOW_MIN':
      return field.fieldType === 'NUMBER' && min !== undefined ? `Enter a number of at least ${min}.` : null;
    case 'ABOVE_MAX':
      return field.fieldType === 'NUMBER' && max !== undefined ? `Enter a number of at most ${max}.` : null;
    case 'TOO_SHORT':
      return minLength !== undefined ? `Use at least ${minLength} characters.` : null;
    case 'TOO_LONG':
      return maxLength !== undefined ? `Use at most ${maxLength} characters.` : null;
    default:
      return null;
  }
}

/**
 * The gateway's field error as the page says it: its own instruction for a known reason, or
 * else the gateway's words ("must be …") made a sentence with the field's label in front.
 */
export function gatewayFieldMessage(field: Field, reason: Reason, message: string): string {
  return instruction(field, reason) ?? sentence(field.label, message);
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
export function valueProblem(field: Field, value: FieldValue): string | null {
  const { min, max, minLength, maxLength } = (field.validation ?? {}) as { min?: number; max?: number; minLength?: number; maxLength?: number };
  if (typeof value === 'number') {
    if (min !== undefined && value < min) return instruction(field, 'BELOW_MIN');
    if (max !== undefined && value > max) return instruction(field, 'ABOVE_MAX');
    return null;
  }
  if (typeof value !== 'string' || value.trim() === '') return null;
  const text = value.trim();
  switch (field.fieldType) {
    case 'PHONE':
      return text.startsWith('+') && parsePhoneNumberFromString(text)?.isPossible() ? null : PHONE;
    case 'EMAIL':
      return /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(text) ? null : EMAIL;
    case 'URL':
      return /^https?:\/\/[^/?#\s@]+/i.test(text) && URL.canParse(text) ? null : URL_MESSAGE;
    case 'TEXT':
    case 'TEXTAREA': {
      const length = [...text].length;
      if (minLength !== undefined && length < minLength) return instruction(field, 'TOO_SHORT');
      if (maxLength !== undefined && length > maxLength) return instruction(field, 'TOO_LONG');
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
