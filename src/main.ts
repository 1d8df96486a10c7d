import type { Server } from 'node:http';
import { ConfigError, loadConfig, type Config } from './config/index.ts';
import { createLogger, wantsPrettyLogs, type Logger } from './logger.ts';
import { openDatabase } from './db/open.ts';
import { parseKeyRing, DEV_ENCRYPTION_KEYS } from './security/crypto.ts';
import { relyingPartyFromConfig } from './oidc/relyingParty.ts';
import { identityProviderAccountsFromConfig } from './services/identityProvider/index.ts';
import { createApp } from './app.ts';
import { schedulePurge } from './services/maintenance.ts';
import type { DevStack } from './devstack/index.ts';
import type { AppDeps } from './deps.ts';

/** Boot: config → database → identity provider client → app → listen; stop cleanly on SIGTERM/SIGINT. */
async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`auth-gateway: ${error.message}\n`);
      process.exit(78); // EX_CONFIG
    }
    throw error;
  }
  const logger = createLogger(config.logLevel, undefined, { pretty: wantsPrettyLogs(config.nodeEnv, process.stdout.isTTY) });
  logger.info({ node: process.version, nodeEnv: config.nodeEnv }, 'starting auth-gateway');

  const keyRing = parseKeyRing(config.encryptionKeys ?? DEV_ENCRYPTION_KEYS);
  if (!config.encryptionKeys) logger.warn('ENCRYPTION_KEYS is unset: using the published development key ring (never in production)');

  // Production migrates as a separate step (`node scripts/migrate.ts latest`), before
  // new instances start; development and the demo migrate at boot.
  const database = await openDatabase(config.databaseUrl, logger, { migrate: !config.isProduction });

  let devStack: DevStack | null = null;
  if (!config.oidc.issuer && !config.isProduction) {
    // Loaded only here: the dev stack's packages are development dependencies.
    const { startDevStack } = await import('./devstack/index.ts');
    devStack = await startDevStack(config, database.db, logger);
    config = devStack.config;
  }
  const oidc = relyingPartyFromConfig(config, logger);
  if (!oidc) logger.warn('the OpenID Connect client is not configured: the login flow answers 503 OIDC_NOT_CONFIGURED');

  const deps: AppDeps = { config, db: database.db, logger, keyRing, oidc, idpAccounts: identityProviderAccountsFromConfig(config, logger, devStack?.idpAccounts) };
  const app = await createApp(deps);
  const server: Server = app.listen(config.port, () => {
    logger.info({ port: config.port, docs: `${config.publicBaseUrl}/docs` }, 'auth-gateway is listening');
    devStack?.announce(logger);
  });
  server.keepAliveTimeout = 65_000;

  const stopPurge = schedulePurge(deps);

  installShutdown(server, logger, async () => {
    stopPurge();
    await devStack?.close();
    await database.close();
  });
}

/**
 * Graceful shutdown: stop accepting, let in-flight requests finish (bounded),
 * then close the pool and any embedded servers. A second signal exits at once.
 */
function installShutdown(server: Server, logger: Logger, closeResources: () => Promise<void>): void {
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) {
      logger.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    stopping = true;
    logger.info({ signal }, 'shutting down: no new connections, finishing in-flight requests');
    const force = setTimeout(() => server.closeAllConnections(), 10_000).unref();
    server.closeIdleConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    clearTimeout(force);
    try {
      await closeResources();
      logger.info('stopped');
      process.exit(0);
    } catch (error) {
      logger.error({ err: error }, 'error while closing resources');
      process.exit(1);
    }
  };
  process.on('SIGTERM', (signal) => void stop(signal));
  process.on('SIGINT', (signal) => void stop(signal));
}

main().catch((error: unknown) => {
  process.stderr.write(`auth-gateway failed to start: ${error instanceof Error ? error.stack ?? error.message : String(error)}\n`);
  process.exit(1);
});
