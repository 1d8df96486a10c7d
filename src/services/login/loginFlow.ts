import { randomUUID } from 'node:crypto';
import type { AppDeps } from '../../deps.ts';
import type { Principal, QueryParameters } from '../../domain/types.ts';
import { ApiError } from '../../errors/catalogue.ts';
import { digestEquals, randomToken, sha256 } from '../../security/crypto.ts';
import { requireReturnTo } from '../../security/returnTo.ts';
import { findActivePlatformById, findActivePlatformByKey, type PlatformRow } from '../registry/index.ts';
import { consumeTransactionByState, consumeTransactionByStateCounting, type ConsumedTransaction, findConsumedTransactionOfUser, findLoginOfState, insertTransaction } from './transactionsRepository.ts';
import { upsertLoginUser } from '../account/index.ts';
import { activeFieldsWithValues } from '../onboarding/index.ts';
import type { RelyingParty } from '../../oidc/relyingParty.ts';
import { bootstrapAndEvaluate, calculateStatus } from '../onboarding/status.ts';
import { handoffUrl, newHandoffCode } from './handoff.ts';
import { createLoginSession, ipPrefix } from '../sessions/create.ts';
import { outcomeOf } from '../../observability/metrics.ts';
import type { StatementRateLimit } from '../rateLimits/index.ts';
import { refuseIfLimitReached } from '../rateLimits/rateLimits.ts';
import { refuseInsecureLoginUrls } from '../registry/platformUrls.ts';
import { bindingCookieValue, bindingSecret, wayBack, wayBackFromCookies } from './loginWayBack.ts';
import { requestedAtStart, requireRequestedAuthentication, stepUpTokenMissing } from './freshSignIn.ts';
import { backToPlatform, startAgain, withNextStep } from './nextSteps.ts';
import { continueTo, goesToCentralOnboarding, onboardingUrl } from './continuation.ts';

/**
 * The login transaction as a state machine (spec: States and transitions):
 *   (none) --start--> pending --callback--> consumed --resume--> consumed + handoff
 * Every guard is a named step below, in the order the spec lists them.
 */

/** Additional authenticated data of the sealed columns (crypto.ts KeyRing; keyRotation.ts re-seals them). */
export const pkceAad = (transactionId: string) => `auth_transactions:pkce_verifier:${transactionId}`;
export const nonceAad = (transactionId: string) => `auth_transactions:nonce:${transactionId}`;
export const platformStateAad = (transactionId: string) => `auth_transactions:platform_state:${transactionId}`;

function requireOidc(deps: AppDeps): RelyingParty {
  if (!deps.oidc) throw new ApiError('OIDC_NOT_CONFIGURED', 'The gateway has no OpenID Connect client configured.');
  return deps.oidc;
}

/**
 * The start's parameters, as the contract declares them (startAuthentication): platformKey,
 * returnTo, onboardingMode, handoffChallenge (BASE64URL(SHA-256(verifier)) of a secret the
 * platform back end keeps), platformState (its opaque correlation value, handed back beside the
 * code, never interpreted), and what it asks of the authentication (StartAuthenticationInput).
 */
export type StartInput = QueryParameters<'startAuthentication'>;

export interface StartedLogin {
  authorizeUrl: URL;
  transactionId: string;
  /**
   * This login's browser binding (RFC 9700 §4.7.1): the operation sets it as a cookie of this
   * browser, and the callback requires its secret (only the digest is stored). It also carries,
   * sealed, the platform and returnTo, for the way back of a callback that finds no login.
   */
  browserBinding: string;
}

