import type { Knex } from 'knex';

/**
 * Sessions whose login never reached a platform (the handoff code expired unexchanged, the
 * cookie was never used because a newer login in the same browser replaced it) end on their
 * own, with the end reason `unreached`: the account center's list then shows only sign-ins the
 * person recognises. The partial index keeps the purge's search for them a range scan over the
 * few live, never-used sessions instead of the whole table.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE gateway_sessions DROP CONSTRAINT gateway_sessions_end_reason_check;
    ALTER TABLE gateway_sessions ADD CONSTRAINT gateway_sessions_end_reason_check
      CHECK (end_reason IN ('sign_out', 'provider_logout', 'revoked', 'account_deleted', 'expired', 'idle', 'unreached'));
    CREATE INDEX gateway_sessions_never_used ON gateway_sessions (created_at) WHERE ended_at IS NULL AND last_used_at = created_at;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP INDEX IF EXISTS gateway_sessions_never_used;
    UPDATE gateway_sessions SET end_reason = 'revoked' WHERE end_reason = 'unreached';
    ALTER TABLE gateway_sessions DROP CONSTRAINT gateway_sessions_end_reason_check;
    ALTER TABLE gateway_sessions ADD CONSTRAINT gateway_sessions_end_reason_check
      CHECK (end_reason IN ('sign_out', 'provider_logout', 'revoked', 'account_deleted', 'expired', 'idle'));
  `);
}
