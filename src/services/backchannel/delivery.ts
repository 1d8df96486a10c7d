import { randomUUID } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { Logger } from 'pino';
import type { JobHelpers, Task } from 'graphile-worker';
import type { Db } from '../../db/knex.ts';
import type { SigningKeys } from './signingKeys.ts';
import { retryDelaySeconds, type BackchannelLogoutPayload } from './outbox.ts';
import { PUBLIC_ONLY, type OutboundPolicy } from '../../security/outboundAddresses.ts';
import { assertOutboundHost, guardedLookup, OutboundAddressRefused, type Resolver } from '../../security/outboundLookup.ts';

// One delivery of a back-channel logout to one platform (OpenID Connect Back-Channel Logout
// 1.0 §2.4, §2.5): a logout token signed by the gateway, POSTed as
// `application/x-www-form-urlencoded` `logout_token=…` to the platform's registered
// backchannelLogoutUrl. A 2xx answer is success (the spec names 200 and 204); anything else,
// a redirect (never followed), a timeout or a network error throws, and graphile-worker
// retries with its backoff. The last failed attempt is recorded as a give-up instead, and so is
// at once a URL whose host the outbound address rule refuses (src/security/outboundAddresses.ts).

export const LOGOUT_TOKEN_TYPE = 'logout+jwt';
export const BACKCHANNEL_LOGOUT_EVENT = 'http://schemas.openid.net/event/backchannel-logout';
/** Lifetime of a logout token (§2.4 recommends a short one; a retry signs a new token). */
export const LOGOUT_TOKEN_TTL_SECONDS = 120;
export const DELIVERY_TIMEOUT_MS = 5000;
const LAST_ERROR_MAX = 1000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A logout token (§2.4): `iss` the gateway, `aud` the platform's client id, `sub` the local
 * user id, `sid` the gateway session id, the back-channel logout event, a fresh `jti`, `iat`
 * and a short `exp`; never a `nonce`. Header `typ: logout+jwt` (the explicit typing the
 * current spec recommends), `alg: ES256`, the signing key's `kid`.
 */
export async function signLogoutToken(
  keys: SigningKeys,
  input: { issuer: string; audience: string; subject: string; sessionId: string; now?: Date },
): Promise<string> {
  const iat = Math.floor((input.now ?? new Date()).getTime() / 1000);
  return keys.sign(
    {
      iss: input.issuer,
      aud: input.audience,
      sub: input.subject,
      sid: input.sessionId,
      events: { [BACKCHANNEL_LOGOUT_EVENT]: {} },
      jti: randomUUID(),
      iat,
      exp: iat + LOGOUT_TOKEN_TTL_SECONDS,
    },
    LOGOUT_TOKEN_TYPE,
  );
}

/** Thrown for a delivery that did not succeed; its message is what graphile-worker and the give-up record keep. */
export class DeliveryError extends Error {
  override name = 'DeliveryError';
}

/** Where a delivery may connect (OutboundPolicy) and how names resolve (injectable for tests). */
export interface OutboundOptions {
  policy?: OutboundPolicy;
  resolve?: Resolver;
}

/**
 * POSTs the token (§2.5) with node:http(s), connecting only to addresses the outbound rule
 * allows (GUIDE §5): the host is checked as written, a name is resolved by the guarded lookup,
 * which checks every address and hands node:net the checked ones (no second resolution). A
 * refusal throws OutboundAddressRefused before any byte is sent. (Node's fetch has no lookup
 * hook without the undici package's Agent; node:http takes `lookup` per request.) Redirects
 * are not followed (node:http never does; a 3xx is not a success); the body of the answer is
 * not read. A fresh connection per delivery (`agent: false`), so no pooled socket skips the lookup.
 */
export async function postLogoutToken(
  url: string,
  logoutToken: string,
  options: { timeoutMs?: number; signal?: AbortSignal; outbound?: OutboundOptions } = {},
): Promise<void> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    throw new DeliveryError(`POST ${safeUrl(url)} failed: not a URL`);
  }
  const policy = options.outbound?.policy ?? PUBLIC_ONLY;
  assertOutboundHost(target.hostname, policy);
  const timeout = AbortSignal.timeout(options.timeoutMs ?? DELIVERY_TIMEOUT_MS);
  const signal = options.signal ? AbortSignal.any([timeout, options.signal]) : timeout;
  const body = new URLSearchParams({ logout_token: logoutToken }).toString();
  let status: number;
  try {
    status = await new Promise<number>((resolve, reject) => {
      const request = (target.protocol === 'https:' ? https : http).request(
        target,
        {
          method: 'POST',
          headers: {
            'Content-Type': 'application/x-www-form-urlencoded',
            'Content-Length': Buffer.byteLength(body),
            Accept: 'application/json, */*;q=0.1',
          },
          agent: false,
          lookup: guardedLookup(policy, options.outbound?.resolve),
          signal,
        },
        (response) => {
          resolve(response.statusCode ?? 0);
          response.destroy();
        },
      );
      request.on('error', reject);
      request.end(body);
    });
  } catch (error) {
    if (error instanceof OutboundAddressRefused) throw error;
    throw new DeliveryError(`POST ${safeUrl(url)} failed: ${describeRequestError(error, timeout)}`);
  }
  if (status < 200 || status > 299) {
    throw new DeliveryError(`POST ${safeUrl(url)} answered ${status}${status >= 300 && status < 400 ? ' (redirects are not followed)' : ''}`);
  }
}

