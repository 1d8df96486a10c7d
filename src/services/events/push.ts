import type { JobHelpers, Task } from 'graphile-worker';
import type { DeliveryContext } from '../backchannel/delivery.ts';
import { retryDelaySeconds } from '../backchannel/outbox.ts';
import { OutboundAddressRefused } from '../../security/outboundLookup.ts';
import { describeStatus, OutboundPostFailed, postToRegisteredUrl, type OutboundCallOptions } from '../../security/outboundPost.ts';
import { countSecurityEventDelivery } from '../../observability/metrics.ts';
import { countPushAttempt, findPushTarget, markDelivered, markFailed, recordAttemptError } from './repository.ts';
import { signSecurityEventToken } from './token.ts';
import { SET_MEDIA_TYPE } from './types.ts';

// Push delivery of Security Event Tokens (RFC 8935): one graphile-worker job per recorded event
// of a push platform (queued with the event, repository.ts), POSTing the SET as
// `application/secevent+jwt` to the platform's eventReceiverUrl with the outbound address rules of
// back-channel logout (src/security/outbound*.ts: the host checked as written and every resolved
// address at connection time; no redirect followed).
//
// Answers (RFC 8935 §2.2, §2.3): 202 Accepted: taken, the record is delivered. 400 with
// `{"err": …, "description": …}`: the receiver refuses this SET for good (a bad signature, an
// unknown audience…), so it is not retried; the record keeps err and description. Anything else
// (another status, a timeout, a network error) is retried with graphile-worker's backoff; the last
// failed attempt gives up. A receiver URL whose host leads to a refused address gives up at once.

/** What is kept of a 400's body: RFC 8935's error object is small. */
const ERROR_BODY_MAX = 4096;

export type PushOutcome = { kind: 'accepted' } | { kind: 'rejected'; err: string; description: string } | { kind: 'failed'; message: string };

/** POSTs one SET (RFC 8935 §2) and says how the receiver answered; throws OutboundAddressRefused before sending to a refused address. */
export async function postSecurityEvent(
  url: string,
  token: string,
  options: OutboundCallOptions = {},
): Promise<PushOutcome> {
  try {
    const { status, body } = await postToRegisteredUrl(
      url,
      // Only a 400's body matters (its error object, RFC 8935 §2.3), and only its first few KiB.
      { contentType: SET_MEDIA_TYPE, accept: 'application/json', body: token, readBodyOf: (answered) => answered === 400, maxBody: ERROR_BODY_MAX },
      options,
    );
    if (status === 202) return { kind: 'accepted' };
    if (status === 400) return { kind: 'rejected', ...errorObject(body) };
    return { kind: 'failed', message: describeStatus(url, status) };
  } catch (error) {
    if (error instanceof OutboundPostFailed) return { kind: 'failed', message: error.message };
    throw error;
  }
}

/** RFC 8935 §2.3's `{"err", "description"}`; a 400 without one is still a refusal, recorded as `invalid_request`. */
function errorObject(body: string): { err: string; description: string } {
  try {
    const parsed = JSON.parse(body) as { err?: unknown; description?: unknown };
    if (typeof parsed.err === 'string' && parsed.err !== '') {
      return { err: parsed.err.slice(0, 200), description: typeof parsed.description === 'string' ? parsed.description.slice(0, 1000) : '' };
    }
  } catch {
    // not JSON
  }
  return { err: 'invalid_request', description: 'the receiver answered 400 without an RFC 8935 error object' };
}

// ---------------------------------------------------------------- the worker's task

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The graphile-worker task (the worker hands it the context of back-channel logout's: the same
 * database, keys, issuer and outbound rules): reads the event and the platform's current registration, signs the
 * SET, posts it. An event no longer pending (a poll took it) is done. A platform that no longer
 * pushes (switched to poll, or to none, or lost its credentials) leaves the event pending: a poll
 * can still fetch it, and the record shows it was never taken. So does a deactivated platform.
 */
export function securityEventPushTask(context: DeliveryContext): Task {
  return async (rawPayload: unknown, helpers: JobHelpers) => {
    const eventId = (rawPayload as { eventId?: unknown } | null)?.eventId;
    const { job } = helpers;
    if (typeof eventId !== 'string' || !UUID.test(eventId)) {
      context.logger.error({ jobId: job.id }, 'security event job with an invalid payload: dropped');
      return;
    }
    const target = await findPushTarget(context.db, eventId);
    if (!target || target.status !== 'pending') return;
    const log = { jti: eventId, platformKey: target.platformKey, eventType: target.eventType, attempt: job.attempts, maxAttempts: job.max_attempts };
    if (target.eventDelivery !== 'push' || !target.receiverUrl || !target.clientId) {
      context.logger.info(log, 'security event not pushed: the platform no longer receives pushed events; it stays pending (a poll can fetch it)');
      return;
    }
    if (!target.platformActive) {
      // A deactivated platform is told nothing; the event stays pending for a poll after a
      // reactivation, until the purge removes it (docs/operations.md#security-events).
      context.logger.info(log, 'security event not pushed: the platform is deactivated; it stays pending (a poll after reactivation can fetch it)');
      return;
    }
    if ((await countPushAttempt(context.db, eventId)) === undefined) return;
    const db = context.db;
    let outcome: PushOutcome;
    try {
      const token = await signSecurityEventToken(context.keys, target, { issuer: context.issuer, audience: target.clientId });
      outcome = await postSecurityEvent(target.receiverUrl, token, { timeoutMs: context.timeoutMs, signal: helpers.abortSignal, outbound: context.outbound });
    } catch (error) {
      if (!(error instanceof OutboundAddressRefused)) throw error;
      // Permanent until an administrator changes the URL or an operator the allowed ranges.
      await markFailed(db, eventId, 'address_refused', error.message);
      countSecurityEventDelivery('push', 'address_refused', 1, db);
      context.logger.error({ ...log, host: error.host, address: error.address, addressKind: error.kind }, 'security event refused: the eventReceiverUrl reaches an address outbound calls never go to; given up without retrying');
      return;
    }
    if (outcome.kind === 'accepted') {
      await markDelivered(db, eventId);
      countSecurityEventDelivery('push', 'delivered', 1, db);
      context.logger.info(log, 'security event delivered');
      return;
    }
    if (outcome.kind === 'rejected') {
      await markFailed(db, eventId, outcome.err, outcome.description);
      countSecurityEventDelivery('push', 'rejected', 1, db);
      context.logger.warn({ ...log, err: outcome.err, description: outcome.description }, 'security event rejected by the receiver (400): not retried');
      return;
    }
    if (job.attempts < job.max_attempts) {
      await recordAttemptError(db, eventId, outcome.message);
      countSecurityEventDelivery('push', 'retry', 1, db);
      context.logger.warn({ ...log, error: outcome.message, retryInSeconds: Math.round(retryDelaySeconds(job.attempts)) }, 'security event delivery failed; graphile-worker retries it later');
      throw new Error(outcome.message);
    }
    await markFailed(db, eventId, 'given_up', outcome.message);
    countSecurityEventDelivery('push', 'given_up', 1, db);
    context.logger.error({ ...log, error: outcome.message }, 'security event given up after the last attempt: the platform was not told (see gateway events list)');
  };
}
