import type { Db } from '../../db/knex.ts';
import { PLATFORM_CLIENT_MATCH } from '../registry/platformsRepository.ts';
import type { SecurityEventPayload, SecurityEventRow, SecurityEventStatus } from './types.ts';

// The statements of the security events domain: recording events (and queueing their push
// deliveries in the same statement, a transactional outbox like back-channel logout's), the push
// worker's reads and writes, the poll's acknowledgements, and the operator's delivery record.

/** The graphile-worker task identifier of a pushed SET (RFC 8935). */
export const SECURITY_EVENT_TASK = 'security_event_push';

/**
 * Attempts before a push gives up: as for back-channel logout (backchannel/outbox.ts), 15
 * attempts with graphile-worker's backoff of exp(min(attempts, 10)) seconds span about a day
 * and a half.
 */
export const SECURITY_EVENT_MAX_ATTEMPTS = 15;

const EVENT_COLUMNS = `e.id, e.platform_id AS "platformId", e.user_id AS "userId", e.event_type AS "eventType", e.payload, e.mode,
  e.status, e.attempts, e.error_code AS "errorCode", e.last_error AS "lastError", e.occurred_at AS "occurredAt",
  e.created_at AS "createdAt", e.delivered_at AS "deliveredAt", e.failed_at AS "failedAt"`;

/**
 * Which platforms receive events at all: those that chose a delivery (event_delivery not 'none'),
 * have credentials (the SET's `aud` is the client id) and are active. A deactivated platform has
 * nothing recorded about anyone while it is deactivated (it can neither poll nor be trusted with
 * news of people): what happens then is not kept for it, also after a reactivation.
 */
const RECEIVES_EVENTS = `p.event_delivery <> 'none' AND p.client_id IS NOT NULL AND p.active`;

/**
 * The platforms that hear about a person: those the person has a membership of (created at the
 * first sign-in through it, removed when the person leaves it or is erased) that receive events
 * (RECEIVES_EVENTS).
 */
const RELATED_PLATFORMS = `
  SELECT p.id, p.event_delivery FROM platform_memberships m JOIN platforms p ON p.id = m.platform_id
   WHERE m.user_id = :userId AND ${RECEIVES_EVENTS}
     AND (CAST(:platformId AS uuid) IS NULL OR p.id = CAST(:platformId AS uuid))`;

/**
 * The rows `targets(id, event_delivery, payload)` become, and a push job for each pushed one
 * (graphile-worker's add_job in the same statement: it commits or rolls back with the event).
 * The job key makes a second job for the same event impossible.
 */
const INSERT_AND_QUEUE = `
  inserted AS (
    INSERT INTO security_events (platform_id, user_id, event_type, payload, mode)
    SELECT t.id, :userId, :eventType, t.payload, t.event_delivery FROM targets t
    RETURNING id, mode
  )
  SELECT i.id, CASE WHEN i.mode = 'push' THEN (graphile_worker.add_job(
           :task, json_build_object('eventId', i.id), max_attempts => :maxAttempts,
           job_key => 'secevent:' || i.id, job_key_mode => 'unsafe_dedupe')).id END AS job
    FROM inserted i`;

const queueBindings = { task: SECURITY_EVENT_TASK, maxAttempts: SECURITY_EVENT_MAX_ATTEMPTS };

/** One event for every related platform (or only `platformId`, if related); returns the recorded ids. */
export async function insertEventForRelatedPlatforms(
  db: Db,
  input: { userId: string; eventType: string; payload: SecurityEventPayload; platformId: string | null },
): Promise<string[]> {
  const { rows } = await db.raw<{ rows: { id: string }[] }>(
    `WITH targets AS (SELECT r.id, r.event_delivery, CAST(:payload AS jsonb) AS payload FROM (${RELATED_PLATFORMS}) r),
     ${INSERT_AND_QUEUE}`,
    { ...queueBindings, userId: input.userId, eventType: input.eventType, payload: JSON.stringify(input.payload), platformId: input.platformId },
  );
  return rows.map((row) => row.id);
}

/**
 * One event for one platform the caller vouches is related (a person who has just left it: the
 * membership is already gone), if that platform receives events. Returns the recorded ids.
 */
export async function insertEventForPlatform(
  db: Db,
  input: { userId: string; eventType: string; payload: SecurityEventPayload; platformId: string },
): Promise<string[]> {
  const { rows } = await db.raw<{ rows: { id: string }[] }>(
    `WITH targets AS (
       SELECT p.id, p.event_delivery, CAST(:payload AS jsonb) AS payload FROM platforms p
        WHERE p.id = CAST(:platformId AS uuid) AND ${RECEIVES_EVENTS}
     ),
     ${INSERT_AND_QUEUE}`,
    { ...queueBindings, userId: input.userId, eventType: input.eventType, payload: JSON.stringify(input.payload), platformId: input.platformId },
  );
  return rows.map((row) => row.id);
}

/**
 * A profile-changed event for every related platform whose active onboarding schema binds one of
 * the changed profile properties (PROFILE_FIELD fields), naming that platform's own field keys:
 * a platform hears only about the fields its schema declares, and only of fields that read the
 * profile (`shared`): an `ask` or `own` field keeps its own value, so the profile changing is not
 * its business (issue 36).
 */
