import type { Knex } from 'knex';

/**
 * An index on every foreign-key column that had none (issue 13 §3). Without them, deleting a
 * session or a platform row made PostgreSQL scan each referencing table to check the key: the
 * purge took 44 s for 6,000 sessions. test/db/maintenance.test.ts keeps every future foreign key
 * indexed too. Audit events keep their actor after the user goes (ON DELETE SET NULL), which
 * is also a lookup by that column.
 */
const INDEXES: ReadonlyArray<readonly [table: string, column: string]> = [
  ['auth_transactions', 'platform_id'],
  ['auth_transactions', 'session_id'],
  ['auth_transactions', 'user_id'],
  ['handoff_codes', 'platform_id'],
  ['handoff_codes', 'session_id'],
  ['handoff_codes', 'user_id'],
  ['audit_events', 'actor_user_id'],
  ['backchannel_logout_give_ups', 'platform_id'],
];

const indexName = (table: string, column: string) => `${table}_${column}_idx`;

export async function up(knex: Knex): Promise<void> {
  for (const [table, column] of INDEXES) {
    await knex.raw(`CREATE INDEX IF NOT EXISTS ${indexName(table, column)} ON ${table} (${column})`);
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const [table, column] of INDEXES) await knex.raw(`DROP INDEX IF EXISTS ${indexName(table, column)}`);
}
