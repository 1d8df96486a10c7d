import type { Knex } from 'knex';

/**
 * Support access (issue 35, attack review): every end of an access is audited
 * `support_access.end` with who ended it (`ended_by`), including the ends nobody asked for
 * through the end operations: by time (the purge), with its session, by its platform's
 * settings. Those are recorded by the gateway itself (`actor_type = 'system'`); the human who
 * caused them, if any, is on that operation's own event (`session.revoke`, `platform.update`).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE audit_events ADD COLUMN ended_by text
      CHECK (ended_by IN ('operator', 'person', 'expired', 'platform', 'administrator'));
    ALTER TABLE audit_events DROP CONSTRAINT IF EXISTS audit_events_actor_type_check;
    ALTER TABLE audit_events ADD CONSTRAINT audit_events_actor_type_check CHECK (actor_type IN ('user', 'cli', 'devstack', 'system'));
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    UPDATE audit_events SET actor_type = 'cli' WHERE actor_type = 'system';
    ALTER TABLE audit_events DROP CONSTRAINT IF EXISTS audit_events_actor_type_check;
    ALTER TABLE audit_events ADD CONSTRAINT audit_events_actor_type_check CHECK (actor_type IN ('user', 'cli', 'devstack'));
    ALTER TABLE audit_events DROP COLUMN ended_by;
  `);
}
