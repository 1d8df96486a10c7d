import type { Db } from '../../db/knex.ts';

// The statements that read a person's data for an export (issue 26). They select named
// columns only: never a token digest, a sealed value, a client secret or the provider's
// session id. `test/e2e/dataRights.test.ts` scans a whole document for every secret the
// person's logins left in the database.

/** Rows fetched per round trip by a cursor: memory stays flat however many rows there are. */
export const CURSOR_BATCH = 500;

export interface SnapshotReader {
  user(): Promise<Record<string, unknown> | undefined>;
  profile(): Promise<Record<string, unknown> | null>;
  picture(): Promise<{ id: string; store: string; image: Buffer | null; width: number; height: number; createdAt: Date; pictureUrl: string | null } | null>;
  platforms(): Promise<Record<string, unknown>[]>;
  onboarding(): Promise<Record<string, unknown>[]>;
  agreements(): AsyncGenerator<Record<string, unknown>>;
  sessions(): AsyncGenerator<Record<string, unknown>>;
  supportAccess(): AsyncGenerator<Record<string, unknown>>;
  auditEvents(): AsyncGenerator<Record<string, unknown>>;
}

/**
 * Runs `work` in one read-only REPEATABLE READ transaction, so every part of the document is
 * of the same moment, with a reader of the person's data. Long lists (sessions, audit events)
 * come through server-side cursors (DECLARE … CURSOR, FETCH in batches) on that transaction.
 */
