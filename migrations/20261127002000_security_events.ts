import type { Knex } from 'knex';

/**
 * Security Event Tokens to platforms (RFC 8417; push RFC 8935, poll RFC 8936).
 *
 * - platforms.event_delivery / event_receiver_url: how a platform receives events ('none': not
 *   at all, the default; 'push': POSTed to event_receiver_url; 'poll': fetched by the platform).
 * - security_events: one row per (event, platform), the delivery record. Its id is the SET's
 *   `jti`. The token itself is never stored: it is signed when it is sent (push) or handed out
 *   (poll), from the row, so no signed token sits in the database. The payload holds only what
 *   the event says (field names, dates), never profile values.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE platforms
      ADD COLUMN event_delivery text NOT NULL DEFAULT 'none' CHECK (event_delivery IN ('none', 'push', 'poll')),
      ADD COLUMN event_receiver_url text CHECK (char_length(event_receiver_url) <= 2048),
      ADD CONSTRAINT platforms_push_needs_receiver CHECK (event_delivery <> 'push' OR event_receiver_url IS NOT NULL);
    COMMENT ON COLUMN platforms.event_delivery IS 'How the platform receives Security Event Tokens: none, push (RFC 8935) or poll (RFC 8936)';
    COMMENT ON COLUMN platforms.event_receiver_url IS 'Where pushed Security Event Tokens are POSTed (RFC 8935)';

    CREATE TABLE security_events (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      platform_id uuid NOT NULL REFERENCES platforms (id),
      user_id uuid NOT NULL,
      event_type text NOT NULL CHECK (char_length(event_type) <= 200),
      payload jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(payload) = 'object'),
      mode text NOT NULL CHECK (mode IN ('push', 'poll')),
      status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
      attempts integer NOT NULL DEFAULT 0,
      error_code text CHECK (char_length(error_code) <= 200),
      last_error text CHECK (char_length(last_error) <= 1000),
      occurred_at timestamptz NOT NULL DEFAULT now(),
      created_at timestamptz NOT NULL DEFAULT now(),
      delivered_at timestamptz,
      failed_at timestamptz
    );
    COMMENT ON TABLE security_events IS 'Security Event Tokens for platforms: one row per event and platform, the delivery record (id is the SET jti)';
    COMMENT ON COLUMN security_events.user_id IS 'The person the event is about (the SET sub, the local user id); no foreign key: the record outlives the erasure';
    COMMENT ON COLUMN security_events.mode IS 'push or poll, as the platform was registered when the event was recorded';
    COMMENT ON COLUMN security_events.status IS 'pending; delivered (push answered 202, poll acknowledged); failed (push 400 or given up, poll setErrs)';
    COMMENT ON COLUMN security_events.error_code IS 'The err code of a push 400 or a poll setErrs entry (RFC 8935 §2.3)';
    CREATE INDEX security_events_pending ON security_events (platform_id, created_at) WHERE status = 'pending';
    CREATE INDEX security_events_by_platform ON security_events (platform_id, created_at DESC);
    CREATE INDEX security_events_by_user ON security_events (user_id);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP TABLE security_events;
    ALTER TABLE platforms DROP CONSTRAINT platforms_push_needs_receiver, DROP COLUMN event_receiver_url, DROP COLUMN event_delivery;
  `);
}