function describeRequestError(error: unknown, timeout: AbortSignal): string {
  if (timeout.aborted) return 'timed out';
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && code !== 'ABORT_ERR') return code;
  return error instanceof Error ? error.message : String(error);
}

/** The URL as logged and recorded: without its query (a registered URL may carry one). */
function safeUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return '(invalid URL)';
  }
}

// ---------------------------------------------------------------- the worker's task

export interface DeliveryContext {
  db: Db;
  logger: Logger;
  keys: SigningKeys;
  /** The logout tokens' `iss`: PUBLIC_BASE_URL. */
  issuer: string;
  timeoutMs?: number;
  /** What deliveries may connect to (OUTBOUND_ALLOWED_PRIVATE_RANGES, the dev stack's loopback); default public addresses only. */
  outbound?: OutboundOptions;
}

interface LogoutTarget {
  platformKey: string;
  clientId: string | null;
  url: string | null;
}

/**
 * The graphile-worker task: reads the platform's current registration (its URL may have been
 * corrected since the session ended), signs a new token, posts it. A platform that no longer
 * has a URL (or credentials) is skipped.
 */
export function backchannelLogoutTask(context: DeliveryContext): Task {
  return async (rawPayload: unknown, helpers: JobHelpers) => {
    const payload = parsePayload(rawPayload);
    const { job } = helpers;
    if (!payload) {
      context.logger.error({ jobId: job.id }, 'back-channel logout job with an invalid payload: dropped');
      return;
    }
    const target = await findLogoutTarget(context.db, payload.platformId);
    if (!target?.url || !target.clientId) {
      context.logger.info({ sessionId: payload.sessionId, platformKey: target?.platformKey }, 'back-channel logout not sent: the platform no longer has a backchannelLogoutUrl');
      return;
    }
    const log = { sessionId: payload.sessionId, platformKey: target.platformKey, attempt: job.attempts, maxAttempts: job.max_attempts };
    try {
      const token = await signLogoutToken(context.keys, { issuer: context.issuer, audience: target.clientId, subject: payload.userId, sessionId: payload.sessionId });
      await postLogoutToken(target.url, token, {
        timeoutMs: context.timeoutMs ?? DELIVERY_TIMEOUT_MS,
        signal: helpers.abortSignal,
        ...(context.outbound ? { outbound: context.outbound } : {}),
      });
    } catch (error) {
      const message = (error instanceof Error ? error.message : String(error)).slice(0, LAST_ERROR_MAX);
      if (error instanceof OutboundAddressRefused) {
        // Permanent: retrying cannot help until an administrator changes the URL or an operator
        // the allowed ranges, so it is given up at once, as after the last attempt.
        await recordGiveUp(context.db, { ...payload, url: target.url, attempts: job.attempts, lastError: message, enqueuedAt: job.created_at });
        context.logger.error(
          { ...log, error: message, host: error.host, address: error.address, addressKind: error.kind },
          'back-channel logout refused: the backchannelLogoutUrl reaches an address outbound calls never go to (OUTBOUND_ALLOWED_PRIVATE_RANGES); given up without retrying (see backchannel_logout_give_ups)',
        );
        return;
      }
      if (job.attempts < job.max_attempts) {
        context.logger.warn({ ...log, error: message, retryInSeconds: Math.round(retryDelaySeconds(job.attempts)) }, 'back-channel logout delivery failed; graphile-worker retries it later');
        throw error;
      }
      await recordGiveUp(context.db, { ...payload, url: target.url, attempts: job.attempts, lastError: message, enqueuedAt: job.created_at });
      context.logger.error(
        { ...log, error: message },
        'back-channel logout given up after the last attempt: the platform was not told that the session ended (see backchannel_logout_give_ups)',
      );
      return; // recorded: the job is done
    }
    context.logger.info(log, 'back-channel logout delivered');
  };
}

function parsePayload(raw: unknown): BackchannelLogoutPayload | null {
  if (raw === null || typeof raw !== 'object') return null;
  const { sessionId, platformId, userId } = raw as Record<string, unknown>;
  if (typeof sessionId !== 'string' || typeof platformId !== 'string' || typeof userId !== 'string') return null;
  if (!UUID.test(sessionId) || !UUID.test(platformId) || !UUID.test(userId)) return null;
  return { sessionId, platformId, userId };
}

async function findLogoutTarget(db: Db, platformId: string): Promise<LogoutTarget | undefined> {
  const { rows } = await db.raw<{ rows: LogoutTarget[] }>(
    `SELECT platform_key AS "platformKey", client_id AS "clientId", backchannel_logout_url AS url FROM platforms WHERE id = ?`,
    [platformId],
  );
  return rows[0];
}

/** One row per (session, platform) given up; a repeat (never expected) refreshes it. */
async function recordGiveUp(
  db: Db,
  input: BackchannelLogoutPayload & { url: string; attempts: number; lastError: string; enqueuedAt: Date },
): Promise<void> {
  await db.raw(
    `INSERT INTO backchannel_logout_give_ups (session_id, platform_id, user_id, url, attempts, last_error, enqueued_at)
     VALUES (:sessionId, :platformId, :userId, :url, :attempts, :lastError, :enqueuedAt)
     ON CONFLICT (session_id, platform_id) DO UPDATE
       SET url = EXCLUDED.url, attempts = EXCLUDED.attempts, last_error = EXCLUDED.last_error, gave_up_at = now()`,
    { ...input },
  );
}
