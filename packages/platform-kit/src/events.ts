// Security Event Tokens from the gateway (RFC 8417): what the gateway tells a platform about a
// person (account deleted, erased, left the platform, profile changed, consent withdrawn).
//   push  RFC 8935: the gateway POSTs each SET as application/secevent+jwt; 202 when taken,
//         400 {err, description} when it will never be (the gateway does not retry a 400),
//         anything else makes it retry
//   poll  RFC 8936: the platform's back end fetches its pending SETs with its own credentials,
//         acknowledges the ones it took and reports the ones it refused
// Both verify each SET with verify.ts and call the application's handler with a typed event, at
// most once per `jti` within a bounded memory window (the gateway delivers at least once).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { components } from './gateway.ts';
import type { GatewayClient } from './client.ts';
import { gatewayKeySet, GatewayTokenError, verifyGatewayToken, type GatewayKeySet } from './verify.ts';

/** The event types of the gateway's contract (SecurityEventType). */
export type SecurityEventType = components['schemas']['SecurityEventType'];

/** What each event carries (the contract's SecurityEventType description; docs/platform-integration.md, "Events"). */
export interface SecurityEventPayloads {
  'urn:auth-gateway:secevent:account-deletion-scheduled': { erase_after: number };
  'urn:auth-gateway:secevent:account-erased': Record<string, never>;
  'urn:auth-gateway:secevent:platform-left': Record<string, never>;
  'urn:auth-gateway:secevent:profile-changed': { fields: string[] };
  'urn:auth-gateway:secevent:consent-withdrawn': { document: string; version: number | string };
  /** Support access (issue 35): an operator signed in to this platform as the person. */
  'urn:auth-gateway:secevent:support-access-started': { session: string; act_sub: string; ends_at: number };
  'urn:auth-gateway:secevent:support-access-ended': { session: string; ended_by: 'operator' | 'person' | 'expired' | 'platform' };
}
// The compiler stops here when the contract gains, renames or drops an event type that the
// payloads above do not describe (the kit's types are generated/gateway.ts, written by `npm run codegen`).
type SameKeys<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const payloadsMatchContract: SameKeys<keyof SecurityEventPayloads, SecurityEventType> = true;
// The types handed to the application; the others are taken and ignored (RFC 8417 §2.2).
const KNOWN_TYPES: ReadonlySet<string> = new Set(payloadsMatchContract ? Object.keys({
  'urn:auth-gateway:secevent:account-deletion-scheduled': true,
  'urn:auth-gateway:secevent:account-erased': true,
  'urn:auth-gateway:secevent:platform-left': true,
  'urn:auth-gateway:secevent:profile-changed': true,
  'urn:auth-gateway:secevent:consent-withdrawn': true,
  'urn:auth-gateway:secevent:support-access-started': true,
  'urn:auth-gateway:secevent:support-access-ended': true,
} satisfies Record<SecurityEventType, true>) : []);

/** One verified event: the SET's `jti`, its one event's type and payload, the person (`sub`, the exchange's `user.id`). */
export type SecurityEvent = {
  [Type in SecurityEventType]: {
    jti: string;
    type: Type;
    subject: string;
    payload: SecurityEventPayloads[Type];
    /** When the gateway recorded it (`iat`, the same at every redelivery). */
    issuedAt: Date;
    /** When it happened (`toe`). */
    occurredAt: Date | undefined;
  };
}[SecurityEventType];

/** RFC 8935 §2.3 / RFC 8936 §2.4.3 error codes. */
export type SetErrorCode = 'invalid_request' | 'invalid_key' | 'invalid_issuer' | 'invalid_audience' | 'authentication_failed' | 'access_denied';

/**
 * Thrown by the kit for a SET it refuses, and by the application's handler to refuse one itself
 * (e.g. `access_denied`): answered 400 `{err, description}` on push, reported in `setErrs` on poll.
 * Any other error of the handler is not a refusal: push answers 500 and the gateway retries; poll
 * leaves the event pending for the next poll.
 */
export class SecurityEventRefused extends Error {
  override readonly name = 'SecurityEventRefused';
  readonly err: SetErrorCode;
  readonly description: string;
  constructor(err: SetErrorCode, description: string) {
    super(description);
    this.err = err;
    this.description = description;
  }
}

export interface SecurityEventReceiverOptions {
  /** The gateway's public base URL (the SETs' `iss`). */
  gatewayUrl: string;
  /** This platform's client id (the SETs' `aud`). */
  clientId: string;
  /** The gateway's signing keys (default: its JWKS, cached, refetched for an unknown key). Share the kit's. */
  keys?: GatewayKeySet;
  /** Called once per event (per `jti`, within the window). Event types this kit does not know are taken and not passed on (RFC 8417 §2.2). */
  onEvent: (event: SecurityEvent) => void | Promise<void>;
  /** How many handled `jti`s are remembered to drop redeliveries (default 10 000; the oldest are forgotten first). */
  rememberJtis?: number;
}

