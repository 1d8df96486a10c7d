import type { Knex } from 'knex';

/**
 * Issue 27 (languages): a platform may name the language its pages fall back to when neither
 * the person's profile nor the browser's Accept-Language picks one. It lives on the platforms
 * row because the login path already reads that row: its error pages need no query more.
 * The tag's form is checked by the registry service against the contract's schema.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE platforms ADD COLUMN default_language text CHECK (char_length(default_language) <= 35);
    COMMENT ON COLUMN platforms.default_language IS 'BCP 47 language tag the platform''s pages fall back to; null: English';
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE platforms DROP COLUMN default_language');
}
