import type { Knex } from 'knex';

/**
 * Issue 10 (account deletion): a deleted user stays as a tombstone (its `sub` keeps a later
 * login from quietly creating a new user), the identity-provider deactivation is retried
 * until it succeeds, and the purge after the retention period is recorded.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE users
      ADD COLUMN idp_deactivated_at timestamptz,
      ADD COLUMN purged_at timestamptz;
    COMMENT ON COLUMN users.idp_deactivated_at IS 'When the identity-provider account of a deleted user was deactivated';
    COMMENT ON COLUMN users.purged_at IS 'When the data of a deleted user was removed after ACCOUNT_RETENTION_DAYS';
    CREATE INDEX users_deleted ON users (deleted_at) WHERE deleted_at IS NOT NULL AND purged_at IS NULL;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP INDEX users_deleted;
    ALTER TABLE users DROP COLUMN purged_at, DROP COLUMN idp_deactivated_at;
  `);
}
