import type { Knex } from 'knex';

/** Platform memberships, onboarding field definitions and values. */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE platform_memberships (
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      platform_id uuid NOT NULL REFERENCES platforms (id),
      completed_requirement_version integer,
      completed_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (user_id, platform_id)
    );
    COMMENT ON TABLE platform_memberships IS 'A user''s membership of a platform, bootstrapped at login; holds onboarding completion';
    COMMENT ON COLUMN platform_memberships.completed_requirement_version IS 'Requirement version the user completed; COMPLETE only while it equals the platform''s current one';

    CREATE TABLE onboarding_fields (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      platform_id uuid NOT NULL REFERENCES platforms (id),
      field_key text NOT NULL CHECK (field_key ~ '^[A-Za-z][A-Za-z0-9_]{1,63}$'),
      label text NOT NULL CHECK (char_length(label) BETWEEN 1 AND 200),
      field_type text NOT NULL CHECK (field_type IN ('TEXT','TEXTAREA','NUMBER','BOOLEAN','DATE','SELECT','MULTI_SELECT','COUNTRY','PHONE','EMAIL','URL')),
      source text NOT NULL DEFAULT 'CUSTOM_FIELD' CHECK (source IN ('CUSTOM_FIELD', 'PROFILE_FIELD')),
      profile_field text CHECK (profile_field IN ('firstName','lastName','displayName','dateOfBirth','phone','country')),
      required boolean NOT NULL DEFAULT false,
      sort_order integer NOT NULL DEFAULT 0,
      options jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(options) = 'array'),
      validation jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(validation) = 'object'),
      ui_config jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(ui_config) = 'object'),
      placeholder text,
      description text,
      archived_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT onboarding_fields_key_unique UNIQUE (platform_id, field_key),
      CONSTRAINT onboarding_fields_profile_binding
        CHECK ((source = 'PROFILE_FIELD') = (profile_field IS NOT NULL)),
      CONSTRAINT onboarding_fields_select_options
        CHECK (field_type NOT IN ('SELECT', 'MULTI_SELECT') OR jsonb_array_length(options) > 0)
    );
    COMMENT ON TABLE onboarding_fields IS 'Per-platform onboarding field definitions; archived ones keep their values';
    COMMENT ON COLUMN onboarding_fields.field_key IS 'Immutable key, unique per platform';
    CREATE INDEX onboarding_fields_active ON onboarding_fields (platform_id, sort_order) WHERE archived_at IS NULL;

    CREATE TABLE onboarding_values (
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      platform_id uuid NOT NULL REFERENCES platforms (id),
      field_key text NOT NULL,
      value jsonb NOT NULL,
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (user_id, platform_id, field_key)
    );
    COMMENT ON TABLE onboarding_values IS 'Platform-scoped CUSTOM_FIELD values of a user';
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE onboarding_values; DROP TABLE onboarding_fields; DROP TABLE platform_memberships;');
}
