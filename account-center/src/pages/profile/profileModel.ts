// The profile page's pure helpers: the editable properties and their field definitions, what
// changed, people's texts for the gateway's refusals, Retry-After, dates, method names.
import type { IntlShape } from 'react-intl';
import type { Schemas } from '../../api.ts';
import type { FieldDefinition } from '../../fields/FieldInput.tsx';

export type Profile = Schemas['Profile'];
export type ProfileUpdate = Schemas['ProfileUpdateRequest'];
export type AuthenticationMethod = Schemas['AuthenticationMethod'];
export type OnboardingStatusValue = Schemas['OnboardingStatusValue'];

/** The properties a person may change here (`email` and `pictureUrl` are read-only). */
export type EditableKey = 'firstName' | 'lastName' | 'displayName' | 'dateOfBirth' | 'phone' | 'country' | 'locale';
export type ProfileValues = Record<EditableKey, string | null>;

/** A profile property as a field bound to it (its key is the property's name), for FieldInput. */
const definition = (fieldKey: Exclude<EditableKey, 'locale'>, label: string, fieldType: FieldDefinition['fieldType'], extra: Partial<FieldDefinition> = {}): FieldDefinition => ({
  fieldKey,
  profileField: fieldKey,
  label,
  fieldType,
  required: false,
  options: [],
  validation: {},
  uiConfig: {},
  placeholder: null,
  description: null,
  ...extra,
});

/**
 * The profile properties shown through FieldInput, with the gateway's own limits (names 100
 * characters, the display name 200), so an input never accepts what the gateway would refuse
 * for length. The gateway stays the judge of every value.
 */
export const PROFILE_FIELDS: readonly { key: Exclude<EditableKey, 'locale'>; definition: FieldDefinition }[] = [
  { key: 'firstName', definition: definition('firstName', 'First name', 'TEXT', { validation: { maxLength: 100 }, uiConfig: { width: 'half' } }) },
  { key: 'lastName', definition: definition('lastName', 'Last name', 'TEXT', { validation: { maxLength: 100 }, uiConfig: { width: 'half' } }) },
  {
    key: 'displayName',
    definition: definition('displayName', 'Display name', 'TEXT', {
      validation: { maxLength: 200 },
      uiConfig: { helpText: 'The name platforms show to other people.' },
    }),
  },
  { key: 'dateOfBirth', definition: definition('dateOfBirth', 'Date of birth', 'DATE', { uiConfig: { width: 'half' } }) },
  {
    key: 'phone',
    definition: definition('phone', 'Phone', 'PHONE', {
      uiConfig: { width: 'half', helpText: 'In international format, starting with + and the country code, e.g. +44 20 7946 0958.' },
    }),
  },
  { key: 'country', definition: definition('country', 'Country', 'COUNTRY', { uiConfig: { width: 'half' } }) },
];

const KEYS: readonly EditableKey[] = ['firstName', 'lastName', 'displayName', 'dateOfBirth', 'phone', 'country', 'locale'];

export function isEditableKey(value: string): value is EditableKey {
  return (KEYS as readonly string[]).includes(value);
}

export function valuesOf(profile: Profile): ProfileValues {
  return {
    firstName: profile.firstName,
    lastName: profile.lastName,
    displayName: profile.displayName,
    dateOfBirth: profile.dateOfBirth,
    phone: profile.phone,
    country: profile.country,
    locale: profile.locale,
  };
}

/** Only what changed (PATCH): an emptied input clears the property (`null`). */
export function changesBetween(saved: ProfileValues, current: ProfileValues): ProfileUpdate {
  const patch: ProfileUpdate = {};
  for (const key of KEYS) {
    const before = saved[key] === '' ? null : saved[key];
    const after = current[key] === null || current[key].trim() === '' ? null : current[key];
    if (before !== after) patch[key] = after;
  }
  return patch;
}

/** A message as a sentence: capital first letter, full stop at the end. */
export function sentence(text: string): string {
  const trimmed = text.trim();
  if (trimmed === '') return trimmed;
  const capital = trimmed.charAt(0).toUpperCase() + trimmed.slice(1);
  return /[.!?]$/.test(capital) ? capital : `${capital}.`;
}

