import type { Knex } from 'knex';

/**
 * Per platform: whether a login must be started with a `handoffChallenge` (the RFC 7636
 * pattern binding the handoff code to the back end that started the login). Without it an
 * attacker can start a login of his own, stop at the platform callback with his handoff code
 * and send that link to a victim, whose browser then lands in the attacker's session (login
 * CSRF). On for every existing platform and by default for new ones; an operator turns it off
 * only for a platform whose back end cannot send a challenge yet.
 */
export async function up(knex: Knex): Promise<void> {
  // The default fills every existing row: existing platforms require the challenge too.
  await knex.raw(`ALTER TABLE platforms ADD COLUMN handoff_challenge_required boolean NOT NULL DEFAULT true`);
  await knex.raw(
    `COMMENT ON COLUMN platforms.handoff_challenge_required IS 'Starts without handoffChallenge are refused (HANDOFF_CHALLENGE_REQUIRED); off only for a back end that cannot send one yet'`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE platforms DROP COLUMN IF EXISTS handoff_challenge_required`);
}
