import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { JobHelpers, Task } from 'graphile-worker';
import type { Db } from '../../db/knex.ts';
import type { SigningKeys } from '../../security/signingKeys.ts';
import { retryDelaySeconds, type BackchannelLogoutPayload } from './outbox.ts';
import { OutboundAddressRefused } from '../../security/outboundLookup.ts';
import { describeStatus, OutboundPostFailed, postToRegisteredUrl, type OutboundCallOptions, type OutboundOptions } from '../../security/outboundPost.ts';

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

/**
 * POSTs the token (§2.5) to the platform's registered URL under the outbound address rules
 * (GUIDE §5, src/security/outboundPost.ts): a refused address throws OutboundAddressRefused
 * before any byte is sent; redirects are not followed; the answer's body is not read. Only a
 * 2xx is a success (§2.8).
 */
export async function postLogoutToken(
  url: string,
  logoutToken: string,
  options: OutboundCallOptions = {},
): Promise<void> {
  const body = new URLSearchParams({ logout_token: logoutToken }).toString();
  let status: number;
  try {
    ({ status } = await postToRegisteredUrl(
      url,
      { contentType: 'application/x-www-form-urlencoded', accept: 'application/json, */*;q=0.1', body },
      options,
    ));
  } catch (error) {
    if (error instanceof OutboundPostFailed) throw new DeliveryError(error.message);
    throw error;
  }
  if (status < 200 || status > 299) throw new DeliveryError(describeStatus(url, status));
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
      await postLogoutToken(target.url, token, { timeoutMs: context.timeoutMs, signal: helpers.abortSignal, outbound: context.outbound });
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
