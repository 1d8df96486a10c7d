import type { Knex } from 'knex';

/**
 * Which fields a grace covers (issue 36 review). A grace belongs to a requirement version, but
 * a person in grace who empties a required field that was already in force before that
 * version (through the profile page, or another platform's form binding the same property)
 * must block as before: the grace covers only what the change asked for anew.
 * `onboarding_fields.requirement_version` is the version whose change made the field ask for
 * something a person may not have yet: its creation, `required` turned on, or a new binding
 * (`source`, `profileField`, `sharing`: the value is read from elsewhere). NULL: before this
 * column, in force.
 *
 * Backfill: a field change and the version it raised (with its requirement_graces row) share
 * one transaction, so `now()` is the same for both: a field whose last change was a change in
 * grace gets that version (a label change included: lenient for the fields changed in grace
 * before this migration only). Every other field is in force.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE onboarding_fields ADD COLUMN requirement_version integer;
    COMMENT ON COLUMN onboarding_fields.requirement_version IS 'The platform requirement version whose change made this field ask for something new (created, made required, rebound); NULL: in force since before issue 36';
    UPDATE onboarding_fields f SET requirement_version = g.requirement_version
      FROM requirement_graces g
     WHERE g.platform_id = f.platform_id AND g.created_at = f.updated_at;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE onboarding_fields DROP COLUMN requirement_version');
}
