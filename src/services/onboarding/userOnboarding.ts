import type { components } from '../../../generated/gateway.ts';
import type { Db } from '../../db/knex.ts';
import type { OnboardingStatus, Principal } from '../../domain/types.ts';
import type { FieldDefinitionRow, ProfileField } from '../../domain/onboarding.ts';
import { findActivePlatformByKey, lockPlatformForShare, type PlatformRow } from '../registry/index.ts';
import { findProfile } from '../account/index.ts';
import { recordProfileChange } from '../events/record.ts';
import { allFieldsOfPlatform, insertSharedValue, setCompletedVersion, sharedOffers, updateProfileValues, upsertCustomValues, type FieldWithValue, type SharedOfferRow } from './onboardingRepository.ts';
import { ApiError, validationError, type FieldError } from '../../errors/catalogue.ts';
import { checkFieldValue, emptyValueOf, isEmptyValue } from './values.ts';
import { valueRulesFor } from './definitions.ts';
import { evaluateOnboarding } from './status.ts';
import { requireLocalUser } from '../account/localUser.ts';
import { toFieldView } from './schema.ts';
import { localiseField, matchLanguage, translationLanguages } from './fieldTranslations.ts';

// The signed-in user's onboarding for one platform (spec: Onboarding (user)). The caller is
// a browser session, a platform's own credential (for its own platform only: checked by the
// authorisation step), or a Bearer token. Values are validated on the server by the field
// type and the definition's limits; a failing write changes nothing.

export type Requirements = components['schemas']['OnboardingRequirements'];
export type ValuesResult = components['schemas']['OnboardingValuesResponse'];
type ValueMap = components['schemas']['OnboardingValueMap'];
type Value = components['schemas']['OnboardingValue'];
type SharedOffer = NonNullable<components['schemas']['OnboardingSharedOffer']>;

/** What says which language the texts of the requirements should be in (see getOnboardingRequirements). */
export interface WantedLanguage {
  /** The `language` parameter: the language the caller shows. */
  explicit?: string | undefined;
  /** Accept-Language negotiated against the languages on offer; undefined without the header or a match. */
  acceptLanguage?: ((available: string[]) => string | undefined) | undefined;
}

export async function getRequirements(db: Db, platformKey: string, principal: Principal, wanted: WantedLanguage = {}): Promise<Requirements> {
  const { platform, userId } = await resolve(db, platformKey, principal);
  const { fields } = await evaluateOnboarding(db, userId, platform, { bootstrap: !principal.supportAccessId });
  const offers = await offersFor(db, platform, userId, principal, fields);
  const views = fields.map((field) => ({ ...toFieldView(field), currentValue: currentValueOf(field), sharedOffer: offers.get(field.fieldKey) ?? null }));
  const language = await chooseTextLanguage(db, userId, translationLanguages(views), wanted, platform.defaultLanguage);
  return {
    platformKey: platform.platformKey,
    requirementVersion: platform.requirementVersion,
    language,
    fields: views.map((field) => localiseField(field, language)),
  };
}

/**
 * The `ask` fields' offers (issue 36): only the person sees the profile's value before they
 * confirm it, in their own browser session; a platform's credential and a Bearer token (a
 * platform's app) never do, or the platform would receive it unasked. Read only when the
 * platform has an `ask` field (no cost for the others).
 */
async function offersFor(db: Db, platform: PlatformRow, userId: string, principal: Principal, fields: readonly FieldWithValue[]): Promise<Map<string, SharedOffer>> {
  // Nor does an operator in a support session of the person (issue 35): they see the platform
  // as the person's answers left it, not what the person told another platform.
  if (principal.via !== 'session' || principal.supportAccessId || !fields.some((field) => field.sharing === 'ask')) return new Map();
  const rows = await sharedOffers(db, platform.id, userId);
  return new Map(
    rows
      .filter((row) => !isEmptyValue(row.value))
      .map((row) => [row.fieldKey, { value: row.value as Value, fromPlatform: row.fromPlatformKey === null ? null : { platformKey: row.fromPlatformKey, displayName: row.fromPlatformName ?? row.fromPlatformKey } }]),
  );
}

/**
 * The first source present decides (the caller's `language`, the profile's locale,
 * Accept-Language); a personal source that names a language the fields do not translate to
 * gets the platform's default language rather than the next personal source's, which the
 * person did not ask for; without a platform default (or a match for it), the default texts.
 * The profile is read only when it decides (no `language`, and translations on offer).
 */
