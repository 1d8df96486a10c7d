import type { AppDeps } from '../../deps.ts';
import { statementDeadline, type Db } from '../../db/knex.ts';
import type { Permission } from '../../domain/types.ts';
import { ApiError } from '../../errors/catalogue.ts';
import { randomToken, s256Challenge, sha256 } from '../../security/crypto.ts';
import { findRedeemedHandoff, insertHandoff, redeemHandoff, type RedeemedHandoff } from './handoffsRepository.ts';
import { isDatabaseUnavailable, isOutcomeUnknown } from '../../db/errors.ts';
import type { OnboardingStatus } from '../../domain/types.ts';
import { newPlatformCredential } from '../sessions/create.ts';
import { outcomeOf } from '../../observability/metrics.ts';
import { withPlatformClient } from '../registry/platformClient.ts';

export const HANDOFF_PREFIX = 'handoff_';

/**
 * Issues the one handoff code of a transaction and returns the platform callback
 * URL carrying it. Only the code's digest is stored. A second attempt for the
 * same transaction is a 409 CONFLICT (unique on transaction_id).
 */
export async function issueHandoff(
  db: Db,
  ttlSeconds: number,
  input: { transactionId: string; platformId: string; userId: string; sessionId: string; onboarding: OnboardingStatus; callbackUrl: string; platformState?: string | null },
): Promise<URL> {
  const code = newHandoffCode();
  const inserted = await insertHandoff(db, {
    codeDigest: sha256(code),
    transactionId: input.transactionId,
    platformId: input.platformId,
    userId: input.userId,
    sessionId: input.sessionId,
    onboarding: input.onboarding,
    ttlSeconds,
  });
  if (!inserted) throw new ApiError('CONFLICT', 'A handoff code was already issued for this login transaction.');
  return handoffUrl(input.callbackUrl, code, input.platformState ?? null);
}

/** A handoff code: 256 random bits; only its digest is stored. */
export function newHandoffCode(): string {
  return `${HANDOFF_PREFIX}${randomToken(32)}`;
}

/**
 * The platform's registered callback with the code (never an address from the request), and
 * beside it the platform's own correlation value of this login when its back end sent one at
 * start (`platformState`, as OAuth's `state`, RFC 6749 §4.1.2): only ever to this registered
 * address, so it reaches no one but the back end that chose it.
 */
export function handoffUrl(callbackUrl: string, code: string, platformState: string | null = null): URL {
  const target = new URL(callbackUrl);
  target.searchParams.set('code', code);
  if (platformState !== null) target.searchParams.set('platformState', platformState);
  return target;
}

export interface ExchangeResult {
  session: { id: string; expiresAt: string; gatewayToken: string };
  user: { id: string; sub: string };
  platform: { key: string };
  onboarding: OnboardingStatus;
  permissions: Permission[];
  returnTo: string;
  /** When and how the person authenticated, and what the login asked (fresh sign-in, step-up). */
  authentication: {
    authTime: string | null;
    amr: string[] | null;
    acr: string | null;
    requested: { maxAge: number | null; forceLogin: boolean; secondFactor: boolean; stepUp: boolean };
  };
  /** A support session only (issue 35): who acts for the person (RFC 8693 §4.1 `act`), and the access. */
  act?: { sub: string; name: string | null };
  supportAccess?: { id: string; endsAt: string };
}

/**
 * POST /v1/auth/exchange, in one SQL round trip. The `gatewayToken` returned is the
 * platform's own credential, made here and stored only as a digest: bound to the
 * gateway session and this platform, never the browser's cookie (issue 8 §3).
 * `handoffVerifier` must match the `handoffChallenge` the platform sent at start, when
 * it sent one (and must be absent when it did not).
 *
 * Never rate limited (docs/operations.md#rate-limits): a refused code is what anyone can make
 * a platform's back end send (junk posted to its public callback page, a person reloading it),
 * so a budget spent by refusals would lock that back end, and every user of the platform, out.
 * A code and a secret carry 256 bits each: there is nothing to guess. Refused codes are counted
 * per platform instead (gateway_handoffs_invalid_total) for the operator to alert on.
 */
