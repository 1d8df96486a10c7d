import { randomUUID } from 'node:crypto';
import type { AppDeps } from '../../deps.ts';
import type { Principal } from '../../domain/types.ts';
import { ApiError, validationError } from '../../errors/catalogue.ts';
import { randomToken, sha256 } from '../../security/crypto.ts';
import { requireReturnTo } from '../../security/returnTo.ts';
import type { PlatformRow } from '../registry/index.ts';
import { activeFieldsWithValues, findCompletedRequirementVersion } from '../onboarding/index.ts';
import { calculateStatus } from '../onboarding/status.ts';
import { issueHandoff } from '../login/handoff.ts';
import { isStepUpChallenge, stepUpTokenMissing } from '../login/index.ts';
import { platformStateAad } from '../login/loginFlow.ts';
import { refuseInsecureLoginUrls } from '../registry/platformUrls.ts';
import { recordAuditEvent, actorFromPrincipal } from '../audit/audit.ts';
import { recordSupportAccessEvent } from '../events/record.ts';
import { SECURITY_EVENT_TYPES } from '../events/types.ts';
import { SESSION_TOKEN_PREFIX } from '../sessions/create.ts';
import { attachSupportSession, findSupportAccess, insertSupportSession, insertSupportTransaction, useSupportAccessRow } from './repository.ts';
import { refusalOf, refuseUnlessEnterable, requireOperator } from './rules.ts';

export interface SupportSignInInput {
  supportAccessId: string;
  returnTo: string;
  handoffChallenge?: string | undefined;
  platformState?: string | undefined;
  stepUp?: string | undefined;
  maxAge?: number | undefined;
  forceLogin?: boolean | undefined;
  requireSecondFactor?: boolean | undefined;
}

/**
 * GET /v1/auth/start with `supportAccess` (issue 35): the operator's browser, sent by the
 * platform's own sign-in route (so the platform's back end binds this login with its handoff
 * challenge and correlation value, as every other), signs in to the platform as the person.
 *
 * Who acts is the caller of this request, read from the gateway session of their own provider
 * login (the browser's cookie), never from a parameter: a link forwarded to another operator,
 * or to the person, signs nobody in. The access is spent by one conditional UPDATE (its operator,
 * its platform, approved or announced, unused, unended, unexpired), in the transaction that
 * creates the person's support session (no permission, ending with the access), the login's
 * transaction row and the handoff code: all or nothing.
 */
export async function startSupportSignIn(
  deps: AppDeps,
  operatorPrincipal: Principal | undefined,
  platform: PlatformRow,
  input: SupportSignInInput,
  requestId: string,
): Promise<URL> {
  if (!operatorPrincipal || operatorPrincipal.via !== 'session') {
    throw new ApiError('UNAUTHENTICATED', 'A support sign-in needs your own gateway session: sign in to the account center in this browser first.');
  }
  const operator = requireOperator(operatorPrincipal);
  // The same checks as every start (loginFlow.ts steps 4 to 5a).
  if (!platform.callbackUrl) throw new ApiError('PLATFORM_CALLBACK_NOT_CONFIGURED', 'The platform has no callback URL.');
  refuseInsecureLoginUrls(platform, deps.config.isProduction);
  const returnTo = requireReturnTo(input.returnTo, platform.allowedReturnUrls);
  if (platform.handoffChallengeRequired && !input.handoffChallenge) {
    throw new ApiError('HANDOFF_CHALLENGE_REQUIRED', 'This platform requires handoffChallenge at start.');
  }
  // A support sign-in is never a fresh sign-in of the person (no provider round trip), so it can
  // meet no request for one, and the gateway refuses a login that does not meet its request
  // (LoginAuthentication): a step-up's token, maxAge, forceLogin, requireSecondFactor are refused
  // here, and a step-up's challenge without its token below, as at every start (loginFlow.ts
  // step 6). Nothing is spent.
  const fresh = (['stepUp', 'maxAge', 'forceLogin', 'requireSecondFactor'] as const).filter((name) => input[name] !== undefined && input[name] !== false);
  if (fresh.length > 0) {
    throw validationError(fresh.map((name) => ({ pointer: `/query/${name}`, message: 'a support sign-in is not a fresh sign-in of the person' })), 'A support sign-in cannot confirm who the person is.');
  }
  // Settings may have changed since the request: a platform turned off or marked sensitive is never entered.
  refuseUnlessEnterable(platform, deps.config.authPlatformKey ?? null);
  const callbackUrl = platform.callbackUrl;
  const sessionId = randomUUID();
  const transactionId = randomUUID();
  const platformStateSealed = input.platformState ? deps.keyRing.seal(input.platformState, platformStateAad(transactionId)) : null;
  const used = await deps.db.transaction(async (trx) => {
    if (input.handoffChallenge && (await isStepUpChallenge(trx, { handoffChallenge: input.handoffChallenge, platformId: platform.id }))) throw stepUpTokenMissing();
    const grant = await useSupportAccessRow(trx, { id: input.supportAccessId, operatorUserId: operator.userId, platformId: platform.id });
    if (!grant) return undefined;
    // The session's own token is made and thrown away: only the platform's credential (the exchange's) ever reaches it.
    await insertSupportSession(trx, {
      id: sessionId,
      userId: grant.userId,
      tokenDigest: sha256(`${SESSION_TOKEN_PREFIX}${randomToken(32)}`),
      endsAt: grant.endsAt,
      supportAccessId: input.supportAccessId,
      actor: { sub: operator.sub, name: grant.operatorName },
    });
    await attachSupportSession(trx, input.supportAccessId, sessionId);
    await insertSupportTransaction(trx, {
      id: transactionId,
      platformId: platform.id,
      stateDigest: sha256(randomToken(32)),
      nonceDigest: sha256(randomToken(32)),
      onboardingMode: platform.defaultOnboardingMode,
      platformCallbackUrl: callbackUrl,
      returnTo: returnTo.href,
      handoffChallenge: input.handoffChallenge ?? null,
      platformStateSealed,
      userId: grant.userId,
      sessionId,
    });
    const { fields, documents, graces } = await activeFieldsWithValues(trx, platform.id, grant.userId);
    const onboarding = calculateStatus(platform, fields, await findCompletedRequirementVersion(trx, grant.userId, platform.id), documents, graces);
    const target = await issueHandoff(trx, deps.config.authHandoffTtlSeconds, {
      transactionId,
      platformId: platform.id,
      userId: grant.userId,
      sessionId,
      onboarding,
      callbackUrl,
      platformState: input.platformState ?? null,
    });
    await recordAuditEvent(trx, { action: 'support_access.use', platformKey: platform.platformKey, sessionId, supportAccessId: input.supportAccessId, changedFields: [] }, actorFromPrincipal(operatorPrincipal, requestId));
    await recordSupportAccessEvent(trx, {
      userId: grant.userId,
      platformId: platform.id,
      type: SECURITY_EVENT_TYPES.supportAccessStarted,
      payload: { session: sessionId, act_sub: operator.sub, ends_at: Math.floor(grant.endsAt.getTime() / 1000) },
    });
    return target;
  });
  if (!used) {
    // Nothing was spent: say why (the access's state), or that it is not this operator's or platform's.
    const row = await findSupportAccess(deps.db, input.supportAccessId);
    if (!row) throw new ApiError('SUPPORT_ACCESS_NOT_FOUND', 'No support access has this id.');
    throw refusalOf(row);
  }
  deps.metrics?.handoffsIssued.inc();
  return used;
}
