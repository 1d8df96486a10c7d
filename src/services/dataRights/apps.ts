import type { components } from '../../../generated/gateway.ts';
import type { Db } from '../../db/knex.ts';
import type { Principal } from '../../domain/types.ts';
import { ApiError } from '../../errors/catalogue.ts';
import { recordAuditEvent, type Actor } from '../audit/audit.ts';
import { requireLocalUser } from '../account/localUser.ts';
import { enqueueBackchannelLogoutsOfPlatform } from '../backchannel/outbox.ts';
import { recordPlatformLeft } from '../events/record.ts';
import { listAppRows, lockMembership, removePlatformData, type AppRow, type LeftPlatform } from './appsRepository.ts';

export type AppWithMyData = components['schemas']['AppWithMyData'];

/** What every platform receives at the exchange, whatever its schema (the contract's HandoffExchangeResponse). */
const EXCHANGE_IDENTITY: AppWithMyData['identity'] = ['userId', 'sub', 'sessionId', 'permissions', 'onboardingStatus'];

/**
 * "Apps with my data": the platforms the person has used. "Used" means a membership: the
 * gateway creates it at the person's first sign-in to the platform (the login callback) or
 * first onboarding write, and removes it when the person leaves. The gateway's own platform
 * (AUTH_PLATFORM_KEY, the account center) is not an app to leave, so it is not listed.
 */
export async function listMyApps(db: Db, principal: Principal, ownPlatformKey: string | null): Promise<{ items: AppWithMyData[] }> {
  const rows = await listAppRows(db, requireLocalUser(principal), ownPlatformKey);
  return { items: rows.map(toView) };
}

/**
 * "Leave this platform", in one transaction: the membership is locked (two leaves at once
 * leave once), the platform is told by back-channel logout for each live session it holds a
 * credential for, its pending handoff codes for the person expire, its credentials are revoked
 * (its calls get 401 from then on), the person's platform-scoped values and membership are
 * removed, the leave is audited, and the platform's "person left" event (a Security Event
 * Token, issue 26 §1) is recorded, so that it commits, or rolls back, with the leaving. The
 * gateway sessions themselves stay: the account center and other platforms signed in with them
 * are not signed out. The next sign-in to the platform creates a new membership and onboarding
 * starts from the beginning.
 */
export async function leavePlatform(db: Db, principal: Principal, platformKey: string, actor: Actor, ownPlatformKey: string | null): Promise<LeftPlatform> {
  const userId = requireLocalUser(principal);
  if (ownPlatformKey !== null && platformKey === ownPlatformKey) {
    throw new ApiError('CONFLICT', 'This is the account center\'s own platform: it cannot be left (delete the account instead).');
  }
  return db.transaction(async (trx) => {
    const membership = await lockMembership(trx, userId, platformKey);
    if (!membership) throw new ApiError('PLATFORM_NOT_FOUND', 'You do not use this platform (or have already left it).');
    await enqueueBackchannelLogoutsOfPlatform(trx, userId, membership.platformId);
    const left = await removePlatformData(trx, userId, membership.platformId);
    await recordAuditEvent(trx, { action: 'membership.leave', platformKey, changedFields: ['credentials', 'onboardingValues', 'membership'] }, actor);
    await recordPlatformLeft(trx, { userId, platformId: membership.platformId });
    return left;
  });
}

function toView(row: AppRow): AppWithMyData {
  return {
    platformKey: row.platformKey,
    displayName: row.displayName,
    active: row.active,
    firstUsedAt: row.firstUsedAt.toISOString(),
    lastSignedInAt: row.lastSignedInAt.toISOString(),
    onboardingCompleted: row.completedRequirementVersion !== null && row.completedRequirementVersion === row.requirementVersion,
    completedRequirementVersion: row.completedRequirementVersion,
    identity: [...EXCHANGE_IDENTITY],
    fields: row.fields as AppWithMyData['fields'],
  };
}
