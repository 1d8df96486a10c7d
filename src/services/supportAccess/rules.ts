import type { components } from '../../../generated/gateway.ts';
import { ApiError } from '../../errors/catalogue.ts';
import type { Principal } from '../../domain/types.ts';
import type { PlatformRow } from '../registry/index.ts';
import type { SupportAccessRow } from './repository.ts';

// The rules of support access (issue 35) that a schema cannot say.

export type SupportAccessView = components['schemas']['SupportAccess'];

/** How long a request waits for the person's answer (issue 35: "expires unanswered after 10 minutes"). */
export const ANSWER_SECONDS = 10 * 60;
/** Approval requests one person may receive per answer window, from all operators together. */
export const APPROVAL_REQUESTS_PER_PERSON = 3;
export const DEFAULT_DURATION_MINUTES = 15;

/**
 * A platform support access may enter: opted in (`supportAccess` not `off`), not marked
 * sensitive, not the account center's own platform (whoever entered it would reach the
 * person's account operations and the admin pages), and with a sign-in route to send the
 * operator to. Refused with one code; `detail` says which.
 */
export function refuseUnlessEnterable(platform: PlatformRow, accountCenterPlatformKey: string | null): 'notify' | 'approve' {
  const refuse = (why: string) => new ApiError('SUPPORT_ACCESS_NOT_ALLOWED', `Support access to ${platform.platformKey} is not allowed: ${why}.`);
  if (accountCenterPlatformKey !== null && platform.platformKey === accountCenterPlatformKey) throw refuse("it is the account center's own platform");
  if (platform.sensitive) throw refuse('the platform is marked sensitive');
  if (platform.supportAccess === 'off') throw refuse('the platform has not opted in (supportAccess is off)');
  if (!platform.supportSignInUrl) throw refuse('the platform has no supportSignInUrl');
  return platform.supportAccess;
}

/** The operator: a caller with a local user (their own provider login), holding support:access, not in a support session. */
export function requireOperator(principal: Principal): { userId: string; sub: string } {
  if (principal.supportAccessId) throw supportSessionForbidden();
  if (!principal.userId) throw new ApiError('FORBIDDEN', 'Sign in through the gateway once before requesting support access.');
  if (!principal.permissions.includes('support:access')) throw new ApiError('FORBIDDEN', 'This needs the permission support:access.');
  return { userId: principal.userId, sub: principal.sub };
}

export const supportSessionForbidden = () =>
  new ApiError('SUPPORT_SESSION_FORBIDDEN', "A support session cannot do this: it is the person's own account operation.");

/** The link that signs the operator in: the platform's route with the access's id. */
export function signInUrlOf(row: Pick<SupportAccessRow, 'id' | 'supportSignInUrl'>): string | null {
  if (!row.supportSignInUrl) return null;
  const url = new URL(row.supportSignInUrl);
  url.searchParams.set('supportAccess', row.id);
  return url.href;
}

/** The refusal a spent or unusable access gives, from its status. */
export function refusalOf(row: SupportAccessRow): ApiError {
  switch (row.status) {
    case 'pending':
      return new ApiError('APPROVAL_REQUIRED', 'The person has not approved this support access yet.');
    case 'unanswered':
    case 'expired':
      return new ApiError('SUPPORT_ACCESS_EXPIRED', row.status === 'unanswered' ? 'The person did not answer within 10 minutes.' : 'The support access has run out of time.');
    case 'refused':
      return new ApiError('SUPPORT_ACCESS_ENDED', 'The person refused this support access.');
    case 'ended':
      return new ApiError('SUPPORT_ACCESS_ENDED', 'This support access has ended.');
    default:
      return new ApiError('SUPPORT_ACCESS_ENDED', 'This support access was already used, or belongs to another operator or platform.');
  }
}

/** The read representation; `signInUrl` only for operators, while the access can still sign in. */
export function toView(row: SupportAccessRow, forOperator: boolean): SupportAccessView {
  const iso = (date: Date | null) => (date ? date.toISOString() : null);
  return {
    id: row.id,
    status: row.status,
    person: { sub: row.personSub, displayName: row.personDisplayName },
    platform: { key: row.platformKey, displayName: row.platformDisplayName },
    operator: { sub: row.operatorSub, name: row.operatorName },
    reason: row.reason,
    durationMinutes: Math.round(row.durationSeconds / 60),
    mode: row.mode,
    requestedAt: row.requestedAt.toISOString(),
    answerBy: iso(row.answerBy),
    approvedAt: iso(row.approvedAt),
    refusedAt: iso(row.refusedAt),
    endsAt: iso(row.endsAt),
    usedAt: iso(row.usedAt),
    endedAt: iso(row.endedAt),
    endedBy: row.endReason,
    signInUrl: forOperator && row.status === 'active' && row.usedAt === null ? signInUrlOf(row) : null,
  };
}
