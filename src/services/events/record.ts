import type { components } from '../../../generated/gateway.ts';
import type { Db } from '../../db/knex.ts';
import { ApiError, validationError } from '../../errors/catalogue.ts';
import { countSecurityEventsRecorded } from '../../observability/metrics.ts';
import { insertEventForPlatform, insertEventForRelatedPlatforms, insertProfileChangedEvents, listEventsOfPlatform } from './repository.ts';
import { SECURITY_EVENT_TYPES, type SecurityEventPayload, type SecurityEventRow, type SecurityEventStatus, type SecurityEventType } from './types.ts';

// Recording events about a person for the platforms that have a relationship with them. Every
// function takes the caller's transaction (`trx`): the event, and its push job, commit or roll
// back with the change they report (a transactional outbox). Nothing is sent here; the worker
// (push.ts) and the poll endpoint (poll.ts) deliver.
//
// Who hears: the platforms the person has a membership of (created at the first sign-in through
// the platform) that receive events (eventDelivery push or poll). Call these BEFORE removing the
// membership (erasure), or the platform is no longer related; recordPlatformLeft is the one
// exception (it names its platform, whose membership the leave has just removed).

export type SecurityEventDelivery = components['schemas']['SecurityEventDelivery'];
export type SecurityEventDeliveryList = components['schemas']['SecurityEventDeliveryList'];

/**
 * Records one event about a person for every related platform, or only for `platformId` (if it
 * is related). The payload must be minimal (names, dates; never a profile value or a secret).
 * Returns the recorded SET ids (`jti`s), one per platform.
 *
 * Wiring for other features: leaving a platform calls recordPlatformLeft (in
 * services/dataRights/apps.ts); withdrawing consent calls recordConsentWithdrawn.
 */
export async function recordPersonEvent(
  trx: Db,
  input: { userId: string; type: SecurityEventType; payload?: SecurityEventPayload; platformId?: string | null },
): Promise<string[]> {
  const ids = await insertEventForRelatedPlatforms(trx, { userId: input.userId, eventType: input.type, payload: input.payload ?? {}, platformId: input.platformId ?? null });
  countSecurityEventsRecorded(input.type, ids.length, trx);
  return ids;
}

/**
 * Support access started or ended on one platform (issue 35): that platform hears, whether or
 * not the person has a membership of it (the access itself is the relationship).
 */
export async function recordSupportAccessEvent(trx: Db, input: { userId: string; platformId: string; type: SecurityEventType; payload: SecurityEventPayload }): Promise<string[]> {
  const ids = await insertEventForPlatform(trx, { userId: input.userId, eventType: input.type, payload: input.payload, platformId: input.platformId });
  countSecurityEventsRecorded(input.type, ids.length, trx);
  return ids;
}

/** The person deleted their account; the data is erased after `eraseAfter` (deletion time plus the retention). */
export function recordAccountDeletionScheduled(trx: Db, input: { userId: string; eraseAfter: Date }): Promise<string[]> {
  return recordPersonEvent(trx, { userId: input.userId, type: SECURITY_EVENT_TYPES.accountDeletionScheduled, payload: { erase_after: Math.floor(input.eraseAfter.getTime() / 1000) } });
}

/** The retention ended and the data is being erased (record before the memberships go). */
export function recordAccountErased(trx: Db, userId: string): Promise<string[]> {
  return recordPersonEvent(trx, { userId, type: SECURITY_EVENT_TYPES.accountErased });
}

/**
 * The person left one platform ("Leave this platform"): that platform hears it, if it receives
 * events. Called in the leaving transaction, after the membership is removed (the leave itself
 * is the proof of the relationship), so it targets the platform directly.
 */
export async function recordPlatformLeft(trx: Db, input: { userId: string; platformId: string }): Promise<string[]> {
  const ids = await insertEventForPlatform(trx, { userId: input.userId, eventType: SECURITY_EVENT_TYPES.platformLeft, payload: {}, platformId: input.platformId });
  countSecurityEventsRecorded(SECURITY_EVENT_TYPES.platformLeft, ids.length, trx);
  return ids;
}

/**
 * The person withdrew their agreement to a document (the terms feature). `platformId` limits the
 * event to the platform the document belongs to; without it every related platform hears.
 */
export function recordConsentWithdrawn(trx: Db, input: { userId: string; documentKey: string; version: number | string; platformId?: string | null }): Promise<string[]> {
  return recordPersonEvent(trx, {
    userId: input.userId,
    type: SECURITY_EVENT_TYPES.consentWithdrawn,
    payload: { document: input.documentKey, version: input.version },
    platformId: input.platformId ?? null,
  });
}

/**
 * Profile properties changed: each related platform whose schema binds some of them (active
 * PROFILE_FIELD fields) hears which of ITS field keys changed, and nothing else. `changed` are
 * the profile property names (firstName, phone, ...) whose value differs from before.
 */
export async function recordProfileChange(trx: Db, input: { userId: string; changed: readonly string[] }): Promise<string[]> {
  const ids = await insertProfileChangedEvents(trx, { userId: input.userId, eventType: SECURITY_EVENT_TYPES.profileChanged, changedProperties: [...input.changed] });
  countSecurityEventsRecorded(SECURITY_EVENT_TYPES.profileChanged, ids.length, trx);
  return ids;
}

// ---------------------------------------------------------------- the delivery record

const STATUSES: readonly SecurityEventStatus[] = ['pending', 'delivered', 'failed'];
const DEFAULT_LIMIT = 50;

/**
 * GET /v1/platforms/{platformKey}/security-events and `gateway events list`: the newest records
 * of one platform. The API validated the query against the contract already; the checks repeat
 * for the CLI, which hands strings over.
 */
export async function listSecurityEventDeliveries(db: Db, platformKey: string, query: { status?: string | undefined; limit?: number | undefined }): Promise<SecurityEventDeliveryList> {
  if (query.status !== undefined && !(STATUSES as readonly string[]).includes(query.status)) {
    throw validationError([{ pointer: '/query/status', message: `must be one of ${STATUSES.join(', ')}` }]);
  }
  const limit = query.limit ?? DEFAULT_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw validationError([{ pointer: '/query/limit', message: 'must be an integer from 1 to 100' }]);
  const rows = await listEventsOfPlatform(db, platformKey, { status: (query.status as SecurityEventStatus | undefined) ?? null, limit });
  if (!rows) throw new ApiError('PLATFORM_NOT_FOUND', `No platform with the key ${JSON.stringify(platformKey.slice(0, 64))} is registered.`);
  return { items: rows.map(toDelivery) };
}

function toDelivery(row: SecurityEventRow): SecurityEventDelivery {
  return {
    jti: row.id,
    eventType: row.eventType as SecurityEventDelivery['eventType'],
    userId: row.userId,
    mode: row.mode,
    status: row.status,
    attempts: row.attempts,
    errorCode: row.errorCode,
    lastError: row.lastError,
    occurredAt: row.occurredAt.toISOString(),
    deliveredAt: row.deliveredAt?.toISOString() ?? null,
    failedAt: row.failedAt?.toISOString() ?? null,
  };
}