/**
 * Seconds to wait, from a Retry-After header (seconds or an HTTP date) or, when the browser may
 * not read the header (cross-origin, not exposed), from the problem's detail ("… in 37 seconds").
 */
export function retryAfterSeconds(header: string | null, detail: string | undefined, now = Date.now()): number | null {
  if (header !== null && header.trim() !== '') {
    if (/^\d+$/.test(header.trim())) return Math.max(1, Number(header.trim()));
    const date = Date.parse(header);
    if (!Number.isNaN(date)) return Math.max(1, Math.ceil((date - now) / 1000));
  }
  const match = detail ? /(\d+)\s*seconds?/i.exec(detail) : null;
  return match ? Math.max(1, Number(match[1])) : null;
}

export function tooManyAttemptsText(intl: IntlShape, seconds: number | null): string {
  if (seconds === null) return intl.formatMessage({ id: 'account.tooManyAttemptsMinute' });
  return intl.formatMessage({ id: 'account.tooManyAttempts' }, { seconds });
}

/** The badge style of each onboarding status; its words are `profile.status.<status>`. */
export const STATUS_TEXT: Record<OnboardingStatusValue, { className: string }> = {
  COMPLETE: { className: 'badge badge-success' },
  IN_PROGRESS: { className: 'badge badge-warning' },
  GRACE: { className: 'badge badge-warning' },
  NOT_STARTED: { className: 'badge badge-muted' },
};

/** Up to two initials for the picture's placeholder. */
export function initialsOf(profile: Pick<Profile, 'firstName' | 'lastName' | 'displayName' | 'email'>): string {
  const first = (text: string | null | undefined) => (text ? ([...text.trim()][0] ?? '') : '');
  const fromNames = `${first(profile.firstName)}${first(profile.lastName)}`;
  if (fromNames !== '') return fromNames.toLocaleUpperCase();
  const words = (profile.displayName ?? '').trim().split(/\s+/).filter(Boolean);
  const fromDisplay = `${first(words[0])}${first(words.length > 1 ? words.at(-1) : '')}`;
  if (fromDisplay !== '') return fromDisplay.toLocaleUpperCase();
  return first(profile.email).toLocaleUpperCase() || '?';
}

// ---------------------------------------------------------------- avatar files

export const AVATAR_TYPES = ['image/png', 'image/jpeg', 'image/webp'] as const;
export type AvatarType = (typeof AVATAR_TYPES)[number];
/** The contract's ceiling (AvatarUploadRequest.contentLength): 5 MiB. */
export const AVATAR_MAX_BYTES = 5 * 1024 * 1024;

/** A file's size in the page's language (Intl's units: "12 KB", "1,2 MB"). */
export function formatBytes(intl: IntlShape, bytes: number): string {
  if (bytes < 1024) return intl.formatNumber(bytes, { style: 'unit', unit: 'byte', unitDisplay: 'long' });
  if (bytes < 1024 * 1024) return intl.formatNumber(Math.round(bytes / 1024), { style: 'unit', unit: 'kilobyte' });
  return intl.formatNumber(bytes / (1024 * 1024), { style: 'unit', unit: 'megabyte', minimumFractionDigits: 1, maximumFractionDigits: 1 });
}

/** Why a chosen file cannot be a picture, before anything is sent; null when it may be. */
export function avatarFileProblem(intl: IntlShape, file: Pick<File, 'name' | 'type' | 'size'>): string | null {
  if (!(AVATAR_TYPES as readonly string[]).includes(file.type)) {
    return intl.formatMessage({ id: 'account.picture.wrongType' }, { name: file.name });
  }
  if (file.size === 0) return intl.formatMessage({ id: 'account.picture.empty' }, { name: file.name });
  if (file.size > AVATAR_MAX_BYTES) {
    return intl.formatMessage({ id: 'account.picture.tooLarge' }, { name: file.name, size: formatBytes(intl, file.size) });
  }
  return null;
}
