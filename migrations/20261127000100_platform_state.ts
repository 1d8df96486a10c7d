import type { Knex } from 'knex';

/**
 * The platform's correlation value of a login (`platformState` at start, issue 24): an opaque
 * value its back end sends so that it can tell which of its logins in flight (tabs, devices,
 * retries) a handoff code belongs to, handed back beside the code on the redirect to the
 * platform's registered callback, as OAuth's `state` is to a client. Sealed with the key ring
 * (AES-256-GCM, bound to the transaction id), never stored in the clear: it is returned, so it
 * cannot be a digest. Kept after the callback (unlike the PKCE verifier), because the resume
 * after central onboarding hands it back too; it goes with the row when the row is purged.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE auth_transactions ADD COLUMN platform_state_sealed text');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE auth_transactions DROP COLUMN IF EXISTS platform_state_sealed');
}
