import type { components } from '../../../generated/gateway.ts';
import type { Db } from '../../db/knex.ts';
import type { Principal } from '../../domain/types.ts';
import { findSessionOwner, listLiveSessions } from './repository.ts';
import { ApiError } from '../../errors/catalogue.ts';
import { recordAuditEvent, type Actor } from '../audit/audit.ts';
import { requireLocalUser } from '../account/localUser.ts';
import { endSessions } from './ending.ts';
import { endSupportAccessOfRevokedOperator } from '../supportAccess/operatorEnds.ts';

export type SessionList = components['schemas']['SessionList'];

const isAdministrator = (principal: Principal) => principal.permissions.includes('platforms:admin');

/** The caller's live sessions; with `userId`, an administrator's view of another user's. */
export async function listSessions(db: Db, principal: Principal, idleSeconds: number, userId?: string): Promise<SessionList> {
  const own = requireLocalUser(principal);
  if (userId !== undefined && userId !== own && !isAdministrator(principal)) {
    throw new ApiError('FORBIDDEN', "Listing another user's sessions needs the permission platforms:admin.");
  }
  const rows = await listLiveSessions(db, userId ?? own, idleSeconds);
  return {
    items: rows.map((row) => ({
      id: row.id,
      createdAt: row.createdAt.toISOString(),
      lastUsedAt: row.lastUsedAt.toISOString(),
      expiresAt: row.expiresAt.toISOString(),
      idleExpiresAt: new Date(row.lastUsedAt.getTime() + idleSeconds * 1000).toISOString(),
      userAgent: row.userAgent,
      ipPrefix: row.ipPrefix,
      platforms: row.platforms,
      current: row.id === principal.session?.id,
    })),
  };
}

/**
 * Revokes one session: the user's own, or any with platforms:admin. Someone else's session
 * looks like an unknown one to a non-administrator. Audited; revoking an ended session
 * changes nothing (and records nothing).
 */
export async function revokeSession(
  db: Db,
  principal: Principal,
  sessionId: string,
  actor: Actor,
  hooks: { beforeRevokingOthers?: () => Promise<void> } = {},
): Promise<void> {
  const own = requireLocalUser(principal);
  const owner = await findSessionOwner(db, sessionId);
  if (!owner || (owner.userId !== own && !isAdministrator(principal))) {
    throw new ApiError('SESSION_NOT_FOUND', 'No session of yours has this id.');
  }
  if (owner.userId !== own) await hooks.beforeRevokingOthers?.();
  if (owner.ended) return;
  // Someone else's session, revoked by an administrator: a support session's access ends by
  // the administrator, not by the person whose session it is (issue 35's attack review); an
  // operator's session takes the support accesses the operator is running with it.
  const byAdministrator = owner.userId !== own;
  await endSessions(db, { sessionIds: [sessionId] }, 'revoked', async (trx) => {
    await recordAuditEvent(trx, { action: 'session.revoke', platformKey: null, sessionId, changedFields: [] }, actor);
    if (byAdministrator) await endSupportAccessOfRevokedOperator(trx, sessionId);
  }, byAdministrator ? 'administrator' : undefined);
}

/**
 * "Sign out everywhere else": ends every live session of the caller but the one the request
 * came with (a Bearer caller has none, so all of them), with their platforms told, one audit
 * event per ended session. Sessions that already ended are not counted again.
 */
export async function revokeOtherSessions(db: Db, principal: Principal, actor: Actor): Promise<number> {
  const own = requireLocalUser(principal);
  const ended = await endSessions(db, { userId: own, except: principal.session?.id ?? null }, 'revoked', async (trx, ids) => {
    for (const sessionId of ids) {
      await recordAuditEvent(trx, { action: 'session.revoke', platformKey: null, sessionId, changedFields: [] }, actor);
    }
  });
  return ended.length;
}
