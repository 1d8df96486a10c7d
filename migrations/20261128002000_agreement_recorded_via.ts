import type { Knex } from 'knex';

/**
 * Who recorded each acceptance and withdrawal (issue 37): the person through their browser
 * session (the account center), a Bearer access token (an app of the identity provider acting
 * as the person), or a platform's own credential (a `platform`-mode platform recording what the
 * person did on its own pages; always the record's own platform, as a platform credential acts
 * on its own platform only). The audit log says the same of every change made through the API
 * (`actor_via`, and `actor_platform_key` for a platform's credential).
 *
 * agreement_records is append-only (20261127001000: a row trigger refuses every UPDATE;
 * 20261127005100: TRUNCATE is refused), and this migration keeps it so: ADD COLUMN without a
 * default rewrites and updates no row (no trigger fires), so the rows recorded before keep
 * `recorded_via` NULL, "not recorded". That is the truth, not a gap to fill: before this change
 * the three ways wrote identical rows (a platform credential carries its gateway session's id,
 * so even `session_id` cannot tell it from the person's own browser), and a guess written into
 * a record meant as proof would be worse than saying it was not kept. The NOT NULL rule for new
 * rows is a CHECK added NOT VALID: PostgreSQL enforces it on every insert from now on without
 * checking (or touching) the existing rows. Old audit rows keep `actor_via` NULL the same way.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE agreement_records ADD COLUMN recorded_via text CHECK (recorded_via IN ('session', 'bearer', 'platform'));
    ALTER TABLE agreement_records ADD CONSTRAINT agreement_records_recorded_via_required CHECK (recorded_via IS NOT NULL) NOT VALID;
    COMMENT ON COLUMN agreement_records.recorded_via IS
      'Who recorded it: session (the person''s browser), bearer (an access token of the person), platform (the record''s platform''s own credential); NULL: recorded before this was kept';

    ALTER TABLE audit_events ADD COLUMN actor_via text CHECK (actor_via IN ('session', 'bearer', 'platform'));
    ALTER TABLE audit_events ADD COLUMN actor_platform_key text;
    ALTER TABLE audit_events ADD CONSTRAINT audit_events_actor_platform CHECK ((actor_via = 'platform') = (actor_platform_key IS NOT NULL));
    COMMENT ON COLUMN audit_events.actor_via IS 'For an API caller: the credential used (session, bearer, platform); NULL for the CLI, the dev stack and rows from before it was kept';
    COMMENT ON COLUMN audit_events.actor_platform_key IS 'The platform whose own credential made the change (actor_via platform)';
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE audit_events DROP CONSTRAINT audit_events_actor_platform;
    ALTER TABLE audit_events DROP COLUMN actor_platform_key;
    ALTER TABLE audit_events DROP COLUMN actor_via;
    ALTER TABLE agreement_records DROP CONSTRAINT agreement_records_recorded_via_required;
    ALTER TABLE agreement_records DROP COLUMN recorded_via;
  `);
}
