import type { IntlShape } from 'react-intl';
import type { ApiProblem, Schemas } from '../../../api.ts';
import { MAX_RETURN_URLS, PLATFORM_KEY_PATTERN, type OnboardingMode, type Platform } from './model.ts';

// The create and edit form's model: what the inputs hold, the request bodies built from it
// (create: everything; edit: only what changed), checks done before sending, and the
// registry's errors mapped back onto the inputs (`/body/allowedReturnUrls/1` → that row).

export type PlatformCreateRequest = Schemas['PlatformCreateRequest'];
export type PlatformUpdateRequest = Schemas['PlatformUpdateRequest'];
export type EventDelivery = Schemas['PlatformEventDelivery'];
export const EVENT_DELIVERIES: readonly EventDelivery[] = ['none', 'push', 'poll'];

export interface ReturnUrlRow {
  /** Stable across edits of the list, so an error and the focus stay with their row. */
  id: string;
  value: string;
}

export interface PlatformFormValues {
  platformKey: string;
  displayName: string;
  callbackUrl: string;
  backchannelLogoutUrl: string;
  /** How the platform receives Security Event Tokens (none, push, poll). */
  eventDelivery: EventDelivery;
  eventReceiverUrl: string;
  returnUrls: ReturnUrlRow[];
  mode: OnboardingMode;
  centralOnboardingEnabled: boolean;
  /** Starts without handoffChallenge are refused (on by default; off opens login CSRF). */
  handoffChallengeRequired: boolean;
  onboardingPath: string;
  /** The platform's default language (a BCP 47 tag; empty: none, English). */
  defaultLanguage: string;
  /** The metadata as the person writes it (JSON text). */
  metadata: string;
  /** Create only: register the platform inactive. */
  createInactive: boolean;
}

/** Where an error is shown: a field, or one return URL row (`returnUrl:<row id>`). */
export type FieldName =
  | 'platformKey'
  | 'displayName'
  | 'callbackUrl'
  | 'backchannelLogoutUrl'
  | 'eventDelivery'
  | 'eventReceiverUrl'
  | 'allowedReturnUrls'
  | 'defaultOnboardingMode'
  | 'centralOnboardingEnabled'
  | 'handoffChallengeRequired'
  | 'platformOnboardingPath'
  | 'defaultLanguage'
  | 'metadata'
  | 'active';
export type ErrorKey = FieldName | `returnUrl:${string}`;
export type FormErrors = Map<ErrorKey, string>;

const FIELD_NAMES = new Set<string>([
  'platformKey',
  'displayName',
  'callbackUrl',
  'backchannelLogoutUrl',
  'eventDelivery',
  'eventReceiverUrl',
  'allowedReturnUrls',
  'defaultOnboardingMode',
  'centralOnboardingEnabled',
  'handoffChallengeRequired',
  'platformOnboardingPath',
  'defaultLanguage',
  'metadata',
  'active',
] satisfies FieldName[]);

/** A field's label, as its input names it (the error summary links to it): `platforms.field.<name>`. */
export function fieldLabel(intl: IntlShape, name: string): string {
  return FIELD_NAMES.has(name) ? intl.formatMessage({ id: `platforms.field.${name}` }) : name;
}

/** The properties that can change, with a word in running text (`platforms.property.<name>`). */
const PROPERTY_NAMES = new Set([
  'displayName',
  'callbackUrl',
  'backchannelLogoutUrl',
  'eventDelivery',
  'eventReceiverUrl',
  'allowedReturnUrls',
  'defaultOnboardingMode',
  'centralOnboardingEnabled',
  'handoffChallengeRequired',
  'platformOnboardingPath',
  'defaultLanguage',
  'metadata',
]);
/** A property in running text ("Saved: display name changed."). */
export function propertyNoun(intl: IntlShape, name: string): string {
  return PROPERTY_NAMES.has(name) ? intl.formatMessage({ id: `platforms.property.${name}` }) : name;
}

