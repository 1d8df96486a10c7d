import type { Db } from '../../db/knex.ts';
import type { FieldDefinitionRow, FieldDefinitionSettings } from '../../domain/onboarding.ts';

// Onboarding field definitions of a platform. Writes take the transaction of the schema
// change, which also bumps the platform's requirement version and records the audit row.

const FIELD_COLUMNS = `
  id, platform_id AS "platformId", field_key AS "fieldKey", label, field_type AS "fieldType", source,
  profile_field AS "profileField", sharing, required, sort_order AS "sortOrder", options, validation,
  ui_config AS "uiConfig", placeholder, description, translations, archived_at AS "archivedAt",
  created_at AS "createdAt", updated_at AS "updatedAt"`;

/** Column of each changeable setting: dynamic SQL names columns only from this fixed map. */
const SETTING_COLUMNS: Readonly<Record<Exclude<keyof FieldDefinitionSettings, 'fieldKey'>, { column: string; jsonb?: true }>> = {
  label: { column: 'label' },
  fieldType: { column: 'field_type' },
  source: { column: 'source' },
  profileField: { column: 'profile_field' },
  sharing: { column: 'sharing' },
  required: { column: 'required' },
  sortOrder: { column: 'sort_order' },
  options: { column: 'options', jsonb: true },
  validation: { column: 'validation', jsonb: true },
  uiConfig: { column: 'ui_config', jsonb: true },
  placeholder: { column: 'placeholder' },
  description: { column: 'description' },
  translations: { column: 'translations', jsonb: true },
};

/** Definitions of a platform in rendering order (archived ones only when asked for). */
export async function listFieldRows(db: Db, platformId: string, includeArchived: boolean): Promise<FieldDefinitionRow[]> {
  const { rows } = await db.raw<{ rows: FieldDefinitionRow[] }>(
    `SELECT ${FIELD_COLUMNS} FROM onboarding_fields
      WHERE platform_id = :platformId AND (:includeArchived OR archived_at IS NULL)
      ORDER BY sort_order, field_key`,
    { platformId, includeArchived },
  );
  return rows;
}

/** One definition, locked for the schema change that reads it. */
export async function lockFieldRow(db: Db, platformId: string, fieldKey: string): Promise<FieldDefinitionRow | undefined> {
  const { rows } = await db.raw<{ rows: FieldDefinitionRow[] }>(
    `SELECT ${FIELD_COLUMNS} FROM onboarding_fields WHERE platform_id = ? AND field_key = ? FOR UPDATE`,
    [platformId, fieldKey],
  );
  return rows[0];
}

/** The key of the platform's active field bound to a profile property, other than `exceptFieldKey`. */
export async function activeFieldBindingProfile(db: Db, platformId: string, profileField: string, exceptFieldKey: string): Promise<string | undefined> {
  const { rows } = await db.raw<{ rows: { fieldKey: string }[] }>(
    `SELECT field_key AS "fieldKey" FROM onboarding_fields
      WHERE platform_id = ? AND profile_field = ? AND archived_at IS NULL AND field_key <> ?`,
    [platformId, profileField, exceptFieldKey],
  );
  return rows[0]?.fieldKey;
}

/** Undefined when the platform already has a definition with this key (unique per platform). */
export async function insertFieldRow(db: Db, platformId: string, field: FieldDefinitionSettings): Promise<FieldDefinitionRow | undefined> {
  const { rows } = await db.raw<{ rows: FieldDefinitionRow[] }>(
    `INSERT INTO onboarding_fields (platform_id, field_key, label, field_type, source, profile_field, sharing, required, sort_order,
                                    options, validation, ui_config, placeholder, description, translations)
     VALUES (:platformId, :fieldKey, :label, :fieldType, :source, :profileField, :sharing, :required, :sortOrder,
             CAST(:options AS jsonb), CAST(:validation AS jsonb), CAST(:uiConfig AS jsonb), :placeholder, :description,
             CAST(:translations AS jsonb))
     ON CONFLICT (platform_id, field_key) DO NOTHING
     RETURNING ${FIELD_COLUMNS}`,
    { ...field, platformId, options: JSON.stringify(field.options), validation: JSON.stringify(field.validation), uiConfig: JSON.stringify(field.uiConfig), translations: JSON.stringify(field.translations) },
  );
  return rows[0];
}

export async function updateFieldRow(db: Db, id: string, changes: Partial<Omit<FieldDefinitionSettings, 'fieldKey'>>): Promise<FieldDefinitionRow> {
  const assignments: string[] = ['updated_at = now()'];
  const bindings: Record<string, unknown> = { id };
  for (const [setting, value] of Object.entries(changes) as [keyof typeof SETTING_COLUMNS, unknown][]) {
    const { column, jsonb } = SETTING_COLUMNS[setting];
    assignments.push(jsonb ? `${column} = CAST(:${setting} AS jsonb)` : `${column} = :${setting}`);
    bindings[setting] = jsonb ? JSON.stringify(value) : value;
  }
  const { rows } = await db.raw<{ rows: FieldDefinitionRow[] }>(
    `UPDATE onboarding_fields SET ${assignments.join(', ')} WHERE id = :id RETURNING ${FIELD_COLUMNS}`,
    bindings,
  );
  return rows[0]!;
}

export async function archiveFieldRow(db: Db, id: string): Promise<FieldDefinitionRow> {
  const { rows } = await db.raw<{ rows: FieldDefinitionRow[] }>(
    `UPDATE onboarding_fields SET archived_at = now(), updated_at = now() WHERE id = ? RETURNING ${FIELD_COLUMNS}`,
    [id],
  );
  return rows[0]!;
}

/**
 * The platform's requirement version goes up by exactly one, in the transaction of the
 * schema change (the platform row is already locked by it, so concurrent changes queue).
 * With `enforceAfter` (issue 36) the new version is in grace until then, in the same statement;
 * without it, it is enforced at once. Shared by field changes and document publications.
 */
export async function bumpRequirementVersion(db: Db, platformId: string, enforceAfter: Date | null = null): Promise<number> {
  const { rows } = await db.raw<{ rows: { requirementVersion: number }[] }>(
    `WITH bumped AS (
       UPDATE platforms SET requirement_version = requirement_version + 1, updated_at = now() WHERE id = :platformId
       RETURNING id, requirement_version
     ), grace AS (
       INSERT INTO requirement_graces (platform_id, requirement_version, enforce_after)
       SELECT id, requirement_version, CAST(:enforceAfter AS timestamptz) FROM bumped WHERE CAST(:enforceAfter AS timestamptz) IS NOT NULL
     )
     SELECT requirement_version AS "requirementVersion" FROM bumped`,
    { platformId, enforceAfter },
  );
  return rows[0]!.requirementVersion;
}

/**
 * The field asks for something new from `version` on (its creation, `required` turned on, a new
 * binding): a grace of that version covers it, an older version's completion does not
 * (migration 20261129006000). Written in the transaction of the schema change.
 */
export async function markFieldRequirementVersion(db: Db, id: string, version: number): Promise<void> {
  await db.raw('UPDATE onboarding_fields SET requirement_version = ? WHERE id = ?', [version, id]);
}
