import type { Knex } from 'knex';

/**
 * Support access (issue 35, attack review): an administrator (platforms:admin) revoking a
 * support session is neither the person nor the operator: `end_reason = 'administrator'`.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE support_access DROP CONSTRAINT support_access_end_reason_check;
    ALTER TABLE support_access ADD CONSTRAINT support_access_end_reason_check CHECK (end_reason IN ('operator', 'person', 'expired', 'platform', 'administrator'));
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    UPDATE support_access SET end_reason = 'person' WHERE end_reason = 'administrator';
    ALTER TABLE support_access DROP CONSTRAINT support_access_end_reason_check;
    ALTER TABLE support_access ADD CONSTRAINT support_access_end_reason_check CHECK (end_reason IN ('operator', 'person', 'expired', 'platform'));
  `);
}
