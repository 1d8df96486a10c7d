// The gateway side of the benchmark: the real app (createApp with the default
// handlers, response validation off as in production), wired the way
// src/main.ts wires it, with the production log level (`info`) written to
// /dev/null so that every request is logged and serialised, but no terminal
// or pipe throttles the run. The purge job src/main.ts schedules every 15
// minutes is left out: it would not fire during a benchmark.
//
// Started by run.ts (fork); not meant to be run by hand.

import { openSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../../src/config/index.ts';
import { batchedDestination, createLogger } from '../../src/logger.ts';
import { createDb } from '../../src/db/knex.ts';
import { parseKeyRing } from '../../src/security/crypto.ts';
import { relyingPartyFromConfig } from '../../src/oidc/relyingParty.ts';
import { createApp } from '../../src/app.ts';
import { createMetrics, instrumentRelyingParty } from '../../src/observability/metrics.ts';
import { operationsOnly } from './operationsOnly.ts';
import { BENCH_RATE_LIMITS, readSettings, reportFailure, serveUntilStopped } from './protocol.ts';

async function main(): Promise<void> {
  const settings = readSettings();
  // The production profile: NODE_ENV=production (explicit keys, signing keys, `__Host-`
  // cookies, https only), the provider over https (its certificate trusted through
  // NODE_EXTRA_CA_CERTS, set by the driver).
  const config = loadConfig({
    NODE_ENV: 'production',
    PORT: '0',
    LOG_LEVEL: settings.logLevel,
    DATABASE_URL: settings.databaseUrl,
    ENCRYPTION_KEYS: settings.encryptionKeys,
    GATEWAY_SIGNING_KEYS: settings.gatewaySigningKeys,
    PUBLIC_BASE_URL: settings.publicBaseUrl,
    ACCOUNT_CENTER_URL: settings.accountCenterUrl,
    AUTH_CALLBACK_URL: settings.callbackUrl,
    OIDC_ISSUER: settings.issuer,
    OIDC_CLIENT_ID: settings.oidcClientId,
    OIDC_CLIENT_SECRET: settings.oidcClientSecret,
    OIDC_SCOPES: settings.scopes.join(' '),
    DATABASE_PREPARED_STATEMENTS: String(settings.preparedStatements),
    ...BENCH_RATE_LIMITS,
  });
  // What src/main.ts writes to in production (stdout in batches, batchedDestination), only
  // pointed at /dev/null.
  const logger = createLogger(config.logLevel, batchedDestination(openSync('/dev/null', 'w')));
  const db = createDb(config.databaseUrl!, {
    poolMax: settings.poolSize,
    preparedStatements: config.databasePreparedStatements,
    logger: { warn: (message) => logger.warn({ knex: message }, 'database warning'), error: (message) => logger.error({ knex: message }, 'database error') },
  });
  const oidc = relyingPartyFromConfig(config, logger);
  const deps = { config, db, logger, keyRing: parseKeyRing(config.encryptionKeys!), oidc, idpAccounts: null };
  const app = await createApp(deps, {});
  const listener = settings.gatewayLayer === 'operations' ? operationsListener() : app;
  const server = await new Promise<Server>((resolve) => {
    const listening = createServer(listener).listen(0, '127.0.0.1', () => resolve(listening));
  });
  server.keepAliveTimeout = 65_000; // as src/main.ts

  /** Without the HTTP layer, the operations get the dependencies as createApp completes them: metrics, the provider calls timed. */
  function operationsListener() {
    const metrics = createMetrics({ db });
    return operationsOnly(app, { ...deps, metrics, oidc: oidc && instrumentRelyingParty(oidc, metrics) });
  }

  serveUntilStopped((server.address() as AddressInfo).port, async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await db.destroy();
  });
}

main().catch(reportFailure);