let rowCounter = 0;
export function newReturnUrlRow(value = ''): ReturnUrlRow {
  rowCounter += 1;
  return { id: `return-url-${rowCounter}`, value };
}

export const returnUrlKey = (rowId: string): ErrorKey => `returnUrl:${rowId}`;

/** The key as the registry wants it: upper case, no surrounding spaces. */
export function normalizePlatformKey(raw: string): string {
  return raw.trim().toUpperCase();
}

export function emptyFormValues(): PlatformFormValues {
  return {
    platformKey: '',
    displayName: '',
    callbackUrl: '',
    backchannelLogoutUrl: '',
    eventDelivery: 'none',
    eventReceiverUrl: '',
    returnUrls: [newReturnUrlRow()],
    mode: 'central',
    centralOnboardingEnabled: true,
    handoffChallengeRequired: true,
    onboardingPath: '',
    defaultLanguage: '',
    metadata: '{}',
    createInactive: false,
  };
}

export function formValuesOf(platform: Platform): PlatformFormValues {
  return {
    platformKey: platform.platformKey,
    displayName: platform.displayName,
    callbackUrl: platform.callbackUrl ?? '',
    backchannelLogoutUrl: platform.backchannelLogoutUrl ?? '',
    eventDelivery: platform.eventDelivery,
    eventReceiverUrl: platform.eventReceiverUrl ?? '',
    returnUrls: platform.allowedReturnUrls.length > 0 ? platform.allowedReturnUrls.map((url) => newReturnUrlRow(url)) : [newReturnUrlRow()],
    mode: platform.defaultOnboardingMode,
    centralOnboardingEnabled: platform.centralOnboardingEnabled,
    handoffChallengeRequired: platform.handoffChallengeRequired,
    onboardingPath: platform.platformOnboardingPath ?? '',
    defaultLanguage: platform.defaultLanguage ?? '',
    metadata: JSON.stringify(platform.metadata, null, 2),
    createInactive: !platform.active,
  };
}

/** An example in the metadata errors (an argument: ICU would read its braces). */
const EXAMPLE_METADATA = '{"team": "identity"}';

export function parseMetadata(intl: IntlShape, text: string): { value: Record<string, unknown> } | { error: string } {
  if (text.trim() === '') return { value: {} };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { error: intl.formatMessage({ id: 'platforms.error.metadataJson' }, { example: EXAMPLE_METADATA }) };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { error: intl.formatMessage({ id: 'platforms.error.metadataObject' }, { example: EXAMPLE_METADATA }) };
  }
  return { value: value as Record<string, unknown> };
}

/** The non-empty return URLs to send, and for each the row it came from (pointers name the sent index). */
export function sentReturnUrls(rows: ReturnUrlRow[]): { urls: string[]; rowIds: string[] } {
  const urls: string[] = [];
  const rowIds: string[] = [];
  for (const row of rows) {
    const url = row.value.trim();
    if (url === '') continue;
    urls.push(url);
    rowIds.push(row.id);
  }
  return { urls, rowIds };
}

/**
 * What can be told before asking the registry: the key's shape, a name, JSON metadata, the
 * number of return URLs. URL rules (userinfo, fragment, https…) are the registry's to judge.
 */
