import type { components } from '../../../generated/gateway.ts';
import type { Principal } from '../../domain/types.ts';
import type { Db } from '../../db/knex.ts';
import { insertAuditEvent, listAuditEventRows, type ActorType, type AuditEventRow, type NewAuditEvent } from './repository.ts';
import { validationError } from '../../errors/catalogue.ts';
import { decodeCursor, encodeCursor, isExactTimestamp, pageSize } from '../../db/cursor.ts';
import { PLATFORM_KEY_PATTERN } from '../registry/rules.ts';

export type AuditAction = components['schemas']['AuditAction'];
export type AuditEventView = components['schemas']['AuditEvent'];
export type AuditEventList = components['schemas']['AuditEventList'];

export const AUDIT_ACTIONS: readonly AuditAction[] = [
  'platform.create',
  'platform.update',
  'platform.deactivate',
  'platform.activate',
  'platform.rotate_credentials',
  'onboarding_field.create',
  'onboarding_field.update',
  'onboarding_field.archive',
  'session.revoke',
  // Platform documents (issue 25)
  'document.publish',
  'document.accept',
  'document.withdraw',
  'data_export.start',
  'data_export.download',
  'membership.leave',
  // Grace periods for requirement changes (issue 36)
  'requirement_grace.move',
  // Support access (issue 35)
  'support_access.request',
  'support_access.approve',
  'support_access.refuse',
  'support_access.use',
  'support_access.end',
];

/** Who makes a change: an API caller (cookie or Bearer), the operator command line, or the dev stack seeding its demo. */
export interface Actor {
  type: ActorType;
  /** Local user id; null for the CLI, or a Bearer caller who never logged in through the gateway. */
  userId: string | null;
  /** Identity-provider subject; null for the CLI. */
  sub: string | null;
  /** Correlation id of the request; null for the CLI. */
  requestId: string | null;
  /**
   * For an API caller, the credential it used: the person's browser session, a Bearer access
   * token, or a platform's own credential (acting for the person); absent for the CLI and the dev stack.
   */
  via?: Principal['via'] | null;
  /** The platform whose own credential made the change (via `platform`). */
  platformKey?: string | null;
}

export const CLI_ACTOR: Actor = Object.freeze({ type: 'cli', userId: null, sub: null, requestId: null });
/** `npm start`'s dev stack creating and updating its demo platforms (src/devstack/seed.ts). */
export const DEVSTACK_ACTOR: Actor = Object.freeze({ type: 'devstack', userId: null, sub: null, requestId: null });

/**
 * The gateway itself: a change nobody asked for in that request (the purge's ends by time), or
 * one that follows another change whose own audit event names its actor (a support access
 * ended with its session, or by its platform's settings).
 */
export const SYSTEM_ACTOR: Actor = Object.freeze({ type: 'system', userId: null, sub: null, requestId: null });

/** The actor of an authenticated API request (the security handlers guarantee a principal on admin routes). */
export function actorFromPrincipal(principal: Principal | null, requestId: string): Actor {
  return {
    type: 'user',
    userId: principal?.userId ?? null,
    sub: principal?.sub ?? null,
    requestId,
    via: principal?.via ?? null,
    platformKey: principal?.via === 'platform' ? (principal.platform?.key ?? null) : null,
  };
}

/**
 * Appends one audit row. Call it with the transaction of the change it records,
 * so the change and its row commit (or roll back) together. `changedFields` are
 * property names only: callers never pass values, and never a secret.
 */
export async function recordAuditEvent(
  db: Db,
  event: { action: AuditAction; platformKey: string | null; fieldKey?: string; sessionId?: string; documentKey?: string; documentVersion?: number; supportAccessId?: string; endedBy?: NewAuditEvent['endedBy']; changedFields: readonly string[] },
  actor: Actor,
): Promise<void> {
  await insertAuditEvent(db, {
    action: event.action,
    platformKey: event.platformKey,
    fieldKey: event.fieldKey ?? null,
    sessionId: event.sessionId ?? null,
    documentKey: event.documentKey ?? null,
    supportAccessId: event.supportAccessId ?? null,
    endedBy: event.endedBy ?? null,
    documentVersion: event.documentVersion ?? null,
    actorType: actor.type,
    actorUserId: actor.userId,
    actorSub: actor.sub,
    actorVia: actor.via ?? null,
    actorPlatformKey: actor.platformKey ?? null,
    changedFields: [...event.changedFields],
    requestId: actor.requestId,
  });
}

export interface AuditEventListQuery {
  platformKey?: string | undefined;
  action?: string | undefined;
  limit?: number | undefined;
  cursor?: string | undefined;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Newest first, filtered by platform and action, keyset paginated on (occurredAt, id). */
export async function listAuditEvents(db: Db, query: AuditEventListQuery): Promise<AuditEventList> {
  const limit = pageSize(query.limit);
  if (query.platformKey !== undefined && !PLATFORM_KEY_PATTERN.test(query.platformKey)) {
    throw validationError([{ pointer: '/query/platformKey', message: `must match ${PLATFORM_KEY_PATTERN.source}` }]);
  }
  if (query.action !== undefined && !(AUDIT_ACTIONS as readonly string[]).includes(query.action)) {
    throw validationError([{ pointer: '/query/action', message: `must be one of ${AUDIT_ACTIONS.join(', ')}` }]);
  }
  const before =
    query.cursor === undefined
      ? null
      : decodeCursor(query.cursor, (value) =>
          isExactTimestamp(value.o) && typeof value.i === 'string' && UUID.test(value.i)
            ? { occurredAt: value.o, id: value.i }
            : null,
        );
  const rows = await listAuditEventRows(db, {
    platformKey: query.platformKey ?? null,
    action: query.action ?? null,
    before,
    limit: limit + 1,
  });
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    items: page.map(toView),
    nextCursor: rows.length > limit && last ? encodeCursor({ o: last.occurredAtExact, i: last.id }) : null,
  };
}

function toView(row: AuditEventRow): AuditEventView {
  return {
    id: row.id,
    occurredAt: row.occurredAt.toISOString(),
    action: row.action as AuditAction,
    platformKey: row.platformKey,
    fieldKey: row.fieldKey,
    sessionId: row.sessionId,
    // Only on document.* events (the properties are optional in the contract).
    ...(row.documentKey ? { documentKey: row.documentKey, documentVersion: row.documentVersion ?? null } : {}),
    // Only on support_access.* events (issue 35).
    ...(row.supportAccessId ? { supportAccessId: row.supportAccessId } : {}),
    ...(row.endedBy ? { endedBy: row.endedBy } : {}),
    actor: { type: row.actorType, userId: row.actorUserId, sub: row.actorSub, via: row.actorVia ?? null, platformKey: row.actorPlatformKey ?? null },
    changedFields: row.changedFields,
    requestId: row.requestId,
  };
}
