import type { Express } from 'express';
import { loadConfig, type Config } from '../../src/config/index.ts';
import { createLogger } from '../../src/logger.ts';
import { createApp } from '../../src/app.ts';
import { generateKeyRingSpec, parseKeyRing, DEV_ENCRYPTION_KEYS } from '../../src/security/crypto.ts';
import { relyingPartyFromConfig } from '../../src/oidc/relyingParty.ts';
import type { AppDeps } from '../../src/deps.ts';
import type { IdentityProviderAccounts } from '../../src/services/identityProvider/port.ts';
import type { Db } from '../../src/db/knex.ts';
import type { Lifecycle } from '../../src/server.ts';

/** One random key ring per test file (never the published development ring). */
const TEST_KEY_RING = generateKeyRingSpec('test');

export interface TestAppOptions {
  db: Db;
  /** Environment for loadConfig, on top of test defaults. */
  env?: Record<string, string>;
  /** Provide an OIDC client: an issuer and the client registered there. */
  oidc?: { issuer: string; clientId: string; clientSecret: string; scopes?: string[] } | null;
  /** The identity provider's account operations (an adapter); none by default. */
  idpAccounts?: IdentityProviderAccounts | null;
  /** The listener's lifecycle (src/server.ts), for a test that drains a listening instance. */
  lifecycle?: Lifecycle;
}

export interface TestApp {
  app: Express;
  deps: AppDeps;
  config: Config;
}

/**
 * The real app on a test database, with response validation on: any response
 * that breaks the contract becomes a 500 and fails the test that receives it.
 */
export async function createTestApp(options: TestAppOptions): Promise<TestApp> {
  const config = loadConfig({
    NODE_ENV: 'test',
    PUBLIC_BASE_URL: 'http://gateway.test',
    ACCOUNT_CENTER_URL: 'http://account.test',
    // A gateway with its own issuer is not the embedded dev stack: it needs a real key ring.
    ...(options.oidc ? { ENCRYPTION_KEYS: TEST_KEY_RING } : {}),
    ...(options.oidc
      ? {
          OIDC_ISSUER: options.oidc.issuer,
          OIDC_CLIENT_ID: options.oidc.clientId,
          OIDC_CLIENT_SECRET: options.oidc.clientSecret,
          ...(options.oidc.scopes ? { OIDC_SCOPES: options.oidc.scopes.join(' ') } : {}),
        }
      : {}),
    // Every test request comes from 127.0.0.1, so the per-IP limits of start and callback would
    // throttle whole files; test/api/rateLimits.test.ts sets small ones through `env`.
    RATE_LIMIT_START_PER_MINUTE: '100000',
    RATE_LIMIT_CALLBACK_PER_MINUTE: '100000',
    ...options.env,
  });
  const logger = createLogger(process.env.TEST_LOG_LEVEL ?? 'silent');
  const oidc = relyingPartyFromConfig(config, logger, { timeoutMs: 2000 });
  const deps: AppDeps = {
    config,
    db: options.db,
    logger,
    keyRing: parseKeyRing(config.encryptionKeys ?? DEV_ENCRYPTION_KEYS),
    oidc,
    idpAccounts: options.idpAccounts ?? null,
    ...(options.lifecycle ? { lifecycle: options.lifecycle } : {}),
  };
  const app = await createApp(deps, { validateResponses: true });
  return { app, deps, config };
}
