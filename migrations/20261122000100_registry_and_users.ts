import type { Knex } from 'knex';

/** Platform registry, local users and their canonical profiles. */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE platforms (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      platform_key text NOT NULL UNIQUE CHECK (platform_key ~ '^[A-Z][A-Z0-9_]{1,63}$'),
      display_name text NOT NULL CHECK (char_length(display_name) BETWEEN 1 AND 200),
      callback_url text CHECK (char_length(callback_url) <= 2048),
      allowed_return_urls text[] NOT NULL DEFAULT '{}',
      default_onboarding_mode text NOT NULL DEFAULT 'central' CHECK (default_onboarding_mode IN ('none', 'platform', 'central')),
      central_onboarding_enabled boolean NOT NULL DEFAULT true,
      platform_onboarding_path text CHECK (platform_onboarding_path LIKE '/%'),
      metadata jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(metadata) = 'object'),
      client_id text UNIQUE,
      client_secret_digest bytea CHECK (octet_length(client_secret_digest) = 32),
      credentials_rotated_at timestamptz,
      requirement_version integer NOT NULL DEFAULT 1 CHECK (requirement_version >= 1),
      active boolean NOT NULL DEFAULT false,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT platforms_central_needs_enabled
        CHECK (default_onboarding_mode <> 'central' OR central_onboarding_enabled),
      CONSTRAINT platforms_active_is_complete
        CHECK (NOT active OR (callback_url IS NOT NULL AND cardinality(allowed_return_urls) > 0
                              AND client_id IS NOT NULL AND client_secret_digest IS NOT NULL))
    );
    COMMENT ON TABLE platforms IS 'Registry of platforms whose logins the gateway brokers';
    COMMENT ON COLUMN platforms.platform_key IS 'Stable public identity of the platform (start query, paths)';
    COMMENT ON COLUMN platforms.callback_url IS 'Platform BFF handoff endpoint; the only place a handoff code is sent';
    COMMENT ON COLUMN platforms.allowed_return_urls IS 'Absolute URL roots that returnTo must fall under';
    COMMENT ON COLUMN platforms.client_secret_digest IS 'SHA-256 of the platform client secret; the secret itself is never stored';
    COMMENT ON COLUMN platforms.requirement_version IS 'Incremented on every create, update or archive of an onboarding field definition';
    COMMENT ON COLUMN platforms.active IS 'Soft deactivation flag; an active platform has a callback, a return root and credentials';

    CREATE TABLE users (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      sub text NOT NULL UNIQUE CHECK (char_length(sub) BETWEEN 1 AND 255),
      email text,
      email_verified boolean NOT NULL DEFAULT false,
      display_name text,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      last_login_at timestamptz,
      deleted_at timestamptz
    );
    COMMENT ON TABLE users IS 'Local users, provisioned just in time at the login callback';
    COMMENT ON COLUMN users.sub IS 'Subject identifier at the identity provider';
    COMMENT ON COLUMN users.deleted_at IS 'Soft deletion time (DELETE /v1/account/me)';

    CREATE TABLE profiles (
      user_id uuid PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
      first_name text CHECK (char_length(first_name) <= 200),
      last_name text CHECK (char_length(last_name) <= 200),
      display_name text CHECK (char_length(display_name) <= 200),
      date_of_birth date,
      phone text CHECK (phone ~ '^\\+[1-9][0-9]{6,14}$'),
      country text CHECK (country ~ '^[A-Z]{2}$'),
      locale text CHECK (char_length(locale) <= 35),
      picture_url text,
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    COMMENT ON TABLE profiles IS 'Canonical profile of a user; PROFILE_FIELD onboarding values are written here';
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE profiles; DROP TABLE users; DROP TABLE platforms;');
}