export function validateForm(intl: IntlShape, values: PlatformFormValues, mode: 'create' | 'edit'): FormErrors {
  const errors: FormErrors = new Map();
  if (mode === 'create') {
    const key = normalizePlatformKey(values.platformKey);
    if (key === '') errors.set('platformKey', intl.formatMessage({ id: 'platforms.error.keyMissing' }));
    else if (!PLATFORM_KEY_PATTERN.test(key)) {
      errors.set('platformKey', intl.formatMessage({ id: 'platforms.error.keyShape' }));
    }
  }
  if (values.displayName.trim() === '') errors.set('displayName', intl.formatMessage({ id: 'platforms.error.nameMissing' }));
  else if (values.displayName.trim().length > 200) errors.set('displayName', intl.formatMessage({ id: 'platforms.error.nameLength' }, { max: 200 }));
  if (sentReturnUrls(values.returnUrls).urls.length > MAX_RETURN_URLS) errors.set('allowedReturnUrls', intl.formatMessage({ id: 'platforms.error.tooManyReturnUrls' }, { max: MAX_RETURN_URLS }));
  if (values.onboardingPath.trim() !== '' && !values.onboardingPath.trim().startsWith('/')) {
    errors.set('platformOnboardingPath', intl.formatMessage({ id: 'platforms.error.pathSlash' }));
  }
  const metadata = parseMetadata(intl, values.metadata);
  if ('error' in metadata) errors.set('metadata', metadata.error);
  return errors;
}

/** The create request: everything the form holds (the key upper-cased). Call after validateForm. */
export function buildCreateRequest(intl: IntlShape, values: PlatformFormValues): { body: PlatformCreateRequest; rowIds: string[] } {
  const { urls, rowIds } = sentReturnUrls(values.returnUrls);
  const metadata = parseMetadata(intl, values.metadata);
  const body: PlatformCreateRequest = {
    platformKey: normalizePlatformKey(values.platformKey),
    displayName: values.displayName.trim(),
    allowedReturnUrls: urls,
    defaultOnboardingMode: values.mode,
    centralOnboardingEnabled: values.centralOnboardingEnabled,
    handoffChallengeRequired: values.handoffChallengeRequired,
    metadata: 'value' in metadata ? metadata.value : {},
    active: !values.createInactive,
  };
  if (values.callbackUrl.trim() !== '') body.callbackUrl = values.callbackUrl.trim();
  if (values.backchannelLogoutUrl.trim() !== '') body.backchannelLogoutUrl = values.backchannelLogoutUrl.trim();
  if (values.eventDelivery !== 'none') body.eventDelivery = values.eventDelivery;
  if (values.eventReceiverUrl.trim() !== '') body.eventReceiverUrl = values.eventReceiverUrl.trim();
  if (values.onboardingPath.trim() !== '') body.platformOnboardingPath = values.onboardingPath.trim();
  if (values.defaultLanguage.trim() !== '') body.defaultLanguage = values.defaultLanguage.trim();
  return { body, rowIds };
}

/** The PATCH body: only the properties whose value differs from the stored platform. */
export function buildUpdateRequest(intl: IntlShape, platform: Platform, values: PlatformFormValues): { body: PlatformUpdateRequest; rowIds: string[] } {
  const { urls, rowIds } = sentReturnUrls(values.returnUrls);
  const body: PlatformUpdateRequest = {};
  const displayName = values.displayName.trim();
  if (displayName !== platform.displayName) body.displayName = displayName;
  const callbackUrl = values.callbackUrl.trim() || null;
  if (callbackUrl !== platform.callbackUrl) body.callbackUrl = callbackUrl;
  const backchannelLogoutUrl = values.backchannelLogoutUrl.trim() || null;
  if (backchannelLogoutUrl !== platform.backchannelLogoutUrl) body.backchannelLogoutUrl = backchannelLogoutUrl;
  if (values.eventDelivery !== platform.eventDelivery) body.eventDelivery = values.eventDelivery;
  const eventReceiverUrl = values.eventReceiverUrl.trim() || null;
  if (eventReceiverUrl !== platform.eventReceiverUrl) body.eventReceiverUrl = eventReceiverUrl;
  if (!sameJson(urls, platform.allowedReturnUrls)) body.allowedReturnUrls = urls;
  if (values.mode !== platform.defaultOnboardingMode) body.defaultOnboardingMode = values.mode;
  if (values.centralOnboardingEnabled !== platform.centralOnboardingEnabled) body.centralOnboardingEnabled = values.centralOnboardingEnabled;
  if (values.handoffChallengeRequired !== platform.handoffChallengeRequired) body.handoffChallengeRequired = values.handoffChallengeRequired;
  const onboardingPath = values.onboardingPath.trim() || null;
  if (onboardingPath !== platform.platformOnboardingPath) body.platformOnboardingPath = onboardingPath;
  const defaultLanguage = values.defaultLanguage.trim() || null;
  if (defaultLanguage !== platform.defaultLanguage) body.defaultLanguage = defaultLanguage;
  const metadata = parseMetadata(intl, values.metadata);
  if ('value' in metadata && !sameJson(metadata.value, platform.metadata)) body.metadata = metadata.value;
  return { body, rowIds };
}

