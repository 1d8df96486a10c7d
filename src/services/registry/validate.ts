import type { PlatformChanges, PlatformSettings } from './platformsRepository.ts';
import { validationError, type FieldError } from '../../errors/catalogue.ts';
import {
  checkBackchannelLogoutUrl,
  checkBoolean,
  checkCallbackUrl,
  checkCentral,
  checkComplete,
  checkEventDelivery,
  checkEventReceiver,
  checkEventReceiverUrl,
  checkDefaultLanguage,
  checkDisplayName,
  checkMetadata,
  checkMode,
  checkOnboardingPath,
  checkPlatformKey,
  checkReturnUrls,
  DEFAULT_RULES,
  isPlainObject,
  pointer,
  checkSupportAccess,
  checkSupportSignInUrl,
  type RegistryRules,
} from './rules.ts';

/** The settings a platform is created with and a PATCH may change. */
export const UPDATE_FIELDS = [
  'displayName',
  'callbackUrl',
  'backchannelLogoutUrl',
  'eventDelivery',
  'eventReceiverUrl',
  'allowedReturnUrls',
  'defaultOnboardingMode',
  'centralOnboardingEnabled',
  'platformOnboardingPath',
  'metadata',
  'handoffChallengeRequired',
  'defaultLanguage',
  'supportAccess',
  'sensitive',
  'supportSignInUrl',
] as const satisfies readonly (keyof PlatformChanges)[];
export const CREATE_FIELDS = ['platformKey', ...UPDATE_FIELDS, 'active'] as const;
const IMMUTABLE_FIELDS = new Set(['platformKey', 'clientId']);

// ---------------------------------------------------------------- validation

interface ValidCreate extends PlatformSettings {
  active: boolean;
}

/** Every problem of a create body at once, each under its own `/body/<field>` pointer. */
export function validateCreate(input: unknown, rules: RegistryRules = DEFAULT_RULES): ValidCreate {
  const errors: FieldError[] = [];
  if (!isPlainObject(input)) throw validationError([{ pointer: '/body', message: 'must be a JSON object' }]);
  for (const key of Object.keys(input)) {
    if (!(CREATE_FIELDS as readonly string[]).includes(key)) errors.push({ pointer: pointer(key), message: 'is not a known property' });
  }
  const platformKey = checkPlatformKey(input.platformKey, errors);
  const displayName = checkDisplayName(input.displayName, errors, true);
  const callbackUrl = input.callbackUrl === undefined ? null : checkCallbackUrl(input.callbackUrl, errors, rules);
  const backchannelLogoutUrl = input.backchannelLogoutUrl === undefined ? null : checkBackchannelLogoutUrl(input.backchannelLogoutUrl, errors, rules);
  const eventDelivery = input.eventDelivery === undefined ? 'none' : checkEventDelivery(input.eventDelivery, errors);
  const eventReceiverUrl = input.eventReceiverUrl === undefined ? null : checkEventReceiverUrl(input.eventReceiverUrl, errors, rules);
  const allowedReturnUrls = input.allowedReturnUrls === undefined ? [] : checkReturnUrls(input.allowedReturnUrls, errors, rules);
  const defaultOnboardingMode = input.defaultOnboardingMode === undefined ? 'central' : checkMode(input.defaultOnboardingMode, errors);
  const centralOnboardingEnabled =
    input.centralOnboardingEnabled === undefined ? true : checkBoolean('centralOnboardingEnabled', input.centralOnboardingEnabled, errors);
  const platformOnboardingPath = input.platformOnboardingPath === undefined ? null : checkOnboardingPath(input.platformOnboardingPath, errors);
  const metadata = input.metadata === undefined ? {} : checkMetadata(input.metadata, errors);
  const active = input.active === undefined ? true : checkBoolean('active', input.active, errors);
  // On unless the operator turns it off: a start without handoffChallenge allows login CSRF.
  const handoffChallengeRequired =
    input.handoffChallengeRequired === undefined ? true : checkBoolean('handoffChallengeRequired', input.handoffChallengeRequired, errors);
  const defaultLanguage = input.defaultLanguage === undefined ? null : checkDefaultLanguage(input.defaultLanguage, errors);
  const supportAccess = input.supportAccess === undefined ? 'off' : checkSupportAccess(input.supportAccess, errors);
  const sensitive = input.sensitive === undefined ? false : checkBoolean('sensitive', input.sensitive, errors);
  const supportSignInUrl = input.supportSignInUrl === undefined ? null : checkSupportSignInUrl(input.supportSignInUrl, errors, rules);

  const value = {
    platformKey: platformKey ?? '',
    displayName: displayName ?? '',
    callbackUrl: callbackUrl ?? null,
    backchannelLogoutUrl: backchannelLogoutUrl ?? null,
    eventDelivery: eventDelivery ?? 'none',
    eventReceiverUrl: eventReceiverUrl ?? null,
    allowedReturnUrls: allowedReturnUrls ?? [],
    defaultOnboardingMode: defaultOnboardingMode ?? 'central',
    centralOnboardingEnabled: centralOnboardingEnabled ?? true,
    platformOnboardingPath: platformOnboardingPath ?? null,
    metadata: metadata ?? {},
    handoffChallengeRequired: handoffChallengeRequired ?? true,
    defaultLanguage: defaultLanguage ?? null,
    supportAccess: supportAccess ?? 'off',
    sensitive: sensitive ?? false,
    supportSignInUrl: supportSignInUrl ?? null,
    active: active ?? true,
  };
  // Cross-field rules only on fields that are individually valid, so each field gets one clear message.
  if (callbackUrl !== undefined && allowedReturnUrls !== undefined && active !== undefined) {
    checkComplete(value, errors, active ? 'for an active platform (or create the platform inactive)' : null);
  }
  if (defaultOnboardingMode !== undefined && centralOnboardingEnabled !== undefined) {
    checkCentral(value, errors, 'centralOnboardingEnabled' in input ? 'centralOnboardingEnabled' : 'defaultOnboardingMode');
  }
  if (eventDelivery !== undefined && eventReceiverUrl !== undefined) checkEventReceiver(value, errors, 'eventDelivery');
  if (errors.length > 0) throw validationError(errors);
  return value;
}

