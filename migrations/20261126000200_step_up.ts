import type { Knex } from 'knex';

/**
 * Fresh sign-in and step-up (OpenID Connect Core 1.0 §3.1.2.1 `max_age`, `prompt=login`,
 * `acr_values`; §2 `auth_time`, `amr`, `acr`; RFC 8176 amr values; RFC 9470 step-up):
 * - a login transaction remembers what its platform asked for: a maximum age of the
 *   authentication, a sign-in regardless of the provider's session, a second factor, and, for a
 *   step-up of an existing session, the subject who must sign in;
 * - a gateway session remembers when and how its person authenticated, for the exchange.
 * Every column rides in a statement that already exists (the start's insert, the callback's
 * consume and session insert, the exchange's redeem): no round trip is added.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE auth_transactions
      ADD COLUMN max_age_seconds integer CHECK (max_age_seconds >= 0),
      ADD COLUMN force_login boolean NOT NULL DEFAULT false,
      ADD COLUMN second_factor_required boolean NOT NULL DEFAULT false,
      ADD COLUMN step_up_sub text CHECK (char_length(step_up_sub) <= 255);
    COMMENT ON COLUMN auth_transactions.max_age_seconds IS 'The platform asked for an authentication at most this old (OIDC max_age); checked against auth_time at the callback';
    COMMENT ON COLUMN auth_transactions.force_login IS 'The platform asked for a sign-in regardless of the provider session (OIDC prompt=login)';
    COMMENT ON COLUMN auth_transactions.second_factor_required IS 'The platform asked for a second factor; the ID token amr must show one (OIDC_SECOND_FACTOR_AMR)';
    COMMENT ON COLUMN auth_transactions.step_up_sub IS 'A step-up of an existing session: only this subject may complete the login';

    ALTER TABLE gateway_sessions
      ADD COLUMN auth_time timestamptz,
      ADD COLUMN amr text[],
      ADD COLUMN acr text;
    COMMENT ON COLUMN gateway_sessions.auth_time IS 'When the person authenticated at the provider (ID token auth_time), when it said';
    COMMENT ON COLUMN gateway_sessions.amr IS 'How the person authenticated (ID token amr, RFC 8176), when it said';
    COMMENT ON COLUMN gateway_sessions.acr IS 'The authentication context class the provider reported (ID token acr), when it did';
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE gateway_sessions DROP COLUMN acr, DROP COLUMN amr, DROP COLUMN auth_time;
    ALTER TABLE auth_transactions
      DROP COLUMN step_up_sub, DROP COLUMN second_factor_required, DROP COLUMN force_login, DROP COLUMN max_age_seconds;
  `);
}