export interface PollOptions {
  /** SETs per request (default 25, at most 100). */
  maxEvents?: number;
  /** Requests per call at most (default 20), so a call ends even when events keep coming. */
  maxRounds?: number;
}

export interface PollOutcome {
  /** `jti`s handled (or already handled) and acknowledged. */
  acknowledged: string[];
  /** `jti`s refused, reported in `setErrs` with their error. */
  refused: Record<string, { err: SetErrorCode; description: string }>;
  /** `jti`s whose handler failed: left pending, offered again at the next poll. */
  failed: string[];
}

export interface SecurityEventReceiver {
  /** RFC 8935 push: the request handler for the platform's eventReceiverUrl (Node http; Express: securityEventHandler). */
  push(req: IncomingMessage & { body?: unknown }, res: ServerResponse): Promise<void>;
  /** RFC 8936 poll: fetch pending SETs with a client of the platform's credentials (clientWithPlatformSecret), handle, acknowledge. */
  poll(client: GatewayClient, options?: PollOptions): Promise<PollOutcome>;
  /** Verifies one SET (signature, `iss`, `aud`, `typ`, `iat`, `jti`, `sub`, one event); throws SecurityEventRefused. Undefined for a type the kit does not know. */
  verify(token: string): Promise<SecurityEvent | undefined>;
}

const MAX_BODY = 16 * 1024;

/** What a failed check of verify.ts means for the transmitter (RFC 8935 §2.3), or null when the fault is ours (the key set could not be fetched). */
function setErrorOf(error: GatewayTokenError): SetErrorCode | null {
  if (error.code === 'ERR_JWT_CLAIM_VALIDATION_FAILED') return error.claim === 'iss' ? 'invalid_issuer' : error.claim === 'aud' ? 'invalid_audience' : 'invalid_request';
  if (['ERR_JWS_SIGNATURE_VERIFICATION_FAILED', 'ERR_JWKS_NO_MATCHING_KEY', 'ERR_JWKS_MULTIPLE_MATCHING_KEYS', 'ERR_JOSE_ALG_NOT_ALLOWED'].includes(error.code)) return 'invalid_key';
  if (['ERR_JWS_INVALID', 'ERR_JWT_INVALID', 'ERR_JWT_EXPIRED', 'ERR_JOSE_NOT_SUPPORTED', 'ERR_TOKEN_CONTENT'].includes(error.code)) return 'invalid_request';
  return null;
}