/** GET /v1/auth/start, steps 1 to 7. Returns the identity provider's authorize URL. */
export async function startLogin(
  deps: AppDeps,
  input: StartInput,
  /** How the active platform is read: the operation's reads it and counts the start's rate limit in one statement. */
  findPlatform: (platformKey: string) => Promise<PlatformRow | undefined> = (platformKey) => findActivePlatformByKey(deps.db, platformKey),
): Promise<StartedLogin> {
  const oidc = requireOidc(deps);
  // 1. the active platform
  const platform = await findPlatform(input.platformKey);
  if (!platform) throw new ApiError('PLATFORM_NOT_FOUND', `No active platform has the key ${input.platformKey}.`);
  try {
    return await startLoginFor(deps, oidc, platform, input);
  } catch (error) {
    // The person came from this platform: its error page leads back to it.
    throw withNextStep(error, backToPlatform(platform));
  }
}

async function startLoginFor(deps: AppDeps, oidc: RelyingParty, platform: PlatformRow, input: StartInput): Promise<StartedLogin> {
  // 2. the mode: the query value is only an assertion about the registry
  const mode = input.onboardingMode ?? platform.defaultOnboardingMode;
  // 3.
  if (mode === 'central' && !platform.centralOnboardingEnabled) {
    throw new ApiError('CENTRAL_ONBOARDING_DISABLED', 'Central onboarding is disabled for this platform.');
  }
  // 4.
  if (!platform.callbackUrl) throw new ApiError('PLATFORM_CALLBACK_NOT_CONFIGURED', 'The platform has no callback URL.');
  // 4b. production: no http callback or return URL stored from before the https rule
  refuseInsecureLoginUrls(platform, deps.config.isProduction);
  // 5. returnTo against the allowlist (parsed URLs, never string prefixes); the mode assertion
  const returnTo = requireReturnTo(input.returnTo, platform.allowedReturnUrls);
  if (mode !== platform.defaultOnboardingMode) {
    throw new ApiError('ONBOARDING_MODE_MISMATCH', `The platform's onboarding mode is ${platform.defaultOnboardingMode}; it cannot be overridden.`);
  }
  // 5a. the handoff binding (RFC 7636 pattern): without it, a handoff code of the attacker's own
  // login could be sent to a victim's browser and sign it in as the attacker (login CSRF).
  if (platform.handoffChallengeRequired && !input.handoffChallenge) {
    throw new ApiError(
      'HANDOFF_CHALLENGE_REQUIRED',
      'This platform requires handoffChallenge at start: BASE64URL(SHA-256(verifier)) of a secret its back end keeps for this login.',
    );
  }
  // 5b. what the platform asks of the authentication (a fresh sign-in, a second factor, the
  // person of a step-up: freshSignIn.ts), forwarded to the provider and checked at the callback
  const authentication = requestedAtStart(deps.keyRing, platform.platformKey, input);
  // 6. persist: digests for lookups, AES-GCM for what the callback must read back
  const id = randomUUID();
  const state = randomToken(32);
  const nonce = randomToken(32);
  const codeVerifier = randomToken(32); // 43 characters, RFC 7636 §4.1
  const browserBinding = randomToken(32);
  const authorizeUrl = await oidc.authorizationUrl({ state, nonce, codeVerifier, authentication });
  const inserted = await insertTransaction(deps.db, {
    id,
    platformId: platform.id,
    stateDigest: sha256(state),
    nonceDigest: sha256(nonce),
    pkceVerifierSealed: deps.keyRing.seal(codeVerifier, pkceAad(id)),
    nonceSealed: deps.keyRing.seal(nonce, nonceAad(id)),
    onboardingMode: mode,
    platformCallbackUrl: platform.callbackUrl,
    returnTo: returnTo.href,
    browserBindingDigest: sha256(browserBinding),
    handoffChallenge: input.handoffChallenge ?? null,
    // Sealed, not digested: it is handed back to the platform's callback (handoff.ts, handoffUrl).
    platformStateSealed: input.platformState ? deps.keyRing.seal(input.platformState, platformStateAad(id)) : null,
    ...authentication,
    ttlSeconds: deps.config.authTransactionTtlSeconds,
  });
  if (!inserted) throw stepUpTokenMissing(); // 6a. refused by that insert: a step-up's challenge without its token
  // 7.
  const target = { platformKey: platform.platformKey, returnTo: returnTo.href, handoffChallenge: Boolean(input.handoffChallenge) };
  return { authorizeUrl, transactionId: id, browserBinding: bindingCookieValue(deps.keyRing, id, browserBinding, target) };
}