export async function readPersonSnapshot<T>(db: Db, userId: string, work: (reader: SnapshotReader) => Promise<T>): Promise<T> {
  return db.transaction(
    async (trx) => {
      const one = async (sql: string) => (await trx.raw<{ rows: Record<string, unknown>[] }>(sql, { userId })).rows;
      const reader: SnapshotReader = {
        user: async () =>
          (await one(`SELECT id, sub, email, email_verified AS "emailVerified", display_name AS "displayName", created_at AS "createdAt",
                             updated_at AS "updatedAt", last_login_at AS "lastLoginAt", deleted_at AS "deletedAt"
                        FROM users WHERE id = :userId`))[0],
        profile: async () =>
          (await one(`SELECT first_name AS "firstName", last_name AS "lastName", display_name AS "displayName", date_of_birth AS "dateOfBirth",
                             phone, country, locale, picture_url AS "pictureUrl", updated_at AS "updatedAt"
                        FROM profiles WHERE user_id = :userId`))[0] ?? null,
        picture: async () => {
          const rows = await one(`SELECT a.id, a.store, a.image, a.width, a.height, a.created_at AS "createdAt", p.picture_url AS "pictureUrl"
                                    FROM avatars a LEFT JOIN profiles p ON p.user_id = a.user_id
                                   WHERE a.user_id = :userId ORDER BY a.created_at DESC LIMIT 1`);
          return (rows[0] as Awaited<ReturnType<SnapshotReader['picture']>>) ?? null;
        },
        platforms: () =>
          one(`SELECT p.platform_key AS "platformKey", p.display_name AS "displayName", m.created_at AS "firstUsedAt",
                      m.last_signed_in_at AS "lastSignedInAt", m.completed_requirement_version AS "completedRequirementVersion",
                      m.completed_at AS "completedAt", p.requirement_version AS "currentRequirementVersion"
                 FROM platform_memberships m JOIN platforms p ON p.id = m.platform_id
                WHERE m.user_id = :userId ORDER BY p.platform_key`),
        // Values per platform, with each field's definition as the person answered it (archived
        // fields keep their values and are marked), and the requirement version the person completed.
        // Issue 36: every platform used is listed, with whether each value was shared (confirmed
        // from the profile, and whose platform it had been given to) or entered there, and the
        // profile properties the platform reads straight from the profile (its `shared` fields).
        onboarding: () =>
          one(`SELECT p.platform_key AS "platformKey", m.completed_requirement_version AS "completedRequirementVersion",
                      p.requirement_version AS "currentRequirementVersion",
                      COALESCE(jsonb_agg(jsonb_build_object('fieldKey', v.field_key, 'label', f.label, 'type', f.field_type,
                                                   'archived', f.archived_at IS NOT NULL, 'value', v.value, 'updatedAt', v.updated_at,
                                                   'profileField', f.profile_field, 'sharing', f.sharing, 'shared', v.shared,
                                                   'sharedFrom', CASE WHEN v.shared THEN COALESCE(src.platform_key, 'profile') END)
                                ORDER BY v.field_key) FILTER (WHERE v.field_key IS NOT NULL), '[]') AS "values",
                      (SELECT COALESCE(jsonb_agg(jsonb_build_object('fieldKey', sf.field_key, 'profileField', sf.profile_field) ORDER BY sf.field_key), '[]')
                         FROM onboarding_fields sf
                        WHERE sf.platform_id = p.id AND sf.archived_at IS NULL AND sf.sharing = 'shared') AS "profileValuesShared"
                 FROM (SELECT platform_id FROM onboarding_values WHERE user_id = :userId
                       UNION SELECT platform_id FROM platform_memberships WHERE user_id = :userId) AS used
                 JOIN platforms p ON p.id = used.platform_id
                 LEFT JOIN onboarding_values v ON v.user_id = :userId AND v.platform_id = p.id
                 LEFT JOIN platform_memberships m ON m.user_id = :userId AND m.platform_id = p.id
                 LEFT JOIN onboarding_fields f ON f.platform_id = v.platform_id AND f.field_key = v.field_key
                 LEFT JOIN platforms src ON src.id = v.shared_from_platform_id
                GROUP BY p.id, p.platform_key, m.completed_requirement_version, p.requirement_version
                ORDER BY p.platform_key`),
        // The agreement record (issue 25), every row: acceptances and withdrawals, also of
        // platforms the person has left (leaving keeps the record). The title is the one of
        // the language shown; `sha256` is the digest of that public text, no secret. A person
        // who toggles a consent for years has many rows, so it comes through a cursor.
        agreements: () =>
          cursor(trx, 'export_agreements', userId,
            `SELECT p.platform_key AS "platformKey", p.display_name AS "platformName", d.document_key AS "documentKey", d.kind,
                    r.version, v.texts -> r.language ->> 'title' AS title, r.language, r.action, r.recorded_at AS "recordedAt",
                    r.text_digest AS sha256, r.session_id AS "sessionId", r.recorded_via AS "recordedVia"
               FROM agreement_records r
               JOIN platforms p ON p.id = r.platform_id
               JOIN platform_documents d ON d.id = r.document_id
               JOIN document_versions v ON v.id = r.version_id
              WHERE r.user_id = $1 ORDER BY r.id`),
        sessions: () =>
          cursor(trx, 'export_sessions', userId,
            `SELECT s.id, s.created_at AS "createdAt", s.last_used_at AS "lastUsedAt", s.expires_at AS "expiresAt",
                    s.ended_at AS "endedAt", s.end_reason AS "endReason", s.user_agent AS "userAgent", s.ip_prefix AS "ipPrefix",
                    s.permissions, s.auth_time AS "authTime", s.amr, s.acr,
                    ARRAY(SELECT DISTINCT p.platform_key FROM platform_credentials c JOIN platforms p ON p.id = c.platform_id
                           WHERE c.session_id = s.id ORDER BY 1) AS platforms
               FROM gateway_sessions s WHERE s.user_id = $1 ORDER BY s.created_at, s.id`),
        // Support access to the person's account (issue 35): who asked, where, why, what became of it.
        supportAccess: () =>
          cursor(trx, 'export_support_access', userId,
            `SELECT a.id, p.platform_key AS "platformKey", p.display_name AS "platformName", a.operator_sub AS "operatorSub",
                    a.operator_name AS "operatorName", a.reason, a.duration_seconds / 60 AS "durationMinutes", a.mode,
                    a.requested_at AS "requestedAt", a.answer_by AS "answerBy", a.approved_at AS "approvedAt", a.refused_at AS "refusedAt",
                    a.ends_at AS "endsAt", a.used_at AS "usedAt", a.session_id AS "sessionId", a.ended_at AS "endedAt", a.end_reason AS "endedBy"
               FROM support_access a JOIN platforms p ON p.id = a.platform_id
              WHERE a.user_id = $1 ORDER BY a.requested_at, a.id`),
        // The events the person caused (actor), and those about their sessions (an administrator's
        // revocation) and their support access (issue 35: the operator's request, use and end).
        auditEvents: () =>
          cursor(trx, 'export_audit_events', userId,
            `SELECT id, occurred_at AS "occurredAt", action, platform_key AS "platformKey", field_key AS "fieldKey",
                    session_id AS "sessionId", actor_type AS "actorType", actor_user_id AS "actorUserId",
                    actor_via AS "actorVia", actor_platform_key AS "actorPlatformKey",
                    changed_fields AS "changedFields", request_id AS "requestId", support_access_id AS "supportAccessRequestId",
                    ended_by AS "endedBy"
               FROM audit_events
              WHERE actor_user_id = $1
                 OR session_id IN (SELECT id FROM gateway_sessions WHERE user_id = $1)
                 OR support_access_id IN (SELECT id FROM support_access WHERE user_id = $1)
              ORDER BY occurred_at, id`),
      };
      return work(reader);
    },
    { isolationLevel: 'repeatable read', readOnly: true },
  );
}

/** A server-side cursor over `sql` (its one parameter, $1, the user id), fetched CURSOR_BATCH rows at a time. */
async function* cursor(trx: Db, name: string, userId: string, sql: string): AsyncGenerator<Record<string, unknown>> {
  const connection = await trx.client.acquireConnection();
  const query = (text: string, values: unknown[] = []) =>
    (connection as { query(text: string, values: unknown[]): Promise<{ rows: Record<string, unknown>[] }> }).query(text, values);
  await query(`DECLARE ${name} NO SCROLL CURSOR FOR ${sql}`, [userId]);
  try {
    for (;;) {
      const { rows } = await query(`FETCH FORWARD ${CURSOR_BATCH} FROM ${name}`);
      yield* rows;
      if (rows.length < CURSOR_BATCH) return;
    }
  } finally {
    await query(`CLOSE ${name}`);
  }
}
