import type { Db } from '../knex.ts';

export interface FieldWithValue {
  fieldKey: string;
  fieldType: string;
  required: boolean;
  /** The user's current value: the profile column for PROFILE_FIELD, the platform-scoped value otherwise. */
  value: unknown;
}

/** Active field definitions of a platform with one user's current values, in rendering order. */
export async function activeFieldsWithValues(db: Db, platformId: string, userId: string): Promise<FieldWithValue[]> {
  const { rows } = await db.raw<{ rows: FieldWithValue[] }>(
    `SELECT f.field_key AS "fieldKey", f.field_type AS "fieldType", f.required,
            CASE WHEN f.source = 'PROFILE_FIELD' THEN
              CASE f.profile_field
                WHEN 'firstName' THEN to_jsonb(p.first_name)
                WHEN 'lastName' THEN to_jsonb(p.last_name)
                WHEN 'displayName' THEN to_jsonb(p.display_name)
                WHEN 'dateOfBirth' THEN to_jsonb(to_char(p.date_of_birth, 'YYYY-MM-DD'))
                WHEN 'phone' THEN to_jsonb(p.phone)
                WHEN 'country' THEN to_jsonb(p.country)
              END
            ELSE v.value END AS value
       FROM onboarding_fields f
       LEFT JOIN onboarding_values v ON v.platform_id = f.platform_id AND v.field_key = f.field_key AND v.user_id = :userId
       LEFT JOIN profiles p ON p.user_id = :userId
      WHERE f.platform_id = :platformId AND f.archived_at IS NULL
      ORDER BY f.sort_order, f.field_key`,
    { platformId, userId },
  );
  return rows;
}

/** Membership is created on first login to a platform; returns the version the user completed, if any. */
export async function bootstrapMembership(db: Db, userId: string, platformId: string): Promise<{ completedRequirementVersion: number | null }> {
  const { rows } = await db.raw<{ rows: { completedRequirementVersion: number | null }[] }>(
    `INSERT INTO platform_memberships (user_id, platform_id) VALUES (?, ?)
     ON CONFLICT (user_id, platform_id) DO UPDATE SET updated_at = now()
     RETURNING completed_requirement_version AS "completedRequirementVersion"`,
    [userId, platformId],
  );
  return rows[0]!;
}
