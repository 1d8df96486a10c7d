import type { Knex } from 'knex';

/**
 * Issue 8 (security):
 * - a platform's own credential, issued by the exchange, distinct from the browser's
 *   session cookie; only its digest is stored, and it lives and dies with its session;
 * - the browser session token is no longer handed to platforms, so it is never sealed
 *   for a pending handoff: the sealed column goes (erasing every sealed copy at rest);
 * - each login is bound to the browser that started it (RFC 9700 §4.7.1), and may be
 *   bound to its platform back end by a handoff challenge (the RFC 7636 pattern).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE platform_credentials (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      session_id uuid NOT NULL REFERENCES gateway_sessions (id) ON DELETE CASCADE,
      platform_id uuid NOT NULL REFERENCES platforms (id),
      token_digest bytea NOT NULL UNIQUE CHECK (octet_length(token_digest) = 32),
      created_at timestamptz NOT NULL DEFAULT now()
    );
    COMMENT ON TABLE platform_credentials IS 'Credentials a platform back end received from the exchange: bound to one gateway session and one platform';
    COMMENT ON COLUMN platform_credentials.token_digest IS 'SHA-256 of the gatewayToken returned by the exchange; the token itself is never stored';
    CREATE INDEX platform_credentials_session ON platform_credentials (session_id);
    CREATE INDEX platform_credentials_platform ON platform_credentials (platform_id);

    ALTER TABLE gateway_sessions DROP COLUMN token_sealed;
    COMMENT ON COLUMN gateway_sessions.token_digest IS 'SHA-256 of the browser session token carried in the gateway cookie';

    ALTER TABLE auth_transactions
      ADD COLUMN browser_binding_digest bytea CHECK (octet_length(browser_binding_digest) = 32),
      ADD COLUMN handoff_challenge text CHECK (handoff_challenge ~ '^[A-Za-z0-9_-]{43}$');
    COMMENT ON COLUMN auth_transactions.browser_binding_digest IS 'SHA-256 of the login binding cookie set at start; the callback requires the cookie';
    COMMENT ON COLUMN auth_transactions.handoff_challenge IS 'BASE64URL(SHA-256(handoffVerifier)) sent by the platform at start; the exchange requires the verifier';
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE auth_transactions DROP COLUMN handoff_challenge, DROP COLUMN browser_binding_digest;
    ALTER TABLE gateway_sessions ADD COLUMN token_sealed text;
    DROP TABLE platform_credentials;
  `);
}
