import type { Db } from '../../db/knex.ts';

// The statements of support access (issue 35). Every single-use step (approve, refuse, use,
// end) is one conditional UPDATE of the request's row (GUIDE §5: never read, then write); the
// reads that follow a refused UPDATE only explain the refusal.

export interface SupportAccessRow {
  id: string;
  platformId: string;
  platformKey: string;
  platformDisplayName: string;
  supportSignInUrl: string | null;
  userId: string;
  personSub: string;
  personDisplayName: string | null;
  operatorUserId: string;
  operatorSub: string;
  operatorName: string | null;
  reason: string;
  durationSeconds: number;
  mode: 'notify' | 'approve';
  requestedAt: Date;
  answerBy: Date | null;
  approvedAt: Date | null;
  refusedAt: Date | null;
  endsAt: Date | null;
  usedAt: Date | null;
  sessionId: string | null;
  endedAt: Date | null;
  endReason: 'operator' | 'person' | 'expired' | 'platform' | 'administrator' | null;
  /** Computed by the database's clock, never the process's. */
  status: 'pending' | 'active' | 'refused' | 'unanswered' | 'ended' | 'expired';
}

/** The row with its platform and person, and its status by the database's clock. */
const SELECT_ROWS = `
  SELECT a.id, a.platform_id AS "platformId", p.platform_key AS "platformKey", p.display_name AS "platformDisplayName",
         p.support_sign_in_url AS "supportSignInUrl",
         a.user_id AS "userId", u.sub AS "personSub", u.display_name AS "personDisplayName",
         a.operator_user_id AS "operatorUserId", a.operator_sub AS "operatorSub", a.operator_name AS "operatorName",
         a.reason, a.duration_seconds AS "durationSeconds", a.mode, a.requested_at AS "requestedAt", a.answer_by AS "answerBy",
         a.approved_at AS "approvedAt", a.refused_at AS "refusedAt", a.ends_at AS "endsAt", a.used_at AS "usedAt",
         a.session_id AS "sessionId", COALESCE(a.ended_at, s.ended_at) AS "endedAt", a.end_reason AS "endReason",
         CASE WHEN a.refused_at IS NOT NULL THEN 'refused'
              WHEN a.end_reason = 'expired' THEN 'expired'
              WHEN a.ended_at IS NOT NULL THEN 'ended'
              -- Its session ended otherwise (the person revoked it in their session list, idling, their account's deletion).
              WHEN s.ended_at IS NOT NULL THEN CASE WHEN s.end_reason = 'expired' THEN 'expired' ELSE 'ended' END
              WHEN a.ends_at IS NULL AND a.answer_by > now() THEN 'pending'
              WHEN a.ends_at IS NULL THEN 'unanswered'
              WHEN a.ends_at <= now() THEN 'expired'
              ELSE 'active' END AS status
    FROM support_access a JOIN platforms p ON p.id = a.platform_id JOIN users u ON u.id = a.user_id
    LEFT JOIN gateway_sessions s ON s.id = a.session_id`;

/** The person named by subject or e-mail address: exactly one live account, else undefined. */
export async function findPersonForSupport(db: Db, person: string): Promise<{ id: string; sub: string } | undefined> {
  const { rows } = await db.raw<{ rows: { id: string; sub: string }[] }>(
    `SELECT id, sub FROM users WHERE deleted_at IS NULL AND (sub = :person OR lower(email) = lower(:person)) LIMIT 2`,
    { person },
  );
  if (rows.length !== 1) return rows.find((row) => row.sub === person);
  return rows[0];
}

export async function findOperatorName(db: Db, userId: string): Promise<string | null> {
  const { rows } = await db.raw<{ rows: { name: string | null }[] }>('SELECT display_name AS name FROM users WHERE id = ?', [userId]);
  return rows[0]?.name ?? null;
}

export async function insertSupportAccess(
  db: Db,
  input: { platformId: string; userId: string; operatorUserId: string; operatorSub: string; operatorName: string | null; reason: string; durationSeconds: number; mode: 'notify' | 'approve'; answerSeconds: number },
): Promise<string> {
  const { rows } = await db.raw<{ rows: { id: string }[] }>(
    `INSERT INTO support_access (platform_id, user_id, operator_user_id, operator_sub, operator_name, reason, duration_seconds, mode, answer_by, ends_at)
     VALUES (:platformId, :userId, :operatorUserId, :operatorSub, :operatorName, :reason, :durationSeconds, :mode,
             CASE WHEN :mode = 'approve' THEN now() + make_interval(secs => :answerSeconds) END,
             CASE WHEN :mode = 'notify' THEN now() + make_interval(secs => :durationSeconds) END)
     RETURNING id`,
    input,
  );
  return rows[0]!.id;
}

