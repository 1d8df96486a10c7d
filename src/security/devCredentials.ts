import type { Config } from '../config/index.ts';

/**
 * DEVELOPMENT ONLY. Fixed, published credentials of the dev stack (`npm start` with no
 * configuration), like the development key ring (DEV_ENCRYPTION_KEYS): anyone can read them
 * here and in docs/getting-started.md, so they protect nothing. The dev stack seeds its demo platforms with
 * them (src/devstack/seed.ts) so a person can use them without rotating anything, and the
 * gateway accepts them only while it runs its own dev stack (acceptsPublishedDevCredentials):
 * any gateway with DATABASE_URL set, and every production gateway, refuses them at the exchange
 * and the event poll (the one check of Basic credentials, services/registry/platformClient.ts).
 */
export interface PublishedPlatformCredentials {
  readonly clientId: string;
  readonly clientSecret: string;
}

/** The demo platforms' credentials, by platform key. */
export const DEV_PLATFORM_CREDENTIALS: Readonly<Record<string, PublishedPlatformCredentials>> = Object.freeze({
  DEMO_PLATFORM: { clientId: 'pc_dev_demo_platform', clientSecret: 'pcs_dev-only-demo-platform-secret-published-never-use-in-production' },
  DEMO_CENTRAL: { clientId: 'pc_dev_demo_central', clientSecret: 'pcs_dev-only-demo-central-secret-published-never-use-in-production' },
  ACCOUNT_CENTER: { clientId: 'pc_dev_account_center', clientSecret: 'pcs_dev-only-account-center-secret-published-never-use-in-production' },
});

/** The gateway's own OpenID Connect client at the dev identity provider (which never runs in production). */
export const DEV_OIDC_CLIENT = Object.freeze({
  clientId: 'auth-gateway-dev',
  clientSecret: 'dev-only-oidc-client-secret-published-never-use-in-production',
});

const PUBLISHED_SECRETS = new Set(Object.values(DEV_PLATFORM_CREDENTIALS).map((credentials) => credentials.clientSecret));

export function isPublishedDevSecret(clientSecret: string): boolean {
  return PUBLISHED_SECRETS.has(clientSecret);
}

/**
 * Whether this gateway runs its own dev stack, the only place the published credentials are
 * accepted: not production, and the embedded PostgreSQL under .data/ (no DATABASE_URL), the
 * same rule as for the development key ring. A database someone pointed a dev stack at (with
 * DATABASE_URL) may be shared, so it is never seeded with them and never accepts them.
 */
export function acceptsPublishedDevCredentials(config: Pick<Config, 'isProduction' | 'databaseUrl'>): boolean {
  return !config.isProduction && config.databaseUrl === null;
}
