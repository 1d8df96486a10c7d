import type { Knex } from 'knex';

/**
 * Issue 10 (avatars): signed, single-use upload tickets and the published pictures.
 * Pictures of the PostgreSQL store keep their bytes in the row; those of the object store
 * keep only the row (the object is `avatars/{id}.webp` in the bucket).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE avatar_upload_tickets (
      id uuid PRIMARY KEY,
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      avatar_id uuid NOT NULL UNIQUE,
      store text NOT NULL CHECK (store IN ('postgres', 's3')),
      content_type text NOT NULL CHECK (content_type IN ('image/png', 'image/jpeg', 'image/webp')),
      content_length integer NOT NULL CHECK (content_length BETWEEN 1 AND 5242880),
      created_at timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz NOT NULL,
      used_at timestamptz
    );
    COMMENT ON TABLE avatar_upload_tickets IS 'Avatar upload tickets: signed upload URLs, usable once until they expire';
    COMMENT ON COLUMN avatar_upload_tickets.avatar_id IS 'Id of the picture the upload publishes (announced as pictureUrl with the ticket)';
    COMMENT ON COLUMN avatar_upload_tickets.store IS 'Where the bytes go: the gateway''s own upload URL (postgres) or a presigned object-store PUT (s3)';
    COMMENT ON COLUMN avatar_upload_tickets.used_at IS 'Set by the one statement that spends the ticket';
    CREATE INDEX avatar_upload_tickets_user ON avatar_upload_tickets (user_id);
    CREATE INDEX avatar_upload_tickets_expires ON avatar_upload_tickets (expires_at);

    CREATE TABLE avatars (
      id uuid PRIMARY KEY,
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      store text NOT NULL CHECK (store IN ('postgres', 's3')),
      image bytea CHECK (octet_length(image) BETWEEN 1 AND 2097152),
      width integer NOT NULL CHECK (width BETWEEN 1 AND 512),
      height integer NOT NULL CHECK (height BETWEEN 1 AND 512),
      created_at timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT avatars_image_in_postgres CHECK ((store = 'postgres') = (image IS NOT NULL))
    );
    COMMENT ON TABLE avatars IS 'Published avatars (re-encoded WebP, at most 512x512, no metadata); one per user';
    COMMENT ON COLUMN avatars.image IS 'The WebP bytes (PostgreSQL store); null when the picture lives in the object store';
    CREATE INDEX avatars_user ON avatars (user_id);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE avatars; DROP TABLE avatar_upload_tickets;');
}