export function createSecurityEventReceiver(options: SecurityEventReceiverOptions): SecurityEventReceiver {
  const gatewayUrl = options.gatewayUrl.replace(/\/+$/, '');
  const keys = options.keys ?? gatewayKeySet(gatewayUrl);
  const remember = Math.max(1, options.rememberJtis ?? 10_000);
  // jti → handled, or the handling in flight (a redelivery racing the first waits for it). Map
  // keeps insertion order: the first key is the oldest, forgotten when the window is full.
  const seen = new Map<string, true | Promise<void>>();

  async function verify(token: string): Promise<SecurityEvent | undefined> {
    let payload;
    try {
      // No maximum age: a SET has no exp and keeps its iat at every redelivery (RFC 8417 §2.2);
      // a replay is a redelivery, dropped by jti.
      payload = await verifyGatewayToken(token, { keys, issuer: gatewayUrl, audience: options.clientId, typ: 'secevent+jwt', maxTokenAge: false });
    } catch (error) {
      if (!(error instanceof GatewayTokenError)) throw error;
      const err = setErrorOf(error);
      if (!err) throw error; // not the token's fault: no 400 (the gateway would not retry)
      throw new SecurityEventRefused(err, `the SET is not valid: ${error.message}`);
    }
    const events = payload.events;
    // RFC 8417 §2.2: `events` is a JSON object; the gateway puts exactly one event in each SET.
    if (events === null || typeof events !== 'object' || Array.isArray(events) || Object.keys(events).length !== 1) throw new SecurityEventRefused('invalid_request', 'a SET of the gateway carries exactly one event');
    const [type, data] = Object.entries(events as Record<string, unknown>)[0]!;
    if (data === null || typeof data !== 'object' || Array.isArray(data)) throw new SecurityEventRefused('invalid_request', 'the event payload is not a JSON object');
    if (typeof payload.jti !== 'string' || payload.jti === '') throw new SecurityEventRefused('invalid_request', 'no jti');
    if (typeof payload.sub !== 'string' || payload.sub === '') throw new SecurityEventRefused('invalid_request', 'no sub');
    if (!KNOWN_TYPES.has(type)) return undefined;
    const toe = typeof payload.toe === 'number' ? new Date(payload.toe * 1000) : undefined;
    return { jti: payload.jti, type, subject: payload.sub, payload: data, issuedAt: new Date(payload.iat! * 1000), occurredAt: toe } as SecurityEvent;
  }

  /** The handler once per jti: a redelivery of a handled SET, or one racing it, does not call it again. */
  async function handleOnce(event: SecurityEvent): Promise<void> {
    const known = seen.get(event.jti);
    if (known === true) return;
    if (known) return known;
    const handling = Promise.resolve().then(() => options.onEvent(event));
    seen.set(event.jti, handling);
    try {
      await handling;
    } catch (error) {
      seen.delete(event.jti); // not handled: a redelivery tries again
      throw error;
    }
    seen.delete(event.jti);
    seen.set(event.jti, true);
    while (seen.size > remember) seen.delete(seen.keys().next().value!);
  }

  async function push(req: IncomingMessage & { body?: unknown }, res: ServerResponse): Promise<void> {
    const answer = (status: number, error?: { err: string; description: string }) => {
      res.writeHead(status, { 'Cache-Control': 'no-store', ...(error ? { 'Content-Type': 'application/json' } : {}) });
      res.end(error ? JSON.stringify(error) : undefined);
    };
    if (req.method !== 'POST') {
      res.setHeader('Allow', 'POST');
      return answer(405);
    }
    // RFC 8935 §2: the body is the SET itself, media type application/secevent+jwt.
    const mediaType = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (mediaType !== 'application/secevent+jwt') return answer(400, { err: 'invalid_request', description: 'the body must be application/secevent+jwt' });
    const token = await readBody(req);
    if (token === null) return answer(400, { err: 'invalid_request', description: `the body must be one SET of at most ${MAX_BODY} bytes` });
    let event: SecurityEvent | undefined;
    try {
      event = await verify(token);
      if (event) await handleOnce(event);
    } catch (error) {
      if (error instanceof SecurityEventRefused) return answer(400, { err: error.err, description: error.description });
      // The key set unreachable, or the application failed: not a 400, so that the gateway retries.
      return answer(error instanceof GatewayTokenError ? 503 : 500);
    }
    return answer(202);
  }

  async function poll(client: GatewayClient, pollOptions: PollOptions = {}): Promise<PollOutcome> {
    const outcome: PollOutcome = { acknowledged: [], refused: {}, failed: [] };
    let ack: string[] = [];
    let setErrs: PollOutcome['refused'] = {};
    const maxRounds = pollOptions.maxRounds ?? 20;
    let done = false;
    for (let round = 1; ; round += 1) {
      // Once done (or out of rounds), one last request only acknowledges (maxEvents 0), so what
      // this call took is not offered again (RFC 8936 §2.4.2).
      const fetchMore: boolean = !done && round <= maxRounds;
      const data = await pollOnce(client, { ack, setErrs, maxEvents: fetchMore ? (pollOptions.maxEvents ?? 25) : 0, returnImmediately: true });
      outcome.acknowledged.push(...ack);
      Object.assign(outcome.refused, setErrs);
      ack = [];
      setErrs = {};
      if (!fetchMore) break;
      for (const [jti, token] of Object.entries(data.sets)) {
        try {
          const event = await verify(token);
          if (event && event.jti !== jti) throw new SecurityEventRefused('invalid_request', 'the SET’s jti is not the one it was offered under');
          if (event) await handleOnce(event);
          ack.push(jti);
        } catch (refusal) {
          if (refusal instanceof SecurityEventRefused) setErrs[jti] = { err: refusal.err, description: refusal.description };
          else outcome.failed.push(jti);
        }
      }
      const answered = ack.length + Object.keys(setErrs).length;
      // A failed event stays pending and would come first again: stop after acknowledging the rest.
      done = !data.moreAvailable || outcome.failed.length > 0 || answered === 0;
      if (done && answered === 0) break;
    }
    return outcome;
  }

  return { push, poll, verify };
}

type PollRequest = components['schemas']['SecurityEventPollRequest'];
type PollResponse = components['schemas']['SecurityEventPollResponse'];

async function pollOnce(client: GatewayClient, body: PollRequest): Promise<PollResponse> {
  const { data, error, response } = await client.POST('/v1/events/poll', { body });
  if (!data) throw new Error(`the gateway's poll answered ${response.status} ${(error as { code?: string } | undefined)?.code ?? ''}`.trim());
  return data;
}

/** The SET as text: a body an Express parser read already (express.text), else read here; null when too large or not text. */
async function readBody(req: IncomingMessage & { body?: unknown }): Promise<string | null> {
  if (typeof req.body === 'string') return req.body.length <= MAX_BODY ? req.body.trim() : null;
  if (Buffer.isBuffer(req.body)) return req.body.length <= MAX_BODY ? req.body.toString('utf8').trim() : null;
  if (req.body !== undefined && req.readableEnded) return null;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY) return null;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8').trim();
}