async function chooseTextLanguage(db: Db, userId: string, available: string[], wanted: WantedLanguage, platformDefault: string | null): Promise<string | null> {
  if (available.length === 0) return null;
  if (wanted.explicit) return matchLanguage(wanted.explicit, available);
  const { locale } = await findProfile(db, userId);
  const personal = locale ? matchLanguage(locale, available) : wanted.acceptLanguage?.(available);
  return personal ?? (platformDefault ? matchLanguage(platformDefault, available) : null);
}

export async function getStatus(db: Db, platformKey: string, principal: Principal): Promise<OnboardingStatus> {
  const { platform, userId } = await resolve(db, platformKey, principal);
  return (await evaluateOnboarding(db, userId, platform, { bootstrap: !principal.supportAccessId })).status;
}

/**
 * PUT values: the map holds the fields the client renders; keys it leaves out keep their
 * stored values. Unknown and archived keys are refused. PROFILE_FIELD values go to the
 * canonical profile (shared by every platform binding the property), CUSTOM_FIELD values
 * stay with the platform. Writing never completes onboarding; a write that empties a
 * required field that had a value takes back an earlier completion. A write that leaves
 * empty only what was missing already, or what a change after the completion asked for anew,
 * keeps it: a person in a grace period (issue 36) who saves the form without the new field
 * keeps the grace their completion gives.
 */
export async function putValues(db: Db, platformKey: string, principal: Principal, values: ValueMap, acceptShared: readonly string[] = []): Promise<ValuesResult> {
  const { platform, userId } = await resolve(db, platformKey, principal);
  // Confirming an offer shares a value another platform was given: the person's own decision,
  // never one a platform (its credential, or a token of its app) can take for them.
  if (acceptShared.length > 0 && principal.via !== 'session') throw new ApiError('FORBIDDEN', 'Only the person, in their own browser session, can confirm sharing a value.');
  return db.transaction(async (trx) => {
    const missingBefore = new Set((await evaluateOnboarding(trx, userId, platform)).status.missingFields);
    const definitions = new Map((await allFieldsOfPlatform(trx, platform.id)).map((field) => [field.fieldKey, field]));
    const errors: FieldError[] = [];
    const custom = new Map<string, unknown>();
    const profile = new Map<ProfileField, string | null>();
    for (const [fieldKey, value] of Object.entries(values)) {
      const pointer = `/body/values/${fieldKey}`;
      const definition = definitions.get(fieldKey);
      if (!definition) {
        errors.push({ pointer, reason: 'UNKNOWN_FIELD', message: 'is not a field of this platform' });
        continue;
      }
      if (definition.archivedAt) {
        errors.push({ pointer, reason: 'ARCHIVED_FIELD', message: 'is an archived field and can no longer be written' });
        continue;
      }
      const checked = checkFieldValue(valueRulesFor(definition), value);
      if (!checked.ok) {
        errors.push({ pointer: `${pointer}${checked.at ?? ''}`, reason: checked.reason, message: checked.message });
        continue;
      }
      // Only a `shared` field writes the profile; `ask` and `own` values are the platform's own.
      if (definition.profileField && definition.sharing === 'shared') profile.set(definition.profileField, checked.value as string | null);
      else custom.set(fieldKey, checked.value);
    }
    const accepted = await acceptedOffers(trx, platform.id, userId, definitions, acceptShared, values, errors);
    if (errors.length > 0) throw validationError(errors, 'One or more values are not valid; nothing was stored.');

    await upsertCustomValues(trx, userId, platform.id, custom);
    for (const offer of accepted) await insertSharedValue(trx, userId, platform.id, offer);
    if (profile.size > 0) {
      // Profile properties written through a field bound to them: the platforms whose schema
      // binds a property whose value really changed hear which of their fields did.
      const before = await findProfile(trx, userId);
      await updateProfileValues(trx, userId, platform.id, profile);
      const changed = [...profile].filter(([property, value]) => before[property] !== value).map(([property]) => property);
      if (changed.length > 0) await recordProfileChange(trx, { userId, changed });
    }
    const evaluated = await evaluateOnboarding(trx, userId, platform);
    let status = evaluated.status;
    const completed = evaluated.completedRequirementVersion;
    // Emptying a field asked for anew after the completion (a change in grace, issue 36) takes
    // nothing back: the completion never covered it.
    const emptied = evaluated.fields.filter((field) => status.missingFields.includes(field.fieldKey) && !missingBefore.has(field.fieldKey));
    if (completed !== null && emptied.some((field) => field.requiredSince === null || field.requiredSince <= completed)) {
      await setCompletedVersion(trx, userId, platform.id, null);
      status = (await evaluateOnboarding(trx, userId, platform)).status;
    }
    return { values: Object.fromEntries(evaluated.fields.map((field) => [field.fieldKey, currentValueOf(field)])), onboarding: status };
  });
}