export async function insertProfileChangedEvents(db: Db, input: { userId: string; eventType: string; changedProperties: string[] }): Promise<string[]> {
  if (input.changedProperties.length === 0) return [];
  const { rows } = await db.raw<{ rows: { id: string }[] }>(
    `WITH targets AS (
       SELECT r.id, r.event_delivery, jsonb_build_object('fields', jsonb_agg(f.field_key ORDER BY f.field_key)) AS payload
         FROM (${RELATED_PLATFORMS}) r
         JOIN onboarding_fields f ON f.platform_id = r.id AND f.archived_at IS NULL AND f.source = 'PROFILE_FIELD'
                                 AND f.sharing = 'shared' AND f.profile_field = ANY(CAST(:changed AS text[]))
        GROUP BY r.id, r.event_delivery
     ),
     ${INSERT_AND_QUEUE}`,
    { ...queueBindings, userId: input.userId, eventType: input.eventType, changed: input.changedProperties, platformId: null },
  );
  return rows.map((row) => row.id);
}

// ---------------------------------------------------------------- push

export interface PushTarget extends SecurityEventRow {
  platformKey: string;
  clientId: string | null;
  eventDelivery: 'none' | 'push' | 'poll';
  receiverUrl: string | null;
  platformActive: boolean;
}

/** The event with its platform's current registration (its URL may have been corrected since). */
export async function findPushTarget(db: Db, eventId: string): Promise<PushTarget | undefined> {
  const { rows } = await db.raw<{ rows: PushTarget[] }>(
    `SELECT ${EVENT_COLUMNS}, p.platform_key AS "platformKey", p.client_id AS "clientId", p.event_delivery AS "eventDelivery",
            p.event_receiver_url AS "receiverUrl", p.active AS "platformActive"
       FROM security_events e JOIN platforms p ON p.id = e.platform_id WHERE e.id = ?`,
    [eventId],
  );
  return rows[0];
}

/** Counts an attempt of a pending event; undefined when it is no longer pending (taken meanwhile, by a poll). */
export async function countPushAttempt(db: Db, eventId: string): Promise<number | undefined> {
  const { rows } = await db.raw<{ rows: { attempts: number }[] }>(
    `UPDATE security_events SET attempts = attempts + 1 WHERE id = ? AND status = 'pending' RETURNING attempts`,
    [eventId],
  );
  return rows[0]?.attempts;
}

export async function markDelivered(db: Db, eventId: string): Promise<boolean> {
  const { rowCount } = await db.raw<{ rowCount: number | null }>(
    `UPDATE security_events SET status = 'delivered', delivered_at = now(), last_error = NULL WHERE id = ? AND status = 'pending'`,
    [eventId],
  );
  return (rowCount ?? 0) > 0;
}

export async function markFailed(db: Db, eventId: string, errorCode: string, lastError: string | null): Promise<boolean> {
  const { rowCount } = await db.raw<{ rowCount: number | null }>(
    `UPDATE security_events SET status = 'failed', failed_at = now(), error_code = ?, last_error = ? WHERE id = ? AND status = 'pending'`,
    [errorCode.slice(0, 200), lastError?.slice(0, 1000) ?? null, eventId],
  );
  return (rowCount ?? 0) > 0;
}

export async function recordAttemptError(db: Db, eventId: string, lastError: string): Promise<void> {
  await db.raw(`UPDATE security_events SET last_error = ? WHERE id = ? AND status = 'pending'`, [lastError.slice(0, 1000), eventId]);
}

// ---------------------------------------------------------------- poll

export interface PollingPlatform {
  id: string | null;
  platformKey: string | null;
  clientId: string | null;
  platformActive: boolean | null;
}

/**
 * The platform whose Basic credentials these are (PLATFORM_CLIENT_MATCH, the exchange's
 * condition), active or not: the one check (registry/platformClient.ts) decides. A row of nulls
 * when none matches.
 */
export async function findPollingPlatform(db: Db, lookup: { clientId: string; secretDigest: Buffer }): Promise<PollingPlatform> {
  const { rows } = await db.raw<{ rows: PollingPlatform[] }>(
    `SELECT p.id, p.platform_key AS "platformKey", p.client_id AS "clientId", p.active AS "platformActive"
       FROM (SELECT 1) AS one LEFT JOIN (SELECT * FROM platforms WHERE ${PLATFORM_CLIENT_MATCH}) p ON true`,
    lookup,
  );
  return rows[0]!;
}

/** Marks the platform's own pending events among `ids` delivered; another platform's ids match nothing. */
export async function acknowledgeEvents(db: Db, platformId: string, ids: readonly string[]): Promise<number> {
  if (ids.length === 0) return 0;
  const { rowCount } = await db.raw<{ rowCount: number | null }>(
    `UPDATE security_events SET status = 'delivered', delivered_at = now()
      WHERE platform_id = ? AND id = ANY(CAST(? AS uuid[])) AND status = 'pending'`,
    [platformId, [...ids]],
  );
  return rowCount ?? 0;
}

