import type { Knex } from 'knex';

/**
 * Issue 9 (onboarding): schema changes are audited with the field they touched, a platform
 * binds each canonical profile property at most once, and the onboarding tables get the
 * indexes their foreign keys and hot lookups need.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE audit_events ADD COLUMN field_key text CHECK (field_key ~ '^[A-Za-z][A-Za-z0-9_]{1,63}$');
    COMMENT ON COLUMN audit_events.field_key IS 'The onboarding field definition a schema change touched; null for registry changes';

    -- One active field per canonical profile property and platform: two would write one value.
    CREATE UNIQUE INDEX onboarding_fields_one_per_profile_property
      ON onboarding_fields (platform_id, profile_field) WHERE profile_field IS NOT NULL AND archived_at IS NULL;
    CREATE INDEX platform_memberships_platform ON platform_memberships (platform_id, completed_requirement_version);
    CREATE INDEX onboarding_values_platform ON onboarding_values (platform_id, field_key);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP INDEX onboarding_values_platform;
    DROP INDEX platform_memberships_platform;
    DROP INDEX onboarding_fields_one_per_profile_property;
    ALTER TABLE audit_events DROP COLUMN field_key;
  `);
}
