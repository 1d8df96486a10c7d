import type { Knex } from 'knex';

/**
 * Back-channel logout out to platforms: the outbox itself is graphile-worker's job queue (its
 * schema `graphile_worker`, installed by its own migrations, which migrateLatest runs after
 * ours); this table records the deliveries that gave up after their last attempt, for
 * operators (and an error log line each).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE backchannel_logout_give_ups (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      session_id uuid NOT NULL,
      platform_id uuid NOT NULL REFERENCES platforms (id),
      user_id uuid NOT NULL,
      url text NOT NULL CHECK (char_length(url) <= 2048),
      attempts integer NOT NULL CHECK (attempts >= 1),
      last_error text NOT NULL CHECK (char_length(last_error) <= 1000),
      enqueued_at timestamptz NOT NULL,
      gave_up_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (session_id, platform_id)
    );
    COMMENT ON TABLE backchannel_logout_give_ups IS 'Back-channel logouts to platforms that failed on every attempt: the platform was not told that the session ended';
    COMMENT ON COLUMN backchannel_logout_give_ups.session_id IS 'The ended gateway session (the logout token sid); no foreign key, ended sessions are purged';
    COMMENT ON COLUMN backchannel_logout_give_ups.user_id IS 'The local user id (the logout token sub)';
    COMMENT ON COLUMN backchannel_logout_give_ups.url IS 'The backchannelLogoutUrl the last attempt was posted to';
    COMMENT ON COLUMN backchannel_logout_give_ups.last_error IS 'Why the last attempt failed (status answered, timeout, connection error)';
    COMMENT ON COLUMN backchannel_logout_give_ups.enqueued_at IS 'When the session ended and the delivery was queued';
    CREATE INDEX backchannel_logout_give_ups_recent ON backchannel_logout_give_ups (gave_up_at DESC);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`DROP TABLE backchannel_logout_give_ups`);
}
