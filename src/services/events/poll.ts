import type { components } from '../../../generated/gateway.ts';
import type { Db } from '../../db/knex.ts';
import type { Config } from '../../config/index.ts';
import { withPlatformClient } from '../registry/platformClient.ts';
import { countSecurityEventDelivery } from '../../observability/metrics.ts';
import type { SigningKeys } from '../../security/signingKeys.ts';
import { acknowledgeEvents, findPollingPlatform, pendingEvents, reportEventErrors } from './repository.ts';
import { signSecurityEventToken } from './token.ts';

// Poll delivery of Security Event Tokens (RFC 8936): the platform's back end POSTs with its
// Basic credentials, acknowledges what it took, reports what it refused, and gets what is
// pending. Every statement is scoped to the authenticated platform, so a `jti` of another
// platform (guessed or leaked) can be neither acknowledged, reported nor read.

export type PollRequest = components['schemas']['SecurityEventPollRequest'];
export type PollResponse = components['schemas']['SecurityEventPollResponse'];

const DEFAULT_MAX_EVENTS = 25;

export async function pollSecurityEvents(
  deps: { db: Db; keys: SigningKeys; issuer: string; config: Pick<Config, 'isProduction' | 'databaseUrl'> },
  credentials: { clientId: string; clientSecret: string },
  request: PollRequest,
): Promise<PollResponse> {
  // The exchange's check of Basic credentials: the dev stack's published secrets only there, and
  // a deactivated platform refused (401) before anything is acknowledged or read.
  const platform = await withPlatformClient(deps.config, credentials, (lookup) => findPollingPlatform(deps.db, lookup));
  const platformId = platform.id!;
  const maxEvents = request.maxEvents ?? DEFAULT_MAX_EVENTS;
  const errors = Object.entries(request.setErrs ?? {}).map(([id, error]) => ({ id, err: error.err, description: error.description }));
  // Acknowledgements first (RFC 8936 §2.4.2), so what was just taken is not offered again.
  const { acknowledged, reported, pending } = await deps.db.transaction(async (trx) => {
    const acknowledged = await acknowledgeEvents(trx, platformId, request.ack ?? []);
    const reported = await reportEventErrors(trx, platformId, errors);
    const pending = maxEvents === 0 ? [] : await pendingEvents(trx, platformId, maxEvents + 1);
    return { acknowledged, reported, pending };
  });
  countSecurityEventDelivery('poll', 'delivered', acknowledged, deps.db);
  countSecurityEventDelivery('poll', 'rejected', reported, deps.db);
  const sets: Record<string, string> = {};
  for (const event of pending.slice(0, maxEvents)) {
    sets[event.id] = await signSecurityEventToken(deps.keys, event, { issuer: deps.issuer, audience: platform.clientId! });
  }
  return { sets, moreAvailable: pending.length > maxEvents };
}
