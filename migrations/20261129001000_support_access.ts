import type { Knex } from 'knex';

/**
 * Support access (issue 35): an operator holding `support:access` sees a platform as a person
 * sees it, with a reason, for minutes, and the person sees that it happened.
 *
 * - platforms: `support_access` (off by default; `notify`: the person is told, `approve`: the
 *   person must approve first), `sensitive` (never entered this way, whatever support_access says)
 *   and `support_sign_in_url` (the platform's own sign-in route, which forwards `supportAccess`
 *   to the gateway's start, so the platform's back end binds the login as it binds every other).
 * - support_access: one row per request. Every single-use step (approve, refuse, use, end) is a
 *   conditional UPDATE of this row, so a double submission records one. Its session goes with
 *   the purge a day after it ended like every session (ON DELETE SET NULL): the history stays.
 * - gateway_sessions: the support session of the person names its grant and its actor (RFC 8693
 *   §4.1 `act`), read by the statements that already read the session row (exchange, cookie
 *   lookups): ordinary logins run no extra statement.
 * - the permissions check admits `support:access`.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE platforms
      ADD COLUMN support_access text NOT NULL DEFAULT 'off' CHECK (support_access IN ('off', 'notify', 'approve')),
      ADD COLUMN sensitive boolean NOT NULL DEFAULT false,
      ADD COLUMN support_sign_in_url text CHECK (char_length(support_sign_in_url) <= 2048);
    COMMENT ON COLUMN platforms.support_access IS 'Support access: off (default), notify (the person is told) or approve (the person approves first)';
    COMMENT ON COLUMN platforms.sensitive IS 'Never entered by support access, whatever support_access says';
    COMMENT ON COLUMN platforms.support_sign_in_url IS 'The platform''s sign-in route; a support sign-in link is it with ?supportAccess=<id>';

    CREATE TABLE support_access (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      platform_id uuid NOT NULL REFERENCES platforms (id),
      user_id uuid NOT NULL REFERENCES users (id),
      operator_user_id uuid NOT NULL REFERENCES users (id),
      operator_sub text NOT NULL,
      operator_name text,
      reason text NOT NULL CHECK (char_length(reason) BETWEEN 1 AND 500),
      duration_seconds integer NOT NULL CHECK (duration_seconds BETWEEN 60 AND 1800),
      mode text NOT NULL CHECK (mode IN ('notify', 'approve')),
      requested_at timestamptz NOT NULL DEFAULT now(),
      answer_by timestamptz,
      approved_at timestamptz,
      refused_at timestamptz,
      ends_at timestamptz,
      used_at timestamptz,
      session_id uuid REFERENCES gateway_sessions (id) ON DELETE SET NULL,
      ended_at timestamptz,
      end_reason text CHECK (end_reason IN ('operator', 'person', 'expired')),
      CONSTRAINT support_access_not_self CHECK (user_id <> operator_user_id),
      CONSTRAINT support_access_approval CHECK (mode = 'approve' OR (answer_by IS NULL AND approved_at IS NULL AND refused_at IS NULL)),
      CONSTRAINT support_access_running CHECK ((ends_at IS NULL) = (mode = 'approve' AND approved_at IS NULL))
    );
    COMMENT ON TABLE support_access IS 'Support access requests: who, for whom, which platform, why, and what became of it';
    CREATE INDEX support_access_person ON support_access (user_id, requested_at DESC);
    CREATE INDEX support_access_requested ON support_access (requested_at DESC);
    CREATE INDEX support_access_platform ON support_access (platform_id);
    CREATE INDEX support_access_operator ON support_access (operator_user_id);
    CREATE INDEX support_access_session ON support_access (session_id) WHERE session_id IS NOT NULL;

    ALTER TABLE gateway_sessions
      ADD COLUMN support_access_id uuid REFERENCES support_access (id),
      ADD COLUMN support_actor jsonb CHECK (jsonb_typeof(support_actor) = 'object'),
      ADD CONSTRAINT gateway_sessions_support_actor CHECK ((support_access_id IS NULL) = (support_actor IS NULL));
    CREATE INDEX gateway_sessions_support_access ON gateway_sessions (support_access_id) WHERE support_access_id IS NOT NULL;
    COMMENT ON COLUMN gateway_sessions.support_access_id IS 'A support session of the person: its grant (account operations are refused on it)';
    COMMENT ON COLUMN gateway_sessions.support_actor IS 'Who acts in a support session: {sub, name} of the operator (RFC 8693 act)';

    ALTER TABLE gateway_sessions DROP CONSTRAINT gateway_sessions_permissions_check;
    ALTER TABLE gateway_sessions ADD CONSTRAINT gateway_sessions_permissions_check
      CHECK (permissions <@ ARRAY['platforms:admin', 'onboarding:schema:read', 'onboarding:schema:write', 'support:access']::text[]);

    ALTER TABLE audit_events ADD COLUMN support_access_id uuid;
    COMMENT ON COLUMN audit_events.support_access_id IS 'The support access a support_access.* event concerns (no foreign key: the audit log outlives what it names)';
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE audit_events DROP COLUMN support_access_id;
    UPDATE gateway_sessions SET permissions = array_remove(permissions, 'support:access') WHERE 'support:access' = ANY(permissions);
    ALTER TABLE gateway_sessions DROP CONSTRAINT gateway_sessions_permissions_check;
    ALTER TABLE gateway_sessions ADD CONSTRAINT gateway_sessions_permissions_check
      CHECK (permissions <@ ARRAY['platforms:admin', 'onboarding:schema:read', 'onboarding:schema:write']::text[]);
    ALTER TABLE gateway_sessions DROP CONSTRAINT gateway_sessions_support_actor;
    ALTER TABLE gateway_sessions DROP COLUMN support_actor, DROP COLUMN support_access_id;
    DROP TABLE support_access;
    ALTER TABLE platforms DROP COLUMN support_sign_in_url, DROP COLUMN sensitive, DROP COLUMN support_access;
  `);
}
