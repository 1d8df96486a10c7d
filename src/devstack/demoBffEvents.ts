import { Router } from 'express';
import { createSecurityEventReceiver, gatewayKeySet, type SecurityEvent } from '../../packages/platform-kit/src/index.ts';
import { securityEventHandler } from '../../packages/platform-kit/src/express.ts';
import { escapeHtml } from './demoBffPages.ts';

/**
 * The example BFF's Security Event Token receiver: the platform kit's (RFC 8935 push; the kit
 * verifies each SET against the gateway's keys, answers 202 or RFC 8935's 400, and calls us once
 * per `jti`) at POST {base}/security-events, registered as the platform's eventReceiverUrl. What
 * is the BFF's own: it keeps the events in memory and shows them on its home page. A real
 * platform deletes its copy of the person on account-erased, ends its sessions on
 * account-deletion-scheduled, and so on (docs/platform-integration.md, "Events about your people").
 */
export interface EventReceiverSite {
  platformKey: string;
  clientId: string;
  /** The platform's path prefix in the BFF ('' or '/central'). */
  base: string;
}

type ShownEvent = SecurityEvent & { receivedAt: Date };

/** How many events the page keeps per platform (newest first). */
const KEEP = 20;

export function createEventReceiver(gatewayUrl: string, sites: readonly EventReceiverSite[]) {
  const keys = gatewayKeySet(gatewayUrl); // one cached key set for every platform of the BFF
  const received = new Map<string, ShownEvent[]>();
  const router = Router();
  for (const site of sites) {
    const receiver = createSecurityEventReceiver({
      gatewayUrl,
      clientId: site.clientId,
      keys,
      onEvent: (event) => {
        const list = [{ ...event, receivedAt: new Date() }, ...(received.get(site.platformKey) ?? [])];
        received.set(site.platformKey, list.slice(0, KEEP));
      },
    });
    router.all(`${site.base}/security-events`, securityEventHandler(receiver));
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

  return { router, html };
}

export type EventReceiver = ReturnType<typeof createEventReceiver>;