export interface CallbackInput {
  state?: string;
  error?: string;
  /** The full URL the provider sent the browser to (code, state, iss). */
  callbackUrl: URL;
  /** This browser's binding cookie of a transaction: read it, and clear it once the transaction is spent. */
  browserBinding: { read(transactionId: string): string | undefined; clear(transactionId: string): void; all(): [string, string][] };
  /** The browser, for the session list: its User-Agent and its address. */
  client: { userAgent: string | null; address: string | undefined };
  /** The address's callback limit, counted by the consume statement (statementRateLimit); null when already counted (Redis). */
  callbackLimit: StatementRateLimit | null;
}

export interface LoginOutcome {
  location: URL;
  session: { token: string; expiresAt: Date };
}

/** GET /v1/auth/callback, steps 1 to 9, counted by outcome (gateway_logins_total: success or the refusal's code). */
export async function finishLogin(deps: AppDeps, input: CallbackInput): Promise<LoginOutcome> {
  try {
    const outcome = await callbackSteps(deps, input);
    deps.metrics?.logins.inc({ outcome: 'success' });
    return outcome;
  } catch (error) {
    const outcome = outcomeOf(error);
    if (outcome) deps.metrics?.logins.inc({ outcome });
    throw error;
  }
}

async function callbackSteps(deps: AppDeps, input: CallbackInput): Promise<LoginOutcome> {
  const oidc = requireOidc(deps);
  if (!input.state) {
    // A hand-typed or truncated callback address: this browser's logins may still name a way back.
    const nextStep = await wayBackFromCookies(deps, input.browserBinding.all());
    throw new ApiError('VALIDATION_FAILED', 'The callback carries no state.', { errors: [{ pointer: '/query/state', message: 'is required' }], ...(nextStep ? { nextStep } : {}) });
  }
  // 1. consume the transaction atomically; nothing else decides whether this state is good.
  // Counted against the address's limit in the same statement: over it, nothing is consumed.
  // (A callback without a state was refused above without being counted: it writes nothing, and
  // reads at most one registry row, for a browser whose sealed binding cookie names a login.)
  const stateDigest = sha256(input.state);
  const tx = await consumeCounted(deps, stateDigest, input.callbackLimit);
  if (!tx) throw await transactionNotFound(deps, stateDigest, input.browserBinding.all());
  // The login must come back to the browser that started it (RFC 9700 §4.7.1): otherwise a
  // callback link sent to a victim would sign the victim in as whoever started the login.
  // Checked before the code is redeemed; the transaction is spent either way.
  const binding = input.browserBinding.read(tx.id);
  input.browserBinding.clear(tx.id);
  if (!binding || !tx.browserBindingDigest || !digestEquals(sha256(bindingSecret(binding)), tx.browserBindingDigest)) {
    throw new ApiError('LOGIN_BROWSER_MISMATCH', 'This sign-in was started in another browser, or this browser does not keep cookies. Start again here.', {
      nextStep: startAgain(deps, tx),
    });
  }
  try {
    return await completeLogin(deps, oidc, { ...input, state: input.state }, tx);
  } catch (error) {
    // The transaction is spent, so the callback cannot be retried: whatever failed now (the
    // provider ended the login, the provider or the database was unreachable, a token was
    // refused), the page offers a fresh login for the same platform and returnTo.
    throw withNextStep(error, startAgain(deps, tx));
  }
}

/**
 * The callback's 404: nothing to consume. When the login is still known (spent by an earlier
 * callback, the back button, a second tab; or expired), or this browser's binding cookies name
 * one (purged, a state never issued), the page leads back through the registry (loginWayBack.ts).
 * The reads happen only here, and their own failure only loses the link.
 */