/**
 * Serialises the approval requests to one person (a transaction-level advisory lock, released at
 * commit), then says how many they were asked in the last `windowSeconds` and, when that is
 * `limit` or more, in how many seconds the oldest leaves the window. Every approval request
 * counts, answered, refused or ended: the person saw it. Without the lock two operators racing
 * would both read a count under the bound.
 */
export async function countRecentApprovalRequests(db: Db, input: { userId: string; windowSeconds: number; limit: number }): Promise<{ count: number; retryAfterSeconds: number }> {
  await db.raw(`SELECT pg_advisory_xact_lock(hashtextextended('support_access_person:' || ?, 0))`, [input.userId]);
  const { rows } = await db.raw<{ rows: { count: number; retryAfterSeconds: number | null }[] }>(
    `SELECT count(*)::int AS count,
            ceil(extract(epoch FROM (SELECT requested_at FROM support_access
                                      WHERE user_id = :userId AND mode = 'approve' AND requested_at > now() - make_interval(secs => :windowSeconds)
                                      ORDER BY requested_at DESC OFFSET :limit - 1 LIMIT 1)
                                    + make_interval(secs => :windowSeconds) - now()))::int AS "retryAfterSeconds"
       FROM support_access
      WHERE user_id = :userId AND mode = 'approve' AND requested_at > now() - make_interval(secs => :windowSeconds)`,
    input,
  );
  return { count: rows[0]!.count, retryAfterSeconds: Math.max(1, rows[0]!.retryAfterSeconds ?? 1) };
}

export async function findSupportAccess(db: Db, id: string): Promise<SupportAccessRow | undefined> {
  const { rows } = await db.raw<{ rows: SupportAccessRow[] }>(`${SELECT_ROWS} WHERE a.id = ?`, [id]);
  return rows[0];
}

export async function listSupportAccessRows(db: Db, filter: { userId?: string; limit: number }): Promise<SupportAccessRow[]> {
  const where = filter.userId ? 'WHERE a.user_id = :userId' : '';
  const { rows } = await db.raw<{ rows: SupportAccessRow[] }>(`${SELECT_ROWS} ${where} ORDER BY a.requested_at DESC, a.id DESC LIMIT :limit`, {
    userId: filter.userId ?? null,
    limit: filter.limit,
  });
  return rows;
}

/** The person's answer, recorded once: a second submission of either answer changes nothing. */
export async function answerSupportAccessRow(db: Db, input: { id: string; userId: string; approve: boolean }): Promise<boolean> {
  const set = input.approve ? 'approved_at = now(), ends_at = now() + make_interval(secs => duration_seconds)' : 'refused_at = now()';
  const { rows } = await db.raw<{ rows: { id: string }[] }>(
    `UPDATE support_access SET ${set}
      WHERE id = :id AND user_id = :userId AND mode = 'approve' AND approved_at IS NULL AND refused_at IS NULL
        AND ended_at IS NULL AND answer_by > now()
      RETURNING id`,
    input,
  );
  return rows.length === 1;
}

/**
 * Spends the sign-in of an access, once: only the operator who requested it, for its platform,
 * while it is approved (or announced), unused, unended and unexpired. Returns when it ends.
 */
export async function useSupportAccessRow(db: Db, input: { id: string; operatorUserId: string; platformId: string }): Promise<{ endsAt: Date; userId: string; operatorSub: string; operatorName: string | null } | undefined> {
  const { rows } = await db.raw<{ rows: { endsAt: Date; userId: string; operatorSub: string; operatorName: string | null }[] }>(
    `UPDATE support_access SET used_at = now()
      WHERE id = :id AND operator_user_id = :operatorUserId AND platform_id = :platformId
        AND used_at IS NULL AND ended_at IS NULL AND refused_at IS NULL AND ends_at > now()
        AND EXISTS (SELECT 1 FROM users u WHERE u.id = support_access.user_id AND u.deleted_at IS NULL)
      RETURNING ends_at AS "endsAt", user_id AS "userId", operator_sub AS "operatorSub", operator_name AS "operatorName"`,
    input,
  );
  return rows[0];
}

export async function attachSupportSession(db: Db, id: string, sessionId: string): Promise<void> {
  await db.raw('UPDATE support_access SET session_id = ? WHERE id = ?', [sessionId, id]);
}