export async function exchangeHandoff(
  deps: Pick<AppDeps, 'db' | 'metrics' | 'config'>,
  credentials: { clientId: string; clientSecret: string },
  input: { code: string; handoffVerifier?: string | undefined },
): Promise<ExchangeResult> {
  try {
    const result = await redeem(deps, credentials, input);
    deps.metrics?.handoffsExchanged.inc();
    return result;
  } catch (error) {
    // Refusals by code; a database failure is not a refusal (it shows in the request metrics as a 503).
    const code = error instanceof ApiError ? outcomeOf(error) : null;
    if (code) deps.metrics?.handoffsRefused.inc({ code });
    throw error;
  }
}

async function redeem(
  deps: Pick<AppDeps, 'db' | 'metrics' | 'config'>,
  credentials: { clientId: string; clientSecret: string },
  input: { code: string; handoffVerifier?: string | undefined },
): Promise<ExchangeResult> {
  const platformCredential = newPlatformCredential();
  // The platform's credentials go through the one check of Basic credentials (a published dev
  // secret off the dev stack, an unknown or wrong secret, a deactivated platform: 401), matched
  // inside the redeem's own statement.
  const row = await withPlatformClient(deps.config, credentials, async (client) => {
    const statement = {
      ...client,
      codeDigest: sha256(input.code),
      handoffChallenge: input.handoffVerifier === undefined ? null : s256Challenge(input.handoffVerifier),
      credentialDigest: sha256(platformCredential),
    };
    try {
      return await redeemHandoff(deps.db, statement);
    } catch (error) {
      // The connection died after the statement was sent (a primary killed under a failover): it
      // may have committed, and the code is then spent, so a 503 would lose the login (the BFF's
      // retry gets 404). Ask the server that takes over whether it did; 503 only when it did not
      // (nothing spent) or when no server answers within the window (the outcome stays unknown).
      if (!isOutcomeUnknown(error)) throw error;
      const committed = await committedRedeem(deps.db, statement);
      if (!committed) throw error;
      return committed;
    }
  });
  // Unknown, expired, used, other-platform and challenge-mismatched codes all look the same to the caller.
  if (!row.sessionId || !row.userId || !row.sub || !row.onboarding || !row.returnTo) {
    deps.metrics?.handoffsInvalid.inc({ platform: row.platformKey });
    throw new ApiError('HANDOFF_CODE_INVALID', 'The handoff code is invalid, expired or already used.');
  }
  return {
    session: { id: row.sessionId, expiresAt: row.sessionExpiresAt!.toISOString(), gatewayToken: platformCredential },
    user: { id: row.userId, sub: row.sub },
    platform: { key: row.platformKey },
    onboarding: row.onboarding,
    permissions: row.permissions ?? [],
    returnTo: row.returnTo,
    authentication: {
      authTime: row.authTime?.toISOString() ?? null,
      amr: row.amr,
      acr: row.acr,
      requested: { maxAge: row.maxAgeSeconds, forceLogin: row.forceLogin === true, secondFactor: row.secondFactor === true, stepUp: row.stepUp === true },
    },
    ...(row.act && row.supportAccessId
      ? { act: { sub: row.act.sub, name: row.act.name ?? null }, supportAccess: { id: row.supportAccessId, endsAt: row.sessionExpiresAt!.toISOString() } }
      : {}),
  };
}

/** How long an exchange whose connection died looks for its committed result (a failover's length). */
export const REDEEM_RECOVERY_WINDOW_MS = 10_000;
/** The margin of the statement deadline (src/db/knex.ts STATEMENT_DEADLINE): its commit and the clocks' difference. */
const DEADLINE_MARGIN_MS = 1000;

/**
 * The redeem's committed result, or null once it is certain there is none. "Not found" is final
 * only after the redeem's own deadline: until then a redeem still queued or running on the server
 * (a reset connection, a network split) may yet commit, and a 503 answered before it would lose the
 * login (the retry would find the code spent). Its deadline was taken when it was sent, so it is
 * at most one statement timeout from now.
 */
async function committedRedeem(db: Db, statement: Parameters<typeof findRedeemedHandoff>[1]): Promise<RedeemedHandoff | null> {
  const until = Date.now() + REDEEM_RECOVERY_WINDOW_MS;
  const deadline = statementDeadline(db);
  const settledAt = deadline instanceof Date ? deadline.getTime() + DEADLINE_MARGIN_MS : Infinity;
  for (;;) {
    try {
      const found = await findRedeemedHandoff(db, statement);
      if (found || Date.now() >= settledAt) return found;
    } catch (error) {
      if (!isDatabaseUnavailable(error)) return null;
    }
    if (Date.now() + 500 > until) return null;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}
