import type { Knex } from 'knex';

/**
 * Support access (issue 35, attack review): an access also ends when its platform is made
 * sensitive or stops opting in while it runs (`end_reason = 'platform'`): the running session
 * ends at once rather than at its time.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE support_access DROP CONSTRAINT support_access_end_reason_check;
    ALTER TABLE support_access ADD CONSTRAINT support_access_end_reason_check CHECK (end_reason IN ('operator', 'person', 'expired', 'platform'));
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    UPDATE support_access SET end_reason = 'operator' WHERE end_reason = 'platform';
    ALTER TABLE support_access DROP CONSTRAINT support_access_end_reason_check;
    ALTER TABLE support_access ADD CONSTRAINT support_access_end_reason_check CHECK (end_reason IN ('operator', 'person', 'expired'));
  `);
}
