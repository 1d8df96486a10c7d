import type { Db } from '../../db/knex.ts';
import type { Principal } from '../../domain/types.ts';
import { ApiError } from '../../errors/catalogue.ts';
import { findActivePlatformByKey } from '../registry/index.ts';
import { recordAuditEvent, type Actor } from '../audit/audit.ts';
import { endSessions } from '../sessions/ending.ts';
import { announceSupportAccessEnded, auditSupportAccessEnds } from './sessionEnds.ts';
import {
  answerSupportAccessRow,
  countRecentApprovalRequests,
  endExpiredSupportAccessRows,
  endSupportAccessRow,
  findOperatorName,
  findPersonForSupport,
  findSupportAccess,
  insertSupportAccess,
  listSupportAccessRows,
  type SupportAccessRow,
} from './repository.ts';
import { ANSWER_SECONDS, APPROVAL_REQUESTS_PER_PERSON, DEFAULT_DURATION_MINUTES, refusalOf, refuseUnlessEnterable, requireOperator, supportSessionForbidden, toView, type SupportAccessView } from './rules.ts';

/** POST /v1/support-access: an operator asks to see a platform as a person. */
export async function requestSupportAccess(
  db: Db,
  principal: Principal,
  input: { person: string; platformKey: string; reason: string; durationMinutes?: number | undefined },
  actor: Actor,
  accountCenterPlatformKey: string | null,
): Promise<SupportAccessView> {
  const operator = requireOperator(principal);
  const platform = await findActivePlatformByKey(db, input.platformKey);
  if (!platform) throw new ApiError('PLATFORM_NOT_FOUND', `No active platform has the key ${input.platformKey}.`);
  const mode = refuseUnlessEnterable(platform, accountCenterPlatformKey);
  const person = await findPersonForSupport(db, input.person);
  if (!person) throw new ApiError('PERSON_NOT_FOUND', 'No single account has this subject or e-mail address.');
  if (person.id === operator.userId) throw new ApiError('SUPPORT_ACCESS_NOT_ALLOWED', 'Support access is to another person, not to yourself.');
  const id = await db.transaction(async (trx) => {
    if (mode === 'approve') await refuseFlooding(trx, person.id);
    const created = await insertSupportAccess(trx, {
      platformId: platform.id,
      userId: person.id,
      operatorUserId: operator.userId,
      operatorSub: operator.sub,
      operatorName: await findOperatorName(trx, operator.userId),
      reason: input.reason.trim(),
      durationSeconds: (input.durationMinutes ?? DEFAULT_DURATION_MINUTES) * 60,
      mode,
      answerSeconds: ANSWER_SECONDS,
    });
    await recordAuditEvent(trx, { action: 'support_access.request', platformKey: platform.platformKey, supportAccessId: created, changedFields: [] }, actor);
    return created;
  });
  return toView((await findSupportAccess(db, id))!, true);
}

/**
 * A person is asked to approve at most APPROVAL_REQUESTS_PER_PERSON times per answer window,
 * whatever the operators: the per-operator rate limit alone lets a stranger operator, or several,
 * fill a person's page with requests to approve (issue 35's attack review). `notify` requests ask
 * nothing of the person and are not counted. Inside the request's transaction (the lock is held
 * until the insert commits).
 */
async function refuseFlooding(trx: Db, userId: string): Promise<void> {
  const recent = await countRecentApprovalRequests(trx, { userId, windowSeconds: ANSWER_SECONDS, limit: APPROVAL_REQUESTS_PER_PERSON });
  if (recent.count < APPROVAL_REQUESTS_PER_PERSON) return;
  throw new ApiError('TOO_MANY_SUPPORT_REQUESTS', `This person was asked to approve support access ${APPROVAL_REQUESTS_PER_PERSON} times in the last ${ANSWER_SECONDS / 60} minutes.`, {
    headers: { 'Retry-After': String(recent.retryAfterSeconds) },
  });
}

export async function listSupportAccess(db: Db, principal: Principal, limit: number): Promise<{ items: SupportAccessView[] }> {
  requireOperator(principal);
  const rows = await listSupportAccessRows(db, { limit });
  return { items: rows.map((row) => toView(row, row.operatorUserId === principal.userId)) };
}

/** The person's own history (the account center). */
export async function listMySupportAccess(db: Db, principal: Principal): Promise<{ items: SupportAccessView[] }> {
  const userId = requirePerson(principal);
  const rows = await listSupportAccessRows(db, { userId, limit: 100 });
  return { items: rows.map((row) => toView(row, false)) };
}

