import type { Knex } from 'knex';

/**
 * Audit events of the dev stack's seeding are recorded as actor `devstack`, not as an
 * operator's `cli` action (issue 14 §1).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE audit_events DROP CONSTRAINT IF EXISTS audit_events_actor_type_check`);
  await knex.raw(`ALTER TABLE audit_events ADD CONSTRAINT audit_events_actor_type_check CHECK (actor_type IN ('user', 'cli', 'devstack'))`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`UPDATE audit_events SET actor_type = 'cli' WHERE actor_type = 'devstack'`);
  await knex.raw(`ALTER TABLE audit_events DROP CONSTRAINT IF EXISTS audit_events_actor_type_check`);
  await knex.raw(`ALTER TABLE audit_events ADD CONSTRAINT audit_events_actor_type_check CHECK (actor_type IN ('user', 'cli'))`);
}
