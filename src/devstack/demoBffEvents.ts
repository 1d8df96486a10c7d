import express, { type Request, type Response, type Router } from 'express';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { escapeHtml } from './demoBffPages.ts';

/**
 * The example BFF's Security Event Token receiver (RFC 8935 push delivery of RFC 8417 SETs):
 * POST {base}/security-events, registered as the platform's eventReceiverUrl. The reference for
 * platform teams, with docs/platform-integration.md ("Events about your people"):
 *
 * 1. The body is the SET itself, `Content-Type: application/secevent+jwt`.
 * 2. Verify it against the gateway's published keys (/.well-known/jwks.json; jose refetches the
 *    set for a `kid` it does not know): signature (ES256), `iss` (the gateway), `aud` (this
 *    platform's client id), header `typ: secevent+jwt`, an `iat`, and exactly one event.
 * 3. Answer 202 once it is taken; 400 with `{"err", "description"}` (RFC 8935 §2.3) for a SET
 *    that will never be acceptable (the gateway does not retry it); anything else (a 5xx, a
 *    timeout) makes the gateway retry, so take a SET at least once and deduplicate by `jti`.
 * 4. Act on it: here only kept in memory and shown on the BFF's home page; a real platform
 *    deletes its copy of the person on account-erased, ends its sessions on
 *    account-deletion-scheduled, and so on. Unknown event types are taken and ignored.
 */
export interface ReceivedEvent {
  jti: string;
  type: string;
  subject: string;
  payload: unknown;
  receivedAt: Date;
}

export interface EventReceiverSite {
  platformKey: string;
  clientId: string;
  /** The platform's path prefix in the BFF ('' or '/central'). */
  base: string;
}

/** How many events the page keeps per platform (newest first). */
const KEEP = 20;

export function createEventReceiver(gatewayUrl: string, sites: readonly EventReceiverSite[]) {
  const gatewayKeys = createRemoteJWKSet(new URL('/.well-known/jwks.json', gatewayUrl));
  const received = new Map<string, ReceivedEvent[]>();
  const router: Router = express.Router();
  const readSet = express.text({ type: 'application/secevent+jwt', limit: '16kb' });

  for (const site of sites) {
    router.all(`${site.base}/security-events`, readSet, async (req: Request, res: Response) => {
      const answer = (status: number, error?: { err: string; description: string }) => {
        res.status(status).set('Cache-Control', 'no-store');
        if (error) res.json(error);
        else res.end();
      };
      if (req.method !== 'POST') return void res.set('Allow', 'POST').status(405).end();
      if (typeof req.body !== 'string') return answer(400, { err: 'invalid_request', description: 'the body must be application/secevent+jwt' });
      let event: ReceivedEvent;
      try {
        const { payload } = await jwtVerify(req.body.trim(), gatewayKeys, { issuer: gatewayUrl, audience: site.clientId, typ: 'secevent+jwt', algorithms: ['ES256'], requiredClaims: ['iat', 'jti', 'sub'] });
        const events = payload.events;
        if (events === null || typeof events !== 'object' || Array.isArray(events) || Object.keys(events).length !== 1) throw new Error('a SET of the gateway carries exactly one event');
        const [type, data] = Object.entries(events as Record<string, unknown>)[0]!;
        event = { jti: payload.jti!, type, subject: payload.sub!, payload: data, receivedAt: new Date() };
      } catch (error) {
        const message = (error as Error).message;
        const err = /aud/.test(message) ? 'invalid_audience' : /iss/.test(message) ? 'invalid_issuer' : /signature|JWKS|kid/i.test(message) ? 'invalid_key' : 'invalid_request';
        return answer(400, { err, description: `the SET is not valid: ${message}` });
      }
      const list = received.get(site.platformKey) ?? [];
      // At least once: a SET seen before (same jti) is taken again without a second entry.
      if (!list.some((known) => known.jti === event.jti)) {
        list.unshift(event);
        list.length = Math.min(list.length, KEEP);
        received.set(site.platformKey, list);
      }
      answer(202);
    });
  }

  /** The received events of a platform as HTML (for the BFF's home page), or '' when there are none. */
  function html(platformKey: string): string {
    const list = received.get(platformKey) ?? [];
    if (list.length === 0) return '';
    const items = list
      .map((event) => `<li class="security-event"><code>${escapeHtml(event.type.slice(event.type.lastIndexOf(':') + 1))}</code> about <code>${escapeHtml(event.subject)}</code> at ${escapeHtml(event.receivedAt.toISOString())} <code>${escapeHtml(JSON.stringify(event.payload))}</code></li>`)
      .join('');
    return `<section aria-labelledby="events-${escapeHtml(platformKey)}"><h2 id="events-${escapeHtml(platformKey)}">Events from the gateway</h2><ul>${items}</ul></section>`;
  }

  return { router, html, received: (platformKey: string): readonly ReceivedEvent[] => received.get(platformKey) ?? [] };
}

export type EventReceiver = ReturnType<typeof createEventReceiver>;
