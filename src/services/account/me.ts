import type { components } from '../../../generated/gateway.ts';
import type { Db } from '../../db/knex.ts';
import type { Principal } from '../../domain/types.ts';
import { activePlatformsOfMember } from '../registry/index.ts';
import { findProfile } from './profilesRepository.ts';
import { bootstrapAndEvaluate } from '../onboarding/status.ts';
import { requireLocalUser } from './localUser.ts';
import { profileSeenBy } from './profile.ts';
import { findSupportSessionDescription } from '../supportAccess/index.ts';

export type Me = components['schemas']['Me'];

/**
 * GET /v1/me: the caller as the gateway sees it, for this credential. The permissions are
 * those this credential may exercise (a platform credential never `platforms:admin`); they
 * were read at login for a session, from the token for a Bearer caller.
 */
export async function describeCaller(db: Db, principal: Principal): Promise<Me> {
  const userId = requireLocalUser(principal);
  // A support session says so, as the exchange did (issue 35); other callers read nothing more.
  const [profile, platforms, support] = await Promise.all([
    // The display name as the caller may read it (issue 36: a platform binding it `ask`/`own` gets its own).
    findProfile(db, userId).then((row) => profileSeenBy(db, principal, userId, row)),
    activePlatformsOfMember(db, userId),
    principal.supportAccessId ? findSupportSessionDescription(db, principal.supportAccessId) : undefined,
  ]);
  const memberships = [];
  // A caller that is not central (a platform, or its app) hears of its own platforms only: which
  // other platforms the person uses, and their onboarding there, are not its business.
  for (const platform of platforms.filter((member) => principal.central || principal.platformClaims.includes(member.platformKey))) {
    memberships.push({ platformKey: platform.platformKey, displayName: platform.displayName, onboarding: await bootstrapAndEvaluate(db, userId, platform) });
  }
  return {
    user: { id: userId, sub: principal.sub, email: profile.email, displayName: profile.displayName, pictureUrl: profile.pictureUrl, locale: profile.locale },
    permissions: principal.permissions,
    permissionsReadAt: principal.permissionsReadAt?.toISOString() ?? null,
    authentication: principal.via,
    platform: principal.platform?.key ?? null,
    session: principal.session ? { id: principal.session.id, expiresAt: principal.session.expiresAt.toISOString() } : null,
    memberships,
    ...support,
  };
}