/**
 * The person approves or refuses, from their own browser session only: no platform's
 * credential, no Bearer token, no support session can answer in their name.
 */
export async function answerSupportAccess(db: Db, principal: Principal, id: string, decision: 'approve' | 'refuse', actor: Actor): Promise<SupportAccessView> {
  const userId = requirePerson(principal);
  if (principal.via !== 'session') throw new ApiError('FORBIDDEN', "Only the person's own browser session (the account center) answers a support access request.");
  const approve = decision === 'approve';
  const answered = await db.transaction(async (trx) => {
    const done = await answerSupportAccessRow(trx, { id, userId, approve });
    if (done) {
      const row = await findSupportAccess(trx, id);
      await recordAuditEvent(trx, { action: approve ? 'support_access.approve' : 'support_access.refuse', platformKey: row?.platformKey ?? null, supportAccessId: id, changedFields: [] }, actor);
    }
    return done;
  });
  const row = await findOwnSupportAccess(db, id, userId);
  if (answered) return toView(row, false);
  // A second submission of the same answer records nothing and answers the access as it is.
  if (approve && row.approvedAt !== null && row.status !== 'refused') return toView(row, false);
  if (!approve && row.status === 'refused') return toView(row, false);
  throw refusalOf(row);
}

/** POST …/end by the operator (support:access) or the person: once; the support session ends at once. */
export async function endSupportAccess(db: Db, principal: Principal, id: string, by: 'operator' | 'person', actor: Actor): Promise<SupportAccessView> {
  const userId = by === 'person' ? requirePerson(principal) : (requireOperator(principal), undefined);
  const found = await findSupportAccess(db, id);
  if (!found || (userId !== undefined && found.userId !== userId)) throw notFound();
  await db.transaction(async (trx) => {
    const ended = await endSupportAccessRow(trx, { id, reason: by, ...(userId ? { userId } : {}) });
    if (!ended) return;
    await recordAuditEvent(trx, { action: 'support_access.end', platformKey: found.platformKey, supportAccessId: id, endedBy: by, ...(ended.sessionId ? { sessionId: ended.sessionId } : {}), changedFields: [] }, actor);
    if (ended.sessionId) await endSupportSession(trx, { sessionId: ended.sessionId, userId: ended.userId, platformId: ended.platformId, endedBy: by });
  });
  return toView((await findSupportAccess(db, id))!, by === 'operator');
}

/**
 * Ends the support session (back-channel logout to the platform, queued in this transaction by
 * endSessions) and tells the platform by a Security Event Token, when it receives them.
 */
async function endSupportSession(trx: Db, input: { sessionId: string; userId: string; platformId: string; endedBy: 'operator' | 'person' | 'expired' }): Promise<void> {
  await endSessions(trx, { sessionIds: [input.sessionId] }, input.endedBy === 'expired' ? 'expired' : 'revoked');
  await announceSupportAccessEnded(trx, [input], input.endedBy);
}

/**
 * The purge's part (maintenance.ts): used accesses whose time ran out end by time, their
 * session with them (if the session purge has not ended it yet) and their platform hears a
 * `support-access-ended` (ended_by `expired`). Returns how many ended.
 */
export async function endExpiredSupportAccess(db: Db, batch = 500): Promise<number> {
  let total = 0;
  for (;;) {
    const ended = await db.transaction(async (trx) => {
      const rows = await endExpiredSupportAccessRows(trx, batch);
      await auditSupportAccessEnds(trx, rows, 'expired');
      for (const row of rows) {
        if (row.sessionId) await endSupportSession(trx, { sessionId: row.sessionId, userId: row.userId, platformId: row.platformId, endedBy: 'expired' });
      }
      return rows.length;
    });
    total += ended;
    if (ended < batch) return total;
  }
}

function requirePerson(principal: Principal): string {
  if (principal.supportAccessId) throw supportSessionForbidden();
  if (!principal.userId) throw new ApiError('FORBIDDEN', 'Sign in through the gateway first.');
  return principal.userId;
}

async function findOwnSupportAccess(db: Db, id: string, userId: string): Promise<SupportAccessRow> {
  const row = await findSupportAccess(db, id);
  if (!row || row.userId !== userId) throw notFound();
  return row;
}

const notFound = () => new ApiError('SUPPORT_ACCESS_NOT_FOUND', 'No support access has this id.');