/** Ends an access once; a pending one is refused by it (it can no longer be approved). */
export async function endSupportAccessRow(
  db: Db,
  input: { id: string; userId?: string; reason: 'operator' | 'person' | 'expired' },
): Promise<{ sessionId: string | null; platformId: string; userId: string } | undefined> {
  const { rows } = await db.raw<{ rows: { sessionId: string | null; platformId: string; userId: string }[] }>(
    `UPDATE support_access SET ended_at = now(), end_reason = :reason
      WHERE id = :id AND (CAST(:userId AS uuid) IS NULL OR user_id = CAST(:userId AS uuid))
        AND ended_at IS NULL AND refused_at IS NULL
      RETURNING session_id AS "sessionId", platform_id AS "platformId", user_id AS "userId"`,
    { id: input.id, userId: input.userId ?? null, reason: input.reason },
  );
  return rows[0];
}

/** A support session of the person: no permission, ends with the access, its token never handed out. */
export async function insertSupportSession(
  db: Db,
  input: { id: string; userId: string; tokenDigest: Buffer; endsAt: Date; supportAccessId: string; actor: { sub: string; name: string | null } },
): Promise<void> {
  await db.raw(
    `INSERT INTO gateway_sessions (id, user_id, token_digest, permissions, expires_at, support_access_id, support_actor)
     VALUES (:id, :userId, :tokenDigest, '{}', :endsAt, :supportAccessId, CAST(:actor AS jsonb))`,
    { ...input, actor: JSON.stringify(input.actor) },
  );
}

/**
 * The support sign-in's login transaction, born consumed (no provider round trip): the handoff
 * code and the exchange read the platform's binding (handoffChallenge, returnTo) from it as from
 * every login's.
 */
export async function insertSupportTransaction(
  db: Db,
  input: {
    id: string;
    platformId: string;
    stateDigest: Buffer;
    nonceDigest: Buffer;
    onboardingMode: string;
    platformCallbackUrl: string;
    returnTo: string;
    handoffChallenge: string | null;
    platformStateSealed: string | null;
    userId: string;
    sessionId: string;
  },
): Promise<void> {
  await db.raw(
    `INSERT INTO auth_transactions (id, platform_id, state_digest, nonce_digest, onboarding_mode, platform_callback_url, return_to,
                                    handoff_challenge, platform_state_sealed, user_id, session_id, expires_at, consumed_at)
     VALUES (:id, :platformId, :stateDigest, :nonceDigest, :onboardingMode, :platformCallbackUrl, :returnTo,
             CAST(:handoffChallenge AS text), CAST(:platformStateSealed AS text), :userId, :sessionId, now(), now())`,
    input,
  );
}

/**
 * Used accesses whose time ran out and that nobody ended: marked ended by time, once (a batch,
 * rows other runs hold are skipped), so their platform hears the end as for the other ends.
 */
export async function endExpiredSupportAccessRows(db: Db, limit: number): Promise<{ id: string; sessionId: string | null; platformId: string; userId: string; platformKey: string | null }[]> {
  const { rows } = await db.raw<{ rows: { id: string; sessionId: string | null; platformId: string; userId: string; platformKey: string | null }[] }>(
    `UPDATE support_access SET ended_at = now(), end_reason = 'expired'
      WHERE id IN (SELECT id FROM support_access
                    WHERE ended_at IS NULL AND refused_at IS NULL AND used_at IS NOT NULL AND ends_at <= now()
                    ORDER BY ends_at LIMIT :limit FOR UPDATE SKIP LOCKED)
      RETURNING id, session_id AS "sessionId", platform_id AS "platformId", user_id AS "userId",
                (SELECT platform_key FROM platforms WHERE platforms.id = support_access.platform_id) AS "platformKey"`,
    { limit },
  );
  return rows;
}

/** What a support session says of itself (GET /v1/me): who acts, and the access, as the exchange says it. */
export async function findSupportSessionDescription(
  db: Db,
  supportAccessId: string,
): Promise<{ act: { sub: string; name: string | null }; supportAccess: { id: string; endsAt: string } } | undefined> {
  const { rows } = await db.raw<{ rows: { sub: string; name: string | null; endsAt: Date }[] }>(
    'SELECT operator_sub AS sub, operator_name AS name, ends_at AS "endsAt" FROM support_access WHERE id = ?',
    [supportAccessId],
  );
  const row = rows[0];
  return row ? { act: { sub: row.sub, name: row.name }, supportAccess: { id: supportAccessId, endsAt: row.endsAt.toISOString() } } : undefined;
}