/** A patch: the present properties, each valid on its own (cross-field rules run on the merged record). */
export function validateUpdate(input: unknown, rules: RegistryRules = DEFAULT_RULES): PlatformChanges {
  const errors: FieldError[] = [];
  if (!isPlainObject(input)) throw validationError([{ pointer: '/body', message: 'must be a JSON object' }]);
  const changes: PlatformChanges = {};
  for (const key of Object.keys(input)) {
    if (IMMUTABLE_FIELDS.has(key)) errors.push({ pointer: pointer(key), message: 'is immutable and cannot be changed' });
    else if (key === 'active') errors.push({ pointer: pointer(key), message: 'is changed with the activate and deactivate operations' });
    else if (!(UPDATE_FIELDS as readonly string[]).includes(key)) errors.push({ pointer: pointer(key), message: 'is not a known property' });
  }
  if (Object.keys(input).length === 0) errors.push({ pointer: '/body', message: 'must change at least one property' });
  const assign = <K extends keyof PlatformChanges>(field: K, value: PlatformChanges[K] | undefined) => {
    if (value !== undefined) changes[field] = value;
  };
  if ('displayName' in input) assign('displayName', checkDisplayName(input.displayName, errors, false));
  if ('callbackUrl' in input) assign('callbackUrl', checkCallbackUrl(input.callbackUrl, errors, rules));
  if ('backchannelLogoutUrl' in input) assign('backchannelLogoutUrl', checkBackchannelLogoutUrl(input.backchannelLogoutUrl, errors, rules));
  if ('eventDelivery' in input) assign('eventDelivery', checkEventDelivery(input.eventDelivery, errors));
  if ('eventReceiverUrl' in input) assign('eventReceiverUrl', checkEventReceiverUrl(input.eventReceiverUrl, errors, rules));
  if ('allowedReturnUrls' in input) assign('allowedReturnUrls', checkReturnUrls(input.allowedReturnUrls, errors, rules));
  if ('defaultOnboardingMode' in input) assign('defaultOnboardingMode', checkMode(input.defaultOnboardingMode, errors));
  if ('centralOnboardingEnabled' in input) assign('centralOnboardingEnabled', checkBoolean('centralOnboardingEnabled', input.centralOnboardingEnabled, errors));
  if ('platformOnboardingPath' in input) assign('platformOnboardingPath', checkOnboardingPath(input.platformOnboardingPath, errors));
  if ('metadata' in input) assign('metadata', checkMetadata(input.metadata, errors));
  if ('handoffChallengeRequired' in input) assign('handoffChallengeRequired', checkBoolean('handoffChallengeRequired', input.handoffChallengeRequired, errors));
  if ('defaultLanguage' in input) assign('defaultLanguage', checkDefaultLanguage(input.defaultLanguage, errors));
  if ('supportAccess' in input) assign('supportAccess', checkSupportAccess(input.supportAccess, errors));
  if ('sensitive' in input) assign('sensitive', checkBoolean('sensitive', input.sensitive, errors));
  if ('supportSignInUrl' in input) assign('supportSignInUrl', checkSupportSignInUrl(input.supportSignInUrl, errors, rules));
  if (errors.length > 0) throw validationError(errors);
  return changes;
}
