import type { Knex } from 'knex';

/**
 * Onboarding field definitions carry their texts in other languages (issue 27): a JSON object
 * by language tag, each with an optional label, placeholder, description, help text and option
 * labels. Existing definitions get `{}` (no translation: the default texts, as before). The
 * service checks the shape; the constraint keeps anything but an object out.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE onboarding_fields ADD COLUMN translations jsonb NOT NULL DEFAULT '{}'::jsonb
      CONSTRAINT onboarding_fields_translations_object CHECK (jsonb_typeof(translations) = 'object');
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE onboarding_fields DROP COLUMN translations');
}