async function transactionNotFound(deps: AppDeps, stateDigest: Buffer, bindings: [string, string][]): Promise<ApiError> {
  const login = await findLoginOfState(deps.db, stateDigest).catch(() => undefined);
  const nextStep = login
    ? await wayBack(deps, { platformKey: login.platformKey, returnTo: login.returnTo, handoffChallenge: login.handoffChallenge !== null })
    : await wayBackFromCookies(deps, bindings);
  return new ApiError('TRANSACTION_NOT_FOUND', 'This sign-in has expired or was already used, so it cannot be finished.', nextStep ? { nextStep } : {});
}

async function consumeCounted(deps: AppDeps, stateDigest: Buffer, limit: StatementRateLimit | null): Promise<ConsumedTransaction | undefined> {
  if (!limit) return consumeTransactionByState(deps.db, stateDigest);
  const { transaction, rateLimitedUntil } = await consumeTransactionByStateCounting(deps.db, stateDigest, limit);
  refuseIfLimitReached(deps, 'callback', rateLimitedUntil);
  return transaction;
}

async function completeLogin(deps: AppDeps, oidc: RelyingParty, input: CallbackInput & { state: string }, tx: ConsumedTransaction): Promise<LoginOutcome> {
  if (input.error) {
    // The provider ended the login (e.g. access_denied); the transaction is spent.
    throw new ApiError('IDP_ERROR', 'The identity provider did not complete the sign-in.');
  }
  const codeVerifier = deps.keyRing.open(tx.pkceVerifierSealed, pkceAad(tx.id));
  const nonce = deps.keyRing.open(tx.nonceSealed, nonceAad(tx.id));
  // 2-4. code exchange, ID token, access token (and the sub comparison)
  const login = await oidc.completeLogin({ callbackUrl: input.callbackUrl, state: input.state, nonce, codeVerifier });
  // 4a. what the platform asked of the authentication, checked here whatever the provider did
  // with it (freshSignIn.ts), before anything is written for the person
  try {
    requireRequestedAuthentication(tx.authentication, tx.startedAt, login.idToken, deps.config.oidc.secondFactorAmr, deps.config.oidc.secondFactorAcr);
  } catch (error) {
    throw withNextStep(error, { ...startAgain(deps, tx), label: { key: 'tryAgain' } });
  }

  // The platform's registry row was read by the consume statement.
  const platform = tx.platform;
  if (!platform.active) throw new ApiError('PLATFORM_NOT_FOUND', 'The platform of this sign-in is no longer active.');

  // Three round trips, no explicit transaction: each write is one statement, atomic on its
  // own. (a) provisioning: idempotent upserts, committed asynchronously (upsertLoginUser); (b) a
  // read; (c) the session, the transaction's user and session, and the handoff code, together
  // and durably. A failure between (a) and (c) leaves only the upserted user and membership,
  // as a login that failed after provisioning always did; the single-use steps, the consume
  // before and the handoff code in (c), are each one statement.
  // 5. just-in-time user, and (6) its membership of the platform, in one statement; a
  // deleted account is refused, never quietly re-created (it gets no membership either)
  const user = await upsertLoginUser(
    deps.db,
    {
      sub: login.idToken.sub,
      email: login.idToken.email,
      emailVerified: login.idToken.emailVerified,
      displayName: login.idToken.name,
      givenName: login.idToken.givenName,
      familyName: login.idToken.familyName,
    },
    platform.id,
  );
  if (user.deletedAt) throw accountDeleted();
  // 6. onboarding, evaluated on the server (read after the upsert: a new user's profile is prefilled by it)
  // (the same statement reads the person's standing with the platform's documents: no extra round trip)
  // (and the platform's requirement changes still in grace, issue 36)
  const { fields, documents, graces } = await activeFieldsWithValues(deps.db, platform.id, user.id);
  const onboarding = calculateStatus(platform, fields, user.completedRequirementVersion, documents, graces);
  // 9. where the browser goes next, decided before anything is written for it
  const toOnboarding = goesToCentralOnboarding(tx.onboardingMode, onboarding);
  if (!toOnboarding && !platform.callbackUrl) throw new ApiError('PLATFORM_CALLBACK_NOT_CONFIGURED', 'The platform has no callback URL.');
  const handoffCode = toOnboarding ? null : newHandoffCode();
  // 7. the gateway session with the permissions of the access token, attached to the
  // transaction (resume reads it), with the handoff code when the login goes to the platform
  const session = await createLoginSession(deps.db, {
    transactionId: tx.id,
    userId: user.id,
    permissions: login.permissions,
    ttlSeconds: deps.config.gatewaySessionTtlSeconds,
    login: {
      userAgent: input.client.userAgent,
      ipPrefix: ipPrefix(input.client.address),
      idpSid: login.idToken.sid,
      idToken: login.idToken.raw,
      keyRing: deps.keyRing,
    },
    handoff: handoffCode === null ? null : { codeDigest: sha256(handoffCode), platformId: platform.id, onboarding, ttlSeconds: deps.config.authHandoffTtlSeconds },
    authentication: login.idToken,
  });
  // Deleted between the upsert and this statement: nothing was written for it.
  if (!session) throw accountDeleted();
  if (!session.handoffIssued) throw new ApiError('CONFLICT', 'A handoff code was already issued for this login transaction.');
  if (handoffCode !== null) deps.metrics?.handoffsIssued.inc();
  // 9. (8, the cookie, is set by the operation from `session`)
  const location = handoffCode === null ? onboardingUrl(deps, platform, tx.id) : handoffUrl(platform.callbackUrl!, handoffCode, openPlatformState(deps, tx));
  return { location, session: { token: session.token, expiresAt: session.expiresAt } };
}