/**
 * POST complete: COMPLETE only when no active required field is missing; otherwise 200 with
 * the status and `missingFields`. The platform row is read FOR SHARE, so a concurrent schema
 * change (which locks it FOR UPDATE) either comes before, and is what gets completed, or
 * after, and reopens it.
 */
export async function completeOnboarding(db: Db, platformKey: string, principal: Principal): Promise<OnboardingStatus> {
  const { userId } = await resolve(db, platformKey, principal);
  return db.transaction(async (trx) => {
    const platform = await lockPlatformForShare(trx, platformKey);
    if (!platform) throw platformNotFound(platformKey);
    const evaluated = await evaluateOnboarding(trx, userId, platform);
    if (evaluated.status.missingFields.length > 0 || evaluated.status.status === 'COMPLETE') return evaluated.status;
    await setCompletedVersion(trx, userId, platform.id, platform.requirementVersion);
    return (await evaluateOnboarding(trx, userId, platform)).status;
  });
}

/**
 * The offers `acceptShared` confirms, read with the profile row locked (the value copied is the
 * one the profile holds at the commit). An `ask` field already answered (a double submission,
 * a second tab) offers nothing and is skipped: the first answer stands. A key that is no `ask`
 * field, is also given a value, or has nothing to share is refused.
 */
async function acceptedOffers(
  trx: Db,
  platformId: string,
  userId: string,
  definitions: ReadonlyMap<string, FieldDefinitionRow>,
  keys: readonly string[],
  values: ValueMap,
  errors: FieldError[],
): Promise<SharedOfferRow[]> {
  if (keys.length === 0) return [];
  const offers = new Map((await sharedOffers(trx, platformId, userId, true)).map((offer) => [offer.fieldKey, offer]));
  const accepted: SharedOfferRow[] = [];
  for (const [index, key] of keys.entries()) {
    const definition = definitions.get(key);
    const fail = (message: string) => errors.push({ pointer: `/body/acceptShared/${index}`, reason: 'NOTHING_TO_SHARE', message });
    if (!definition || definition.archivedAt || definition.sharing !== 'ask') fail('is not an active field that asks before sharing');
    else if (Object.hasOwn(values, key)) fail('is also given a value: confirm the offer or enter a value, not both');
    else {
      const offer = offers.get(key);
      if (offer && !isEmptyValue(offer.value)) accepted.push(offer);
      else if (offer) fail('has no value in the profile to share');
      // No offer: the field already has its answer; it is kept.
    }
  }
  return accepted;
}

/**
 * The active platform and the caller's local user. A caller that is not central (a platform's
 * credential, a Bearer token of a platform's own app) acts only on the platforms it claims:
 * another platform's onboarding holds values the person gave that platform alone (`own`,
 * `ask`, custom fields; issue 36).
 */
async function resolve(db: Db, platformKey: string, principal: Principal): Promise<{ platform: PlatformRow; userId: string }> {
  const userId = requireLocalUser(principal);
  if (!principal.central && !principal.platformClaims.includes(platformKey)) {
    throw new ApiError('FORBIDDEN', `This caller acts for a platform other than ${platformKey}: it needs a matching platform claim.`);
  }
  const platform = await findActivePlatformByKey(db, platformKey);
  if (!platform) throw platformNotFound(platformKey);
  return { platform, userId };
}

/** `null` for an empty scalar, `[]` for an empty multi-select (the contract's currentValue). */
function currentValueOf(field: FieldWithValue): Value {
  return isEmptyValue(field.value) ? emptyValueOf(field.fieldType) : (field.value as Value);
}

function platformNotFound(platformKey: string): ApiError {
  return new ApiError('PLATFORM_NOT_FOUND', `No active platform has the key ${platformKey}.`);
}
