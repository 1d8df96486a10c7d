import { runPrepared, type Db } from '../../db/knex.ts';
import type { FieldDefinitionRow } from '../../domain/onboarding.ts';
import { PROFILE_COLUMNS, type FieldSharing, type ProfileField } from '../../domain/onboarding.ts';
import type { DocumentStanding } from '../../domain/documents.ts';
import { DOCUMENT_STANDINGS_JSON } from '../documents/repository.ts';
import type { PendingGraces } from '../../domain/requirementGrace.ts';
import { PENDING_GRACES_JSON } from './requirementGracesRepository.ts';

const FIELD_COLUMNS = `
  f.id, f.platform_id AS "platformId", f.field_key AS "fieldKey", f.label, f.field_type AS "fieldType", f.source,
  f.profile_field AS "profileField", f.sharing, f.required, f.sort_order AS "sortOrder", f.options, f.validation,
  f.ui_config AS "uiConfig", f.placeholder, f.description, f.translations, f.archived_at AS "archivedAt",
  f.created_at AS "createdAt", f.updated_at AS "updatedAt"`;

/** The profile's value of the property field `f` binds (`p`); columns come from a fixed list. */
const PROFILE_VALUE = `
    CASE f.profile_field
      ${(Object.entries(PROFILE_COLUMNS) as [ProfileField, string][])
        .map(([property, column]) => `WHEN '${property}' THEN to_jsonb(${column === 'date_of_birth' ? "to_char(p.date_of_birth, 'YYYY-MM-DD')" : `p.${column}`})`)
        .join('\n      ')}
    END`;

/**
 * A user's current value of field `f`: the canonical profile column for a PROFILE_FIELD whose
 * sharing rule is `shared` (`p`, shared by every platform that binds it that way), the
 * platform-scoped value otherwise (`v`): a CUSTOM_FIELD's, and an `ask` or `own` field's, which
 * never reads the profile (issue 36).
 */
const CURRENT_VALUE = `
  CASE WHEN f.source = 'PROFILE_FIELD' AND f.sharing = 'shared' THEN ${PROFILE_VALUE}
  ELSE v.value END`;

/** Empty as the value rules define it: null, an empty multi-select, or a blank string. */
const IS_EMPTY = (value: string) =>
  `(${value} IS NULL OR ${value} = 'null'::jsonb OR ${value} = '[]'::jsonb OR (jsonb_typeof(${value}) = 'string' AND btrim(${value} #>> '{}') = ''))`;

export interface FieldWithValue extends FieldDefinitionRow {
  /** The user's current value: null (or [] for a multi-select) when empty. */
  value: unknown;
  /**
   * The requirement version whose change made the field ask for something new (created, made
   * required, rebound); null: in force since before issue 36. A grace covers a missing field
   * only when this version is one in grace (status.ts).
   */
  requiredSince: number | null;
}

/** What the onboarding status is calculated from: the active fields with values, and the person's standing with the platform's documents. */
export interface OnboardingInputs {
  fields: FieldWithValue[];
  documents: DocumentStanding[];
  /** The platform's requirement versions still in grace (issue 36). */
  graces: PendingGraces;
}

/** A row of the onboarding statement. */
export type OnboardingInputRow = FieldWithValue & { documents: DocumentStanding[]; graces: PendingGraces };

/** The text of gw_onboarding_inputs, built once: runPrepared compares it with the prepared one on every call. */
const ONBOARDING_INPUTS_SQL = `SELECT f.*, docs.documents, grace.graces
       FROM (${DOCUMENT_STANDINGS_JSON}) AS docs (documents)
       CROSS JOIN (${PENDING_GRACES_JSON}) AS grace (graces)
       LEFT JOIN (
         SELECT ${FIELD_COLUMNS}, ${CURRENT_VALUE} AS value, f.requirement_version AS "requiredSince"
           FROM onboarding_fields f
           LEFT JOIN onboarding_values v ON v.platform_id = f.platform_id AND v.field_key = f.field_key AND v.user_id = :userId
           LEFT JOIN profiles p ON p.user_id = :userId
          WHERE f.platform_id = :platformId AND f.archived_at IS NULL) AS f ON true
      ORDER BY f."sortOrder", f."fieldKey"`;

