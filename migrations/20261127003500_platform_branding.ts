import type { Knex } from 'knex';

/**
 * Issue 27 (branding per platform): a platform may carry a primary colour (a `#rrggbb` that
 * passed the WCAG AA contrast check), names per language beside its default display name, and
 * a logo. The logo's bytes (a PNG re-encoded by the checked image pipeline) live in their own
 * row, like avatars kept in PostgreSQL, so every gateway instance serves them with no shared
 * disk; each upload has its own id (its URL is cached as immutable), and the platform row
 * names the current one. The three live on the platforms row because the login path already
 * reads that row (start, callback, way back): its error pages are branded without a query more.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE platform_logos (
      id uuid PRIMARY KEY,
      platform_id uuid NOT NULL REFERENCES platforms (id) ON DELETE CASCADE,
      media_type text NOT NULL CHECK (media_type IN ('image/png')),
      image bytea NOT NULL,
      width integer NOT NULL CHECK (width > 0),
      height integer NOT NULL CHECK (height > 0),
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX platform_logos_platform_id ON platform_logos (platform_id);
    COMMENT ON TABLE platform_logos IS 'Platform logos (re-encoded PNG, bounded, no metadata); the platform row names the current one';
    ALTER TABLE platforms
      ADD COLUMN brand_color text CHECK (brand_color ~ '^#[0-9a-f]{6}$'),
      ADD COLUMN display_names jsonb NOT NULL DEFAULT '{}'::jsonb CHECK (jsonb_typeof(display_names) = 'object'),
      ADD COLUMN logo_id uuid REFERENCES platform_logos (id) ON DELETE SET NULL;
    CREATE INDEX platforms_logo_id ON platforms (logo_id) WHERE logo_id IS NOT NULL;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE platforms DROP COLUMN logo_id, DROP COLUMN display_names, DROP COLUMN brand_color;
    DROP TABLE platform_logos;
  `);
}
