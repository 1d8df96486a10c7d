import type { Knex } from 'knex';

/**
 * The handoff challenges that step-ups were issued for (POST /v1/auth/step-up, issue 37). A
 * step-up's start URL carries its `stepUp` token beside the platform's `handoffChallenge`; a
 * start that presents such a challenge without that token (someone at a signed-in browser who
 * removed `stepUp=` from the address, hoping for a plain single sign-on that the platform's
 * verifier would then exchange as if confirmed) is refused (`400 STEP_UP_TOKEN_MISSING`). The
 * start's own insert checks it (one `NOT EXISTS` on this primary key): no round trip is added.
 *
 * A row is written before the step-up's URL is answered, so it exists before anyone can see the
 * challenge; it is never consumed (an honest start does not remove it, so a second, stripped
 * start after it is refused too), and it stays for a day after the step-up token's expiry
 * (the purge's grace), longer than any platform keeps the verifier of a login in flight.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE step_up_challenges (
      handoff_challenge text NOT NULL CHECK (handoff_challenge ~ '^[A-Za-z0-9_-]{43}$'),
      platform_id uuid NOT NULL REFERENCES platforms (id) ON DELETE CASCADE,
      created_at timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz NOT NULL,
      PRIMARY KEY (handoff_challenge, platform_id)
    );
    CREATE INDEX step_up_challenges_platform_id_idx ON step_up_challenges (platform_id);
    CREATE INDEX step_up_challenges_expires_at_idx ON step_up_challenges (expires_at);
    COMMENT ON TABLE step_up_challenges IS 'Handoff challenges issued with a step-up token: a start with one of them must carry that token (STEP_UP_TOKEN_MISSING)';
    COMMENT ON COLUMN step_up_challenges.expires_at IS 'When the step-up token expires; the row is kept a day longer (the purge grace) and refuses stripped starts until it goes';
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE IF EXISTS step_up_challenges');
}