/**
 * Active field definitions of a platform with one user's current values, in rendering order,
 * and the user's standing with each current document of the platform (issue 25), and the
 * platform's requirement versions still in grace (issue 36), in one statement: the callback
 * runs it, and the documents and graces ride in it at no extra round trip. The documents and
 * graces come as jsonb on every row; the outer join keeps one row (with no field) when the
 * platform has no active field.
 */
export async function activeFieldsWithValues(db: Db, platformId: string, userId: string): Promise<OnboardingInputs> {
  // Named (a prepared statement): every callback runs it.
  const { rows } = await runPrepared<OnboardingInputRow>(
    db,
    'gw_onboarding_inputs',
    ONBOARDING_INPUTS_SQL,
    { platformId, userId },
  );
  return onboardingInputsOf(rows);
}

/** Splits the rows of the onboarding statement (shared with the bench's bare server). */
export function onboardingInputsOf(rows: readonly OnboardingInputRow[]): OnboardingInputs {
  const documents = rows[0]?.documents ?? [];
  const graces = rows[0]?.graces ?? {};
  const fields = rows.filter((row) => row.id !== null).map(({ documents: _documents, graces: _graces, ...field }) => field);
  return { fields, documents, graces };
}

/** Every definition of a platform, archived ones included, by key (a values write must tell unknown from archived). */
export async function allFieldsOfPlatform(db: Db, platformId: string): Promise<FieldDefinitionRow[]> {
  const { rows } = await db.raw<{ rows: FieldDefinitionRow[] }>(
    `SELECT ${FIELD_COLUMNS} FROM onboarding_fields f WHERE f.platform_id = ?`,
    [platformId],
  );
  return rows;
}

/**
 * Platform-scoped values of a user (CUSTOM_FIELD, and `ask`/`own` PROFILE_FIELD values), in one
 * statement. A value the person entered is their own: it is `shared` only while it is still the
 * copy they confirmed (the page sends back the whole map, so an unchanged copy stays shared).
 */
export async function upsertCustomValues(db: Db, userId: string, platformId: string, values: ReadonlyMap<string, unknown>): Promise<void> {
  if (values.size === 0) return;
  await db.raw(
    `INSERT INTO onboarding_values AS o (user_id, platform_id, field_key, value)
     SELECT :userId, :platformId, entry.key, entry.value
       FROM jsonb_each(CAST(:values AS jsonb)) AS entry
     ON CONFLICT (user_id, platform_id, field_key) DO UPDATE
        SET value = EXCLUDED.value, shared = false, shared_from_platform_id = NULL, updated_at = now()
      WHERE o.value IS DISTINCT FROM EXCLUDED.value`,
    { userId, platformId, values: JSON.stringify(Object.fromEntries(values)) },
  );
}

/** What an `ask` field of the platform may offer: the profile's value and the platform it was given to. */
export interface SharedOfferRow {
  fieldKey: string;
  value: unknown;
  fromPlatformId: string | null;
  fromPlatformKey: string | null;
  fromPlatformName: string | null;
}

/**
 * The `ask` fields of a platform whose own value is empty, with the profile's value of the
 * property they bind (also when that is empty: the caller decides). `lock` (a write) holds
 * the profile row, so the value confirmed is the one copied.
 */
export async function sharedOffers(db: Db, platformId: string, userId: string, lock = false): Promise<SharedOfferRow[]> {
  await db.raw('INSERT INTO profiles (user_id) VALUES (?) ON CONFLICT (user_id) DO NOTHING', [userId]);
  const { rows } = await db.raw<{ rows: SharedOfferRow[] }>(
    `SELECT f.field_key AS "fieldKey", ${PROFILE_VALUE} AS value, src.id AS "fromPlatformId",
            src.platform_key AS "fromPlatformKey", src.display_name AS "fromPlatformName"
       FROM onboarding_fields f
       JOIN profiles p ON p.user_id = :userId
       LEFT JOIN onboarding_values v ON v.platform_id = f.platform_id AND v.field_key = f.field_key AND v.user_id = :userId
       LEFT JOIN platforms src ON src.id::text = p.value_sources ->> f.profile_field
      WHERE f.platform_id = :platformId AND f.archived_at IS NULL AND f.source = 'PROFILE_FIELD' AND f.sharing = 'ask'
        AND ${IS_EMPTY('v.value')}
      ORDER BY f.sort_order, f.field_key
      ${lock ? 'FOR UPDATE OF p' : ''}`,
    { platformId, userId },
  );
  return rows;
}

