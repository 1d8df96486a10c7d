import type { components } from '../../../generated/gateway.ts';
import type { Db } from '../../db/knex.ts';
import type { Principal } from '../../domain/types.ts';
import { findProfile, updateProfileRow, type ProfileProperty, type ProfileRow } from './profilesRepository.ts';
import { validationError, type FieldError } from '../../errors/catalogue.ts';
import { isProfileField, profileValueRules } from '../onboarding/profileFields.ts';
import { requireLocalUser } from './localUser.ts';
import { platformProfileBindings } from '../onboarding/index.ts';
import { PROFILE_COLUMNS, type ProfileField } from '../../domain/onboarding.ts';
import { checkFieldValue, isEmptyValue } from '../onboarding/values.ts';
import { recordProfileChange } from '../events/record.ts';
import { schemaPattern } from '../../contract.ts';

export type Profile = components['schemas']['Profile'];
export type ProfileUpdate = components['schemas']['ProfileUpdateRequest'];

/** BCP 47-shaped tag, the contract's Locale schema (the API validated it; the check repeats it for other callers). */
const LOCALE = schemaPattern('Locale');

export async function getProfile(db: Db, principal: Principal): Promise<Profile> {
  const userId = requireLocalUser(principal);
  return toProfile(await profileSeenBy(db, principal, userId, await findProfile(db, userId)));
}

/** The bindable properties the sign-in itself fills (given_name, family_name, name: usersRepository.ts upsertLoginUser). */
const FROM_SIGN_IN: ReadonlySet<ProfileField> = new Set(['firstName', 'lastName', 'displayName']);
/**
 * Every other bindable property is only ever given to a platform's form that asks for it, so a
 * platform reads it only when its own schema binds it. Derived, so that a property added to the
 * profile is withheld from platforms until someone decides otherwise.
 */
const ASKED_BY_SCHEMA = (Object.keys(PROFILE_COLUMNS) as ProfileField[]).filter((property) => !FROM_SIGN_IN.has(property));

/**
 * The profile as the caller may read it (issue 36: "the platform receives only what its schema
 * declares and the person allowed"), for /v1/profile/me and /v1/me. A central caller (the
 * person's browser session, a Bearer token of a client in OIDC_CENTRAL_CLIENT_IDS) reads the
 * profile. Any other caller (a platform's credential, a Bearer token of a platform's own app)
 * acts for the platforms it claims:
 * - the date of birth, phone and country only where one of them binds the property (any
 *   sharing rule), else null: given to another platform, they are not this one's to read;
 * - a property one of them binds with `ask` or `own` is that platform's own value (null when
 *   several of them hold different ones), never the profile's. A caller that claims no
 *   platform reads none of these: which platform's answer it may see is unknown.
 */
export async function profileSeenBy(db: Db, principal: Principal, userId: string, row: ProfileRow, known?: Bindings): Promise<ProfileRow> {
  if (principal.central) return row;
  const claimed = principal.platformClaims.length > 0;
  const bindings = known ?? await bindingsOf(db, principal, userId);
  const seen = new Map<string, string | null>();
  const bound = new Set(claimed ? bindings.map((binding) => binding.profileField) : []);
  for (const property of ASKED_BY_SCHEMA) if (!bound.has(property)) seen.set(property, null);
  for (const { profileField, sharing, value } of bindings) {
    if (sharing === 'shared') continue;
    const own = !claimed || isEmptyValue(value) ? null : (value as string);
    seen.set(profileField, seen.has(profileField) && seen.get(profileField) !== own ? null : own);
  }
  return { ...row, ...Object.fromEntries(seen) };
}

/** The profile bindings of the platforms a non-central caller acts for; every platform's when it claims none. */
type Bindings = Awaited<ReturnType<typeof platformProfileBindings>>;

function bindingsOf(db: Db, principal: Principal, userId: string): Promise<Bindings> {
  return platformProfileBindings(db, principal.platformClaims.length > 0 ? principal.platformClaims : null, userId);
}

/**
 * PATCH /v1/profile/me: only the properties sent change; `null` clears one. Each value is
 * checked by the same validator as an onboarding value bound to that property (one rule
 * per kind of value); a refused update changes nothing. A change is visible at once to
 * every platform binding the property, and re-evaluates no onboarding status by itself.
 */
export async function updateProfile(db: Db, principal: Principal, patch: ProfileUpdate): Promise<Profile> {
  const userId = requireLocalUser(principal);
  const errors: FieldError[] = [];
  const changes: Partial<Record<ProfileProperty, string | null>> = {};
  for (const [property, value] of Object.entries(patch) as [ProfileProperty, unknown][]) {
    const pointer = `/body/${property}`;
    if (isProfileField(property)) {
      const checked = checkFieldValue(profileValueRules(property), value);
      if (checked.ok) changes[property] = checked.value as string | null;
      else errors.push({ pointer: `${pointer}${checked.at ?? ''}`, reason: checked.reason, message: checked.message });
    } else if (property === 'locale') {
      if (value === null || (typeof value === 'string' && LOCALE.test(value) && value.length <= 35)) changes.locale = value as string | null;
      else errors.push({ pointer, reason: 'WRONG_TYPE', message: 'must be a language tag such as en-GB' });
    } else {
      errors.push({ pointer, reason: 'UNKNOWN_PROPERTY', message: 'is not a profile property that can be written' });
    }
  }
  // What a non-central caller's platforms bind: read once, for what it may write and what it reads back.
  const bindings = principal.central ? undefined : await bindingsOf(db, principal, userId);
  if (bindings) {
    // A property the caller's platform binds with `ask` or `own` holds the person's answer for
    // that platform alone: written into the profile it would reach every platform sharing it
    // (issue 36). The platform writes its own value through its onboarding instead.
    const bound = new Set(bindings.filter((binding) => binding.sharing !== 'shared').map((binding) => binding.profileField as string));
    for (const property of Object.keys(changes).filter((key) => bound.has(key))) {
      errors.push({ pointer: `/body/${property}`, reason: 'UNKNOWN_PROPERTY', message: 'is bound by a platform with the sharing rule ask or own: write it as that platform\'s onboarding value' });
    }
  }
  if (errors.length > 0) throw validationError(errors, 'One or more properties are not valid; nothing was changed.');
  const updated = await db.transaction(async (trx) => {
    const before = await findProfile(trx, userId);
    await updateProfileRow(trx, userId, changes);
    const after = await findProfile(trx, userId);
    // The platforms whose schema binds a property that really changed hear which of their fields did.
    const changed = (Object.keys(changes) as ProfileProperty[]).filter((property) => isProfileField(property) && before[property] !== after[property]);
    if (changed.length > 0) await recordProfileChange(trx, { userId, changed });
    return after;
  });
  // The answer shows what the caller may read, as GET does.
  return toProfile(await profileSeenBy(db, principal, userId, updated, bindings));
}

function toProfile(row: ProfileRow): Profile {
  return {
    userId: row.userId,
    firstName: row.firstName,
    lastName: row.lastName,
    displayName: row.displayName,
    dateOfBirth: row.dateOfBirth,
    phone: row.phone,
    country: row.country,
    locale: row.locale,
    email: row.email,
    pictureUrl: row.pictureUrl,
    updatedAt: row.updatedAt.toISOString(),
  };
}
