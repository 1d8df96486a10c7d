import type { OperationHandler } from '../api/types.ts';
import { signingKeysFor } from '../security/signingKeys.ts';

/**
 * GET /.well-known/jwks.json: the public parts of GATEWAY_SIGNING_KEYS (every key, the signing
 * one first), which platforms verify back-channel logout tokens with. Cacheable for five
 * minutes: a new key is published (second in the ring) before it signs.
 */
export const getJwks: OperationHandler<'getJwks'> = async (_input, deps) => ({
  status: 200,
  body: { keys: signingKeysFor(deps.config).jwks.keys.map((key) => ({ ...key })) },
  headers: { 'Cache-Control': 'public, max-age=300' },
});