/**
 * The person confirmed an offer: the profile's value becomes the platform's own copy, marked
 * shared and where from. A value already there is kept (a second confirmation, from another
 * tab or a double submission, records nothing new).
 */
export async function insertSharedValue(db: Db, userId: string, platformId: string, offer: SharedOfferRow): Promise<void> {
  await db.raw(
    `INSERT INTO onboarding_values AS o (user_id, platform_id, field_key, value, shared, shared_from_platform_id)
     VALUES (:userId, :platformId, :fieldKey, CAST(:value AS jsonb), true, :from)
     ON CONFLICT (user_id, platform_id, field_key) DO UPDATE
        SET value = EXCLUDED.value, shared = true, shared_from_platform_id = EXCLUDED.shared_from_platform_id, updated_at = now()
      WHERE ${IS_EMPTY('o.value')}`,
    { userId, platformId, fieldKey: offer.fieldKey, value: JSON.stringify(offer.value), from: offer.fromPlatformId },
  );
}

/**
 * The profile properties the platforms `platformKeys` names (null: every platform) bind with an
 * active PROFILE_FIELD field, with the sharing rule and, for `ask` and `own`, the platform's own
 * value (null when it has none): what a caller acting for those platforms may read of the
 * profile, and which value it reads (account/profile.ts).
 */
export async function platformProfileBindings(
  db: Db,
  platformKeys: readonly string[] | null,
  userId: string,
): Promise<{ profileField: ProfileField; platformKey: string; sharing: FieldSharing; value: unknown }[]> {
  const { rows } = await db.raw<{ rows: { profileField: ProfileField; platformKey: string; sharing: FieldSharing; value: unknown }[] }>(
    `SELECT f.profile_field AS "profileField", pl.platform_key AS "platformKey", f.sharing,
            CASE WHEN f.sharing IN ('ask', 'own') THEN v.value END AS value
       FROM onboarding_fields f
       JOIN platforms pl ON pl.id = f.platform_id
       LEFT JOIN onboarding_values v ON v.platform_id = f.platform_id AND v.field_key = f.field_key AND v.user_id = :userId
      WHERE f.archived_at IS NULL AND f.source = 'PROFILE_FIELD'
        AND (CAST(:any AS boolean) OR pl.platform_key = ANY(CAST(:platformKeys AS text[])))`,
    { userId, any: platformKeys === null, platformKeys: platformKeys ?? [] },
  );
  return rows;
}

/**
 * Canonical profile properties of a user (PROFILE_FIELD values of `shared` fields): columns
 * only from the fixed map. `value_sources` remembers the platform each value was given to
 * (an offer names it); a cleared property forgets it.
 */
export async function updateProfileValues(db: Db, userId: string, platformId: string, values: ReadonlyMap<ProfileField, string | null>): Promise<void> {
  if (values.size === 0) return;
  const columns = [...values.keys()].map((property) => PROFILE_COLUMNS[property]);
  const given = [...values].filter(([, value]) => value !== null).map(([property]) => [property, platformId]);
  const cleared = [...values].filter(([, value]) => value === null).map(([property]) => property);
  await db.raw(
    `INSERT INTO profiles AS pr (user_id, ${columns.join(', ')}, value_sources)
     VALUES (:userId, ${[...values.keys()].map((property) => `:${property}`).join(', ')}, CAST(:given AS jsonb))
     ON CONFLICT (user_id) DO UPDATE SET ${columns.map((column) => `${column} = EXCLUDED.${column}`).join(', ')},
        value_sources = (pr.value_sources - CAST(:cleared AS text[])) || EXCLUDED.value_sources, updated_at = now()`,
    { userId, ...Object.fromEntries(values), given: JSON.stringify(Object.fromEntries(given)), cleared },
  );
}

/**
 * The version the user completed on the platform, without creating a membership (null: none, or
 * no membership): for a support session (issue 35), which never makes the person a member.
 */
