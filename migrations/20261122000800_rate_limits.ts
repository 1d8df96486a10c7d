import type { Knex } from 'knex';

/**
 * Rate-limit counters shared by every instance of the gateway (rate-limiter-flexible's
 * PostgreSQL store, created here rather than by the library at run time): the password
 * change allows 5 attempts a minute per user. The columns are the ones the library reads
 * and writes: `key` is `<prefix>:<digest of the subject>`, `expire` milliseconds since
 * the epoch. Expired rows are removed by the library every few minutes.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE rate_limits (
      key varchar(255) PRIMARY KEY,
      points integer NOT NULL DEFAULT 0,
      expire bigint
    );
    COMMENT ON TABLE rate_limits IS 'Rate-limit counters (rate-limiter-flexible, PostgreSQL store), shared by every gateway instance';
    COMMENT ON COLUMN rate_limits.key IS '<limit>:<digest of the subject>, e.g. password_change:…';
    COMMENT ON COLUMN rate_limits.expire IS 'End of the current window, milliseconds since the epoch';
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE rate_limits');
}