/** Marks the platform's own pending events among the reported ones failed, with the platform's error. */
export async function reportEventErrors(db: Db, platformId: string, errors: readonly { id: string; err: string; description: string }[]): Promise<number> {
  if (errors.length === 0) return 0;
  const { rowCount } = await db.raw<{ rowCount: number | null }>(
    `UPDATE security_events e SET status = 'failed', failed_at = now(), error_code = r.err, last_error = r.description
       FROM jsonb_to_recordset(CAST(? AS jsonb)) AS r(id uuid, err text, description text)
      WHERE e.platform_id = ? AND e.id = r.id AND e.status = 'pending'`,
    [JSON.stringify(errors.map((error) => ({ ...error, err: error.err.slice(0, 200), description: error.description.slice(0, 1000) }))), platformId],
  );
  return rowCount ?? 0;
}

/** The oldest pending events of a platform, `limit` of them. */
export async function pendingEvents(db: Db, platformId: string, limit: number): Promise<SecurityEventRow[]> {
  const { rows } = await db.raw<{ rows: SecurityEventRow[] }>(
    `SELECT ${EVENT_COLUMNS} FROM security_events e WHERE e.platform_id = ? AND e.status = 'pending' ORDER BY e.created_at, e.id LIMIT ?`,
    [platformId, limit],
  );
  return rows;
}

// ---------------------------------------------------------------- the delivery record

export async function listEventsOfPlatform(db: Db, platformKey: string, query: { status: SecurityEventStatus | null; limit: number }): Promise<SecurityEventRow[] | undefined> {
  const { rows } = await db.raw<{ rows: (SecurityEventRow & { found: boolean })[] }>(
    `SELECT ${EVENT_COLUMNS}, true AS found FROM platforms p
       LEFT JOIN LATERAL (SELECT * FROM security_events e WHERE e.platform_id = p.id AND (CAST(:status AS text) IS NULL OR e.status = :status)
                          ORDER BY e.created_at DESC, e.id DESC LIMIT :limit) e ON true
      WHERE p.platform_key = :platformKey`,
    { platformKey, status: query.status, limit: query.limit },
  );
  if (rows.length === 0) return undefined;
  return rows.filter((row) => row.id !== null);
}

// ---------------------------------------------------------------- the deleting browser's view

export interface DeletionAcknowledgementRow {
  deletedAt: Date;
  platformKey: string | null;
  displayName: string | null;
  status: SecurityEventStatus | null;
  deliveredAt: Date | null;
}

/** The deleted (not yet erased) account of a receipt, with one row per platform told of the deletion (none: one row of nulls). */
export async function deletionAcknowledgements(db: Db, receiptDigest: Buffer, eventType: string): Promise<DeletionAcknowledgementRow[]> {
  const { rows } = await db.raw<{ rows: DeletionAcknowledgementRow[] }>(
    `SELECT u.deleted_at AS "deletedAt", p.platform_key AS "platformKey", p.display_name AS "displayName", e.status, e.delivered_at AS "deliveredAt"
       FROM users u
       LEFT JOIN security_events e ON e.user_id = u.id AND e.event_type = :eventType
       LEFT JOIN platforms p ON p.id = e.platform_id
      WHERE u.deletion_receipt_digest = :digest AND u.deleted_at IS NOT NULL AND u.purged_at IS NULL
      ORDER BY p.display_name, p.platform_key`,
    { digest: receiptDigest, eventType },
  );
  return rows;
}

// ---------------------------------------------------------------- purge

/**
 * How long a delivered or failed event's record is kept for operators (the delivery record), and
 * how long a deactivated platform's pending events wait for its reactivation: the same 90 days
 * after the event.
 */
export const SETTLED_EVENT_RETENTION_DAYS = 90;

/**
 * Removes, older than `days` after the event and in bounded batches, for the periodic purge:
 * settled delivery records (delivered or failed), and the pending events of a platform that is
 * deactivated (it cannot poll, nothing is pushed to it: they wait for a reactivation that long,
 * then go, as its settled records would). An active platform's pending events stay (a poll may
 * still fetch them), and so do the events of a deleted account still in its retention: the
 * deleting browser follows them (getAccountDeletion), and ACCOUNT_RETENTION_DAYS may be longer
 * than `days`. Returns how many went.
 */
export async function purgeSettledEvents(db: Db, days: number, batch = 5000): Promise<number> {
  let total = 0;
  for (;;) {
    const { rowCount } = await db.raw<{ rowCount: number | null }>(
      `DELETE FROM security_events WHERE id IN (
         SELECT e.id FROM security_events e WHERE e.created_at < now() - make_interval(days => ?)
            AND (e.status <> 'pending' OR EXISTS (SELECT 1 FROM platforms p WHERE p.id = e.platform_id AND NOT p.active))
            AND NOT EXISTS (SELECT 1 FROM users u WHERE u.id = e.user_id AND u.deleted_at IS NOT NULL AND u.purged_at IS NULL)
          LIMIT ?)`,
      [days, batch],
    );
    total += rowCount ?? 0;
    if ((rowCount ?? 0) < batch) return total;
  }
}