export async function findCompletedRequirementVersion(db: Db, userId: string, platformId: string): Promise<number | null> {
  const { rows } = await db.raw<{ rows: { version: number | null }[] }>(
    'SELECT completed_requirement_version AS version FROM platform_memberships WHERE user_id = ? AND platform_id = ?',
    [userId, platformId],
  );
  return rows[0]?.version ?? null;
}

/** Membership is created on first use of a platform; returns the version the user completed, if any. */
export async function bootstrapMembership(db: Db, userId: string, platformId: string): Promise<{ completedRequirementVersion: number | null }> {
  const { rows } = await db.raw<{ rows: { completedRequirementVersion: number | null }[] }>(
    `INSERT INTO platform_memberships (user_id, platform_id) VALUES (?, ?)
     ON CONFLICT (user_id, platform_id) DO UPDATE SET updated_at = now()
     RETURNING completed_requirement_version AS "completedRequirementVersion"`,
    [userId, platformId],
  );
  return rows[0]!;
}

/** Records the requirement version the user completed (null: no longer complete). */
export async function setCompletedVersion(db: Db, userId: string, platformId: string, version: number | null): Promise<void> {
  await db.raw(
    `UPDATE platform_memberships
        SET completed_requirement_version = :version, completed_at = CASE WHEN CAST(:version AS integer) IS NULL THEN NULL ELSE now() END, updated_at = now()
      WHERE user_id = :userId AND platform_id = :platformId`,
    { userId, platformId, version },
  );
}

/** The memberships `m` of :platformId that completed :requirementVersion with no active required field empty. */
const COMPLETE_MEMBERSHIPS = `
       FROM platform_memberships m
      WHERE m.platform_id = :platformId AND m.completed_requirement_version = :requirementVersion
        AND NOT EXISTS (
          SELECT 1 FROM onboarding_fields f
            LEFT JOIN onboarding_values v ON v.platform_id = f.platform_id AND v.field_key = f.field_key AND v.user_id = m.user_id
            LEFT JOIN profiles p ON p.user_id = m.user_id
           WHERE f.platform_id = m.platform_id AND f.archived_at IS NULL AND f.required
             AND ${IS_EMPTY(CURRENT_VALUE)})`;

/**
 * How many users' onboarding is COMPLETE for the platform's current requirement version:
 * they completed it and no active required field of theirs is empty. Every schema change
 * turns all of them back to IN_PROGRESS (the impact a dry run reports).
 */
export async function countCompleteMemberships(db: Db, platformId: string, requirementVersion: number): Promise<number> {
  const { rows } = await db.raw<{ rows: { count: string }[] }>(`SELECT count(*) AS count ${COMPLETE_MEMBERSHIPS}`, { platformId, requirementVersion });
  return Number(rows[0]!.count);
}

/**
 * Of the users countCompleteMemberships counts, those who would still miss nothing with `field`
 * as a change would leave it (issue 36, a dry run's `meetingUsers`): it requires nothing
 * (optional or archived), or they already have a value for it (a profile property given to
 * another platform, for example). Their other required fields are filled already.
 */
export async function countCompleteMembershipsMeeting(
  db: Db,
  platformId: string,
  requirementVersion: number,
  field: Pick<FieldDefinitionRow, 'fieldKey' | 'source' | 'profileField' | 'sharing' | 'required' | 'archivedAt'>,
): Promise<number> {
  if (!field.required || field.archivedAt !== null) return countCompleteMemberships(db, platformId, requirementVersion);
  const { rows } = await db.raw<{ rows: { count: string }[] }>(
    `SELECT count(*) AS count FROM (SELECT m.user_id ${COMPLETE_MEMBERSHIPS}) m
       CROSS JOIN (SELECT CAST(:fieldKey AS text) AS field_key, CAST(:source AS text) AS source, CAST(:profileField AS text) AS profile_field, CAST(:sharing AS text) AS sharing) f
       LEFT JOIN onboarding_values v ON v.platform_id = :platformId AND v.field_key = f.field_key AND v.user_id = m.user_id
       LEFT JOIN profiles p ON p.user_id = m.user_id
      WHERE NOT ${IS_EMPTY(CURRENT_VALUE)}`,
    { platformId, requirementVersion, fieldKey: field.fieldKey, source: field.source, profileField: field.profileField, sharing: field.sharing },
  );
  return Number(rows[0]!.count);
}
