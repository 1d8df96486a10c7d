import type { Knex } from 'knex';
import type { Db } from '../../db/knex.ts';

/** An API caller (cookie or Bearer), the operator command line, the dev stack seeding its demo, or the gateway itself (the purge, an end that follows another change). */
export type ActorType = 'user' | 'cli' | 'devstack' | 'system';

export interface NewAuditEvent {
  action: string;
  /** Null for a session revocation. */
  platformKey: string | null;
  /** The onboarding field a schema change touched; null for registry changes. */
  fieldKey: string | null;
  /** The session a revocation ended. */
  sessionId: string | null;
  /** The document (and its version) a publication, acceptance or withdrawal concerns. */
  documentKey?: string | null;
  /** The support access a support_access.* event concerns (issue 35). */
  supportAccessId?: string | null;
  /** Who ended a support access (support_access.end only). */
  endedBy?: 'operator' | 'person' | 'expired' | 'platform' | 'administrator' | null;
  documentVersion?: number | null;
  actorType: ActorType;
  actorUserId: string | null;
  actorSub: string | null;
  /** The credential an API caller used (session, bearer, platform); null for the CLI, the dev stack and older rows. */
  actorVia?: 'session' | 'bearer' | 'platform' | null;
  /** The platform whose own credential made the change. */
  actorPlatformKey?: string | null;
  /** Names of changed properties only; never values. */
  changedFields: string[];
  requestId: string | null;
}

export interface AuditEventRow extends NewAuditEvent {
  id: string;
  occurredAt: Date;
  /** occurred_at with its full microsecond precision (a JS Date keeps milliseconds), for the keyset cursor. */
  occurredAtExact: string;
}

const AUDIT_COLUMNS = `
  id, occurred_at AS "occurredAt",
  to_char(occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS "occurredAtExact",
  action, platform_key AS "platformKey", field_key AS "fieldKey", session_id AS "sessionId", document_key AS "documentKey", document_version AS "documentVersion", support_access_id AS "supportAccessId", ended_by AS "endedBy", actor_type AS "actorType", actor_user_id AS "actorUserId",
  actor_sub AS "actorSub", actor_via AS "actorVia", actor_platform_key AS "actorPlatformKey", changed_fields AS "changedFields", request_id AS "requestId"`;

/** Append only: there is no update or delete of audit rows anywhere in the service. */
export async function insertAuditEvent(db: Db, event: NewAuditEvent): Promise<AuditEventRow> {
  const { rows } = await db.raw<{ rows: AuditEventRow[] }>(
    `INSERT INTO audit_events (action, platform_key, field_key, session_id, document_key, document_version, support_access_id, ended_by, actor_type, actor_user_id, actor_sub, actor_via, actor_platform_key, changed_fields, request_id)
     VALUES (:action, :platformKey, :fieldKey, :sessionId, :documentKey, :documentVersion, :supportAccessId, :endedBy, :actorType, :actorUserId, :actorSub, :actorVia, :actorPlatformKey, CAST(:changedFields AS text[]), :requestId)
     RETURNING ${AUDIT_COLUMNS}`,
    { documentKey: null, documentVersion: null, supportAccessId: null, endedBy: null, actorVia: null, actorPlatformKey: null, ...event },
  );
  return rows[0]!;
}

export interface AuditEventQuery {
  platformKey: string | null;
  action: string | null;
  /** Keyset: only events strictly older than this (occurred_at, id) pair, in newest-first order. */
  before: { occurredAt: string; id: string } | null;
  limit: number;
}

/** Newest first; the (occurred_at DESC, id DESC) order matches the audit_events_recent index. */
export async function listAuditEventRows(db: Db, query: AuditEventQuery): Promise<AuditEventRow[]> {
  const conditions: string[] = [];
  const bindings: Knex.Value[] = [];
  if (query.platformKey !== null) {
    conditions.push('platform_key = ?');
    bindings.push(query.platformKey);
  }
  if (query.action !== null) {
    conditions.push('action = ?');
    bindings.push(query.action);
  }
  if (query.before !== null) {
    conditions.push('(occurred_at, id) < (CAST(? AS timestamptz), CAST(? AS uuid))');
    bindings.push(query.before.occurredAt, query.before.id);
  }
  const where = conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : '';
  const { rows } = await db.raw<{ rows: AuditEventRow[] }>(
    `SELECT ${AUDIT_COLUMNS} FROM audit_events ${where} ORDER BY occurred_at DESC, id DESC LIMIT ?`,
    [...bindings, query.limit],
  );
  return rows;
}
