import type { Knex } from 'knex';

/** Append-only audit log of administrative changes. */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE audit_events (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      occurred_at timestamptz NOT NULL DEFAULT clock_timestamp(),
      action text NOT NULL CHECK (action ~ '^[a-z_]+\\.[a-z_]+$'),
      platform_key text NOT NULL,
      actor_type text NOT NULL CHECK (actor_type IN ('user', 'cli')),
      actor_user_id uuid REFERENCES users (id),
      actor_sub text,
      changed_fields text[] NOT NULL DEFAULT '{}',
      request_id text
    );
    COMMENT ON TABLE audit_events IS 'Who changed what in the registry and onboarding schema, and when; never holds secrets';
    COMMENT ON COLUMN audit_events.changed_fields IS 'Names of the fields a change touched (never their values)';
    CREATE INDEX audit_events_recent ON audit_events (occurred_at DESC, id DESC);
    CREATE INDEX audit_events_platform ON audit_events (platform_key, occurred_at DESC);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE audit_events;');
}
