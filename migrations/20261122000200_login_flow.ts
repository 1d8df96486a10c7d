import type { Knex } from 'knex';

/** Authentication transactions, gateway sessions and handoff codes. */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE auth_transactions (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      platform_id uuid NOT NULL REFERENCES platforms (id),
      state_digest bytea NOT NULL UNIQUE CHECK (octet_length(state_digest) = 32),
      nonce_digest bytea NOT NULL CHECK (octet_length(nonce_digest) = 32),
      pkce_verifier_sealed text,
      nonce_sealed text,
      onboarding_mode text NOT NULL CHECK (onboarding_mode IN ('none', 'platform', 'central')),
      platform_callback_url text NOT NULL,
      return_to text NOT NULL CHECK (char_length(return_to) <= 4096),
      user_id uuid REFERENCES users (id),
      session_id uuid,
      created_at timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz NOT NULL,
      consumed_at timestamptz,
      CONSTRAINT auth_transactions_secrets_until_consumed
        CHECK (consumed_at IS NOT NULL OR (pkce_verifier_sealed IS NOT NULL AND nonce_sealed IS NOT NULL))
    );
    COMMENT ON TABLE auth_transactions IS 'Login transactions: created by start, consumed exactly once by the callback';
    COMMENT ON COLUMN auth_transactions.state_digest IS 'SHA-256 of the OAuth state value; looked up by the callback';
    COMMENT ON COLUMN auth_transactions.nonce_digest IS 'SHA-256 of the OIDC nonce';
    COMMENT ON COLUMN auth_transactions.pkce_verifier_sealed IS 'AES-256-GCM sealed PKCE verifier; erased when consumed';
    COMMENT ON COLUMN auth_transactions.nonce_sealed IS 'AES-256-GCM sealed nonce; erased when consumed';
    COMMENT ON COLUMN auth_transactions.return_to IS 'Normalized absolute returnTo, checked against the allowlist at start';
    COMMENT ON COLUMN auth_transactions.user_id IS 'Local user attached by the callback';
    CREATE INDEX auth_transactions_expiry ON auth_transactions (expires_at) WHERE consumed_at IS NULL;

    CREATE TABLE gateway_sessions (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      user_id uuid NOT NULL REFERENCES users (id),
      token_digest bytea NOT NULL UNIQUE CHECK (octet_length(token_digest) = 32),
      token_sealed text,
      permissions text[] NOT NULL DEFAULT '{}'
        CHECK (permissions <@ ARRAY['platforms:admin', 'onboarding:schema:read', 'onboarding:schema:write']::text[]),
      created_at timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz NOT NULL,
      revoked_at timestamptz
    );
    COMMENT ON TABLE gateway_sessions IS 'Gateway sessions created at the login callback';
    COMMENT ON COLUMN gateway_sessions.token_digest IS 'SHA-256 of the gatewayToken carried in the gateway cookie';
    COMMENT ON COLUMN gateway_sessions.token_sealed IS 'Sealed gatewayToken while a handoff is pending; erased by the exchange';
    COMMENT ON COLUMN gateway_sessions.permissions IS 'Permission scopes copied from the access token at the callback';
    CREATE INDEX gateway_sessions_user ON gateway_sessions (user_id);

    ALTER TABLE auth_transactions
      ADD CONSTRAINT auth_transactions_session_fk FOREIGN KEY (session_id) REFERENCES gateway_sessions (id);

    CREATE TABLE handoff_codes (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      code_digest bytea NOT NULL UNIQUE CHECK (octet_length(code_digest) = 32),
      transaction_id uuid NOT NULL UNIQUE REFERENCES auth_transactions (id),
      platform_id uuid NOT NULL REFERENCES platforms (id),
      user_id uuid NOT NULL REFERENCES users (id),
      session_id uuid NOT NULL REFERENCES gateway_sessions (id),
      onboarding jsonb NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz NOT NULL,
      consumed_at timestamptz
    );
    COMMENT ON TABLE handoff_codes IS 'One-time handoff codes; at most one per transaction, single use';
    COMMENT ON COLUMN handoff_codes.code_digest IS 'SHA-256 of the handoff code; the code itself is never stored';
    COMMENT ON COLUMN handoff_codes.onboarding IS 'Onboarding status evaluated when the code was issued, returned by the exchange';
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE handoff_codes; ALTER TABLE auth_transactions DROP CONSTRAINT auth_transactions_session_fk; DROP TABLE gateway_sessions; DROP TABLE auth_transactions;');
}