/** GET /v1/auth/resume: after central onboarding, re-evaluate on the server and continue. */
export async function resumeLogin(deps: AppDeps, principal: Principal, transactionId: string): Promise<URL> {
  if (principal.via !== 'session' || !principal.userId) throw new ApiError('UNAUTHENTICATED', 'Resume needs the gateway session cookie.');
  const userId = principal.userId;
  const tx = await findConsumedTransactionOfUser(deps.db, { transactionId, userId, resumeTtlSeconds: deps.config.authResumeTtlSeconds });
  if (!tx) throw new ApiError('TRANSACTION_NOT_FOUND', 'No completed sign-in of yours has this transaction id.');
  // Onboarding forms are filled in at a person's own pace, so a resume is accepted for
  // AUTH_RESUME_TTL_SECONDS after the callback, never once the session has ended.
  if (!tx.resumable) {
    throw new ApiError('TRANSACTION_NOT_FOUND', 'This sign-in has expired. Start again.', { nextStep: startAgain(deps, tx) });
  }
  const platform = await findActivePlatformById(deps.db, tx.platformId);
  if (!platform) throw new ApiError('PLATFORM_NOT_FOUND', 'The platform of this sign-in is no longer active.');
  const onboarding = await deps.db.transaction((trx) => bootstrapAndEvaluate(trx, userId, platform));
  // The handoff code is issued after that transaction, by one statement that carries its own
  // deadline (insertHandoff): inside the transaction, a COMMIT sent to a frozen database would
  // still issue the code once it resumes, after the resume had answered 503, and the retry
  // would get 409 CONFLICT.
  return continueTo(deps, deps.db, { transactionId: tx.id, mode: tx.onboardingMode, platform, userId, sessionId: tx.sessionId, onboarding, platformState: openPlatformState(deps, tx) });
}

/** The platform's correlation value of a login, opened from the row that carried it (the consume's or the resume's read). */
function openPlatformState(deps: AppDeps, tx: { id: string; platformStateSealed: string | null }): string | null {
  return tx.platformStateSealed === null ? null : deps.keyRing.open(tx.platformStateSealed, platformStateAad(tx.id));
}

function accountDeleted(): ApiError {
  return new ApiError('ACCOUNT_DELETED', 'This account was deleted, so it cannot sign in. If this is a mistake, contact the support of the application you came from.');
}
