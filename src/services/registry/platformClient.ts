import type { Config } from '../../config/index.ts';
import { invalidClientCredentials } from '../../errors/catalogue.ts';
import { sha256 } from '../../security/crypto.ts';
import { acceptsPublishedDevCredentials, isPublishedDevSecret } from '../../security/devCredentials.ts';

// The one check of a platform's Basic credentials (RFC 7617; id and secret form-urlencoded as
// RFC 6749 §2.3.1, parsed by the platformBasicAuth security handler), for every operation that
// takes them: exchangeAuthenticationHandoff and pollSecurityEvents. The exchange checks the
// secret inside its single SQL statement (an extra SELECT per exchange cost a third of its
// throughput, GUIDE §9), so this check is a frame around the caller's own statement rather
// than a query of its own: it refuses what needs no database first, hands the statement the
// values to match with (PLATFORM_CLIENT_MATCH), and decides from what the statement found.

/** The values a statement matches the platform with (PLATFORM_CLIENT_MATCH's bindings). */
export interface PlatformClientLookup {
  clientId: string;
  secretDigest: Buffer;
}

/** What the caller's statement reports of the platform it matched. */
export interface PlatformClientMatch {
  /** null: no platform has this client id and secret. */
  platformKey: string | null;
  /** null when no platform matched. */
  platformActive: boolean | null;
}

/**
 * Runs `statement` for the platform these credentials belong to, and returns its result once
 * the platform is known and active. Refused with `401 INVALID_CLIENT_CREDENTIALS` (with its
 * Basic challenge):
 * - a published development secret (src/security/devCredentials.ts) on a gateway that is not
 *   the dev stack, before any statement runs (nothing is read, nothing consumed), whatever a
 *   database holds;
 * - an unknown client id or a wrong secret;
 * - a deactivated platform (soft deactivation keeps the row and its credentials): the same
 *   status as a wrong secret, and the detail says why only to a caller that holds the right
 *   secret, so no secret can be tested against a deactivated platform. The statement must
 *   change nothing for an inactive platform (the exchange consumes no code, the poll
 *   acknowledges nothing); it reports `platformActive` so the answer is decided here.
 */
export async function withPlatformClient<T extends PlatformClientMatch>(
  config: Pick<Config, 'isProduction' | 'databaseUrl'>,
  credentials: { clientId: string; clientSecret: string },
  statement: (lookup: PlatformClientLookup) => Promise<T>,
): Promise<T & { platformKey: string; platformActive: true }> {
  if (isPublishedDevSecret(credentials.clientSecret) && !acceptsPublishedDevCredentials(config)) {
    throw invalidClientCredentials("This is a published development secret of the dev stack: it is accepted only by `npm start` with its embedded database. Rotate the platform's credentials.");
  }
  const found = await statement({ clientId: credentials.clientId, secretDigest: sha256(credentials.clientSecret) });
  if (found.platformKey === null) throw invalidClientCredentials('The platform client id or secret is not valid.');
  if (found.platformActive !== true) {
    throw invalidClientCredentials(`The platform ${found.platformKey} is deactivated: its credentials are refused until an operator activates it again.`);
  }
  return found as T & { platformKey: string; platformActive: true };
}
