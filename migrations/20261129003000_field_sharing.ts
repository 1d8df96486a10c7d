import type { Knex } from 'knex';

/**
 * Asking before sharing (issue 36, part 2). A PROFILE_FIELD definition gets a sharing rule:
 * `shared` (the canonical profile property, as before: every existing profile-bound field
 * keeps it), `ask` or `own` (the platform's own value, kept in onboarding_values like a
 * CUSTOM_FIELD's). A CUSTOM_FIELD has none: the CHECK ties the two together.
 *
 * onboarding_values.shared says the person confirmed an `ask` offer (the value is a copy of
 * the profile's at that moment); shared_from_platform_id names the platform they had given it
 * to (NULL: the account center or the identity provider). Both are for the data export.
 *
 * profiles.value_sources remembers, per property, the platform through whose onboarding the
 * person last gave the value (`{"phone": "<platform id>"}`), so the offer can say "the phone
 * number you gave <A>". A change in the account center drops the property's entry.
 * ADD COLUMN with a constant default rewrites no row (PostgreSQL 11+).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE onboarding_fields ADD COLUMN sharing text CHECK (sharing IN ('shared', 'ask', 'own'));
    UPDATE onboarding_fields SET sharing = 'shared' WHERE source = 'PROFILE_FIELD';
    ALTER TABLE onboarding_fields ADD CONSTRAINT onboarding_fields_sharing_profile_bound
      CHECK ((source = 'PROFILE_FIELD') = (sharing IS NOT NULL));
    COMMENT ON COLUMN onboarding_fields.sharing IS 'PROFILE_FIELD only: shared (the profile property), ask or own (a value of the platform''s own)';

    ALTER TABLE onboarding_values ADD COLUMN shared boolean NOT NULL DEFAULT false;
    ALTER TABLE onboarding_values ADD COLUMN shared_from_platform_id uuid REFERENCES platforms (id);
    ALTER TABLE onboarding_values ADD CONSTRAINT onboarding_values_shared_from CHECK (shared OR shared_from_platform_id IS NULL);
    -- Every foreign key is indexed (test/db/maintenance.test.ts): a platform's row is never deleted, but a check on it never scans the values.
    CREATE INDEX onboarding_values_shared_from_platform_id_idx ON onboarding_values (shared_from_platform_id);
    COMMENT ON TABLE onboarding_values IS 'Platform-scoped values of a user: CUSTOM_FIELD values, and PROFILE_FIELD values of ask and own fields';
    COMMENT ON COLUMN onboarding_values.shared IS 'The person confirmed the profile''s value for this platform (an ask field); false: they entered it here';
    COMMENT ON COLUMN onboarding_values.shared_from_platform_id IS 'The platform the shared value had been given to; NULL: the account center or the identity provider';

    ALTER TABLE profiles ADD COLUMN value_sources jsonb NOT NULL DEFAULT '{}'::jsonb;
    COMMENT ON COLUMN profiles.value_sources IS 'Per property, the id of the platform through whose onboarding the person gave the value';
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE profiles DROP COLUMN value_sources;
    DROP INDEX onboarding_values_shared_from_platform_id_idx;
    ALTER TABLE onboarding_values DROP CONSTRAINT onboarding_values_shared_from;
    ALTER TABLE onboarding_values DROP COLUMN shared_from_platform_id;
    ALTER TABLE onboarding_values DROP COLUMN shared;
    COMMENT ON TABLE onboarding_values IS 'Platform-scoped CUSTOM_FIELD values of a user';
    ALTER TABLE onboarding_fields DROP CONSTRAINT onboarding_fields_sharing_profile_bound;
    ALTER TABLE onboarding_fields DROP COLUMN sharing;
  `);
}
