import type { Knex } from 'knex';

/**
 * Issue 26 (data rights): exports of a person's data ("download my data") and the time of the
 * person's latest sign-in to each platform ("apps with my data").
 *
 * - `data_exports`: one row per export, with its single-use download link (the SHA-256 of its
 *   token, never the token) and its lifetime; the purge deletes it once it expires.
 * - `data_export_chunks`: the document itself, in chunks of at most 256 KiB written in order as
 *   the job streams it (PostgreSQL is the store, as for avatars), so neither writing nor
 *   reading it holds the whole document in memory. They go with their export (ON DELETE CASCADE).
 * - `platform_memberships.last_signed_in_at`: set by the callback's existing membership upsert
 *   (no extra statement on the login path).
 * - an index on `audit_events.session_id`: the export reads the events about a person's sessions.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE data_exports (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'ready', 'failed')),
      requested_at timestamptz NOT NULL DEFAULT now(),
      completed_at timestamptz,
      expires_at timestamptz NOT NULL,
      byte_size bigint CHECK (byte_size >= 0),
      link_digest bytea UNIQUE CHECK (octet_length(link_digest) = 32),
      link_expires_at timestamptz,
      downloaded_at timestamptz,
      CONSTRAINT data_exports_link_complete CHECK ((link_digest IS NULL) = (link_expires_at IS NULL))
    );
    COMMENT ON TABLE data_exports IS 'Exports of a person''s data (download my data); deleted by the purge once expired';
    COMMENT ON COLUMN data_exports.link_digest IS 'SHA-256 of the current single-use download link token; cleared by the statement that spends it';
    COMMENT ON COLUMN data_exports.expires_at IS 'When the purge deletes the export and its document';
    CREATE INDEX data_exports_user ON data_exports (user_id, requested_at DESC);
    CREATE INDEX data_exports_expiry ON data_exports (expires_at);

    CREATE TABLE data_export_chunks (
      export_id uuid NOT NULL REFERENCES data_exports (id) ON DELETE CASCADE,
      seq integer NOT NULL CHECK (seq >= 0),
      bytes bytea NOT NULL CHECK (octet_length(bytes) BETWEEN 1 AND 262144),
      PRIMARY KEY (export_id, seq)
    );
    COMMENT ON TABLE data_export_chunks IS 'The JSON document of a data export, in order, in chunks of at most 256 KiB';

    ALTER TABLE platform_memberships ADD COLUMN last_signed_in_at timestamptz;
    UPDATE platform_memberships SET last_signed_in_at = updated_at;
    ALTER TABLE platform_memberships ALTER COLUMN last_signed_in_at SET DEFAULT now(), ALTER COLUMN last_signed_in_at SET NOT NULL;
    COMMENT ON COLUMN platform_memberships.last_signed_in_at IS 'The person''s latest sign-in to the platform (the login callback)';

    CREATE INDEX audit_events_session_id_idx ON audit_events (session_id) WHERE session_id IS NOT NULL;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP INDEX audit_events_session_id_idx;
    ALTER TABLE platform_memberships DROP COLUMN last_signed_in_at;
    DROP TABLE data_export_chunks;
    DROP TABLE data_exports;
  `);
}
