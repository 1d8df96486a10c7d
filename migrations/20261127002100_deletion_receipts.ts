import type { Knex } from 'knex';

/**
 * The deletion receipt (issue 26): the digest of a random value set as a cookie in the browser
 * that deleted the account, with which that browser follows which platforms acknowledged the
 * deletion event during the retention period. Cleared by the purge with the rest of the data.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE users ADD COLUMN deletion_receipt_digest bytea;
    COMMENT ON COLUMN users.deletion_receipt_digest IS 'SHA-256 of the deletion receipt cookie (getAccountDeletion); cleared at the purge';
    CREATE UNIQUE INDEX users_deletion_receipt ON users (deletion_receipt_digest) WHERE deletion_receipt_digest IS NOT NULL;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`DROP INDEX users_deletion_receipt; ALTER TABLE users DROP COLUMN deletion_receipt_digest;`);
}
