import type { OperationHandler } from '../api/types.ts';
import { invalidClientCredentials } from '../errors/catalogue.ts';
import { signingKeysFor } from '../security/signingKeys.ts';
import { pollSecurityEvents as poll } from '../services/events/poll.ts';

/** POST /v1/events/poll: RFC 8936 poll delivery for the platform whose Basic credentials these are. */
export const pollSecurityEvents: OperationHandler<'pollSecurityEvents'> = async ({ body, platformCredentials }, deps) => {
  // Parsed by the platformBasicAuth security handler; checked by the exchange's check (registry/platformClient.ts).
  if (!platformCredentials) throw invalidClientCredentials();
  const result = await poll({ db: deps.db, keys: signingKeysFor(deps.config), issuer: deps.config.publicBaseUrl, config: deps.config }, platformCredentials, body);
  return { status: 200, body: result, headers: { 'Cache-Control': 'no-store' } };
};
