import type { Logger } from 'pino';
import type { Config } from './config/index.ts';
import type { Db } from './db/knex.ts';
import type { KeyRing } from './security/crypto.ts';
import type { RelyingParty } from './oidc/relyingParty.ts';
import type { IdentityProviderAccounts } from './services/identityProvider/port.ts';

/** Everything an operation may use, built once at boot and passed down explicitly. */
export interface AppDeps {
  readonly config: Config;
  readonly db: Db;
  readonly logger: Logger;
  readonly keyRing: KeyRing;
  /** The OpenID Connect client; null when it is not configured (flow endpoints answer 503). */
  readonly oidc: RelyingParty | null;
  /** The user's account at the identity provider; null when no admin API is configured (those operations answer 503). */
  readonly idpAccounts: IdentityProviderAccounts | null;
}