/** Deep equality of JSON values; object key order does not matter (the registry stores jsonb). */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, index) => sameJson(item, b[index]));
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = Object.keys(left);
  return keys.length === Object.keys(right).length && keys.every((key) => Object.hasOwn(right, key) && sameJson(left[key], right[key]));
}

/**
 * The registry's answer placed on the form: field errors beside their inputs (a return URL's
 * error beside its row, a metadata error at any depth beside the metadata), a duplicate key
 * (409 CONFLICT on create) beside the key. Errors that fit no input are returned as `other`.
 */
export function mapProblemToForm(intl: IntlShape, problem: ApiProblem, rowIds: string[], mode: 'create' | 'edit', platformKey = ''): { errors: FormErrors; other: string[] } {
  const errors: FormErrors = new Map();
  const other: string[] = [];
  for (const [pointer, raw] of problem.fieldErrors('/body/')) {
    const [field, index] = pointer.split('/');
    if (field === 'allowedReturnUrls' && index !== undefined && /^\d+$/.test(index)) {
      const rowId = rowIds[Number(index)];
      if (rowId !== undefined) {
        if (!errors.has(returnUrlKey(rowId))) errors.set(returnUrlKey(rowId), friendlier(intl, 'returnUrl', raw));
        continue;
      }
    }
    if (field !== undefined && FIELD_NAMES.has(field)) {
      if (!errors.has(field as FieldName)) errors.set(field as FieldName, friendlier(intl, field, raw));
      continue;
    }
    other.push(`${pointer}: ${raw}`);
  }
  if (mode === 'create' && problem.status === 409 && problem.problem?.code === 'CONFLICT') {
    errors.set('platformKey', intl.formatMessage({ id: 'platforms.error.keyTaken' }, { key: platformKey }));
  }
  return { errors, other };
}

/** What a pattern or format stands for (the contract's check says "must match pattern …"): `platforms.shape.<rule>`. */
const SHAPE_RULES: Record<string, string> = {
  platformKey: 'platforms.shape.platformKey',
  callbackUrl: 'platforms.shape.url',
  backchannelLogoutUrl: 'platforms.shape.url',
  eventReceiverUrl: 'platforms.shape.url',
  returnUrl: 'platforms.shape.returnUrl',
  platformOnboardingPath: 'platforms.shape.path',
};

/**
 * The registry's message for a field, in the page's language where this page knows the rule
 * (a pattern or format); otherwise the registry's own text, made a sentence.
 */
function friendlier(intl: IntlShape, field: string, message: string): string {
  const rule = SHAPE_RULES[field];
  if (rule && /^must match (pattern|format)\b/.test(message)) return intl.formatMessage({ id: rule });
  return sentence(intl, message);
}

/** The registry's messages are fragments ("must not contain a fragment"): make them a sentence. */
export function sentence(intl: IntlShape, message: string): string {
  const text = message.trim();
  if (text === '') return intl.formatMessage({ id: 'platforms.error.notAccepted' });
  const capital = text[0]!.toUpperCase() + text.slice(1);
  return /[.!?]$/.test(capital) ? capital : `${capital}.`;
}
