import type { Knex } from 'knex';

/**
 * Issue 12 (sessions):
 * - a session knows its last use (idle timeout), the browser and coarse address it started
 *   from (the session list), the identity provider's session id (`sid`, back-channel logout
 *   in) and, sealed, the login's ID token (the `id_token_hint` of RP-initiated logout);
 * - a session that ends, for whatever reason, records when and why, once: that is what
 *   back-channel logout out to platforms is sent for;
 * - logout tokens already accepted are remembered until they expire (replay, §2.6);
 * - a platform may register a back-channel logout URL;
 * - session revocations are audited (an audit event without a platform).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE gateway_sessions
      ADD COLUMN last_used_at timestamptz NOT NULL DEFAULT now(),
      ADD COLUMN user_agent text CHECK (char_length(user_agent) <= 300),
      ADD COLUMN ip_prefix text CHECK (char_length(ip_prefix) <= 64),
      ADD COLUMN idp_sid text CHECK (char_length(idp_sid) <= 255),
      ADD COLUMN id_token_sealed text,
      ADD COLUMN ended_at timestamptz,
      ADD COLUMN end_reason text CHECK (end_reason IN ('sign_out', 'provider_logout', 'revoked', 'account_deleted', 'expired', 'idle'));
    UPDATE gateway_sessions SET ended_at = revoked_at, end_reason = 'revoked' WHERE revoked_at IS NOT NULL;
    COMMENT ON COLUMN gateway_sessions.last_used_at IS 'Last use, refreshed at most once a minute: the idle timeout';
    COMMENT ON COLUMN gateway_sessions.ip_prefix IS 'The login address coarsened to /24 (IPv4) or /48 (IPv6)';
    COMMENT ON COLUMN gateway_sessions.idp_sid IS 'The identity provider session (ID token sid): back-channel logout in';
    COMMENT ON COLUMN gateway_sessions.id_token_sealed IS 'AES-256-GCM sealed ID token of the login: id_token_hint for RP-initiated logout';
    COMMENT ON COLUMN gateway_sessions.ended_at IS 'When the session ended (sign-out, revocation, provider logout, deletion, noticed expiry); platforms are told once';
    CREATE INDEX gateway_sessions_idp_sid ON gateway_sessions (idp_sid) WHERE idp_sid IS NOT NULL AND ended_at IS NULL;
    CREATE INDEX gateway_sessions_live_expiry ON gateway_sessions (expires_at) WHERE ended_at IS NULL;

    ALTER TABLE platforms ADD COLUMN backchannel_logout_url text CHECK (char_length(backchannel_logout_url) <= 2048);
    COMMENT ON COLUMN platforms.backchannel_logout_url IS 'Where the gateway posts a logout token when a session the platform holds a credential for ends';

    CREATE TABLE backchannel_logout_jtis (
      jti_digest bytea PRIMARY KEY CHECK (octet_length(jti_digest) = 32),
      expires_at timestamptz NOT NULL
    );
    COMMENT ON TABLE backchannel_logout_jtis IS 'Logout tokens from the identity provider already accepted (SHA-256 of iss and jti), kept until they expire: replays are refused';
    CREATE INDEX backchannel_logout_jtis_expiry ON backchannel_logout_jtis (expires_at);

    ALTER TABLE audit_events ALTER COLUMN platform_key DROP NOT NULL, ADD COLUMN session_id uuid;
    COMMENT ON COLUMN audit_events.session_id IS 'The session a revocation ended';
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DELETE FROM audit_events WHERE platform_key IS NULL;
    ALTER TABLE audit_events DROP COLUMN session_id, ALTER COLUMN platform_key SET NOT NULL;
    DROP TABLE backchannel_logout_jtis;
    ALTER TABLE platforms DROP COLUMN backchannel_logout_url;
    DROP INDEX gateway_sessions_live_expiry;
    DROP INDEX gateway_sessions_idp_sid;
    ALTER TABLE gateway_sessions DROP COLUMN end_reason, DROP COLUMN ended_at, DROP COLUMN id_token_sealed,
      DROP COLUMN idp_sid, DROP COLUMN ip_prefix, DROP COLUMN user_agent, DROP COLUMN last_used_at;
  `);
}
