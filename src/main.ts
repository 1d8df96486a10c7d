// First: the parent's pid before anything else is loaded (see there).
import { PARENT_AT_START } from './parentProcess.ts';
import type { Server } from 'node:http';
import { ConfigError, loadConfig, type Config } from './config/index.ts';
import { batchedDestination, createLogger, wantsPrettyLogs, type Logger } from './logger.ts';
import { openDatabase } from './db/open.ts';
import { parseKeyRing, DEV_ENCRYPTION_KEYS } from './security/crypto.ts';
import { relyingPartyFromConfig } from './oidc/relyingParty.ts';
import { identityProviderAccountsFromConfig } from './services/identityProvider/index.ts';
import { createApp } from './app.ts';
import { drain, Lifecycle, listen } from './server.ts';
import { bootProbes, serveApp, type BootState } from './bootProbes.ts';
import { schedulePurge } from './services/maintenance/maintenance.ts';
import { logInsecurePlatforms } from './services/registry/platformUrls.ts';
import { signingKeysFor } from './security/signingKeys.ts';
import { createMetrics, startMetricsServer } from './observability/metrics.ts';
import { closeRateLimitRedis, openRateLimitRedis } from './services/rateLimits/rateLimits.ts';
import type { DevStack } from './devstack/index.ts';
import { busyPortMessage } from './startupPorts.ts';
import { watchEmbeddedPostgres } from './devstack/postgresWatchdog.ts';
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
  // Production writes its JSON lines to stdout in batches (batchedDestination); development at once.
  const pretty = wantsPrettyLogs(config.nodeEnv, process.stdout.isTTY);
  const logger = createLogger(config.logLevel, config.isProduction ? batchedDestination(1) : undefined, { pretty });
  logger.info({ node: process.version, nodeEnv: config.nodeEnv }, 'starting auth-gateway');
  for (const warning of config.warnings) logger.warn(warning);
  // Traces only with OTEL_EXPORTER_OTLP_ENDPOINT: the OpenTelemetry packages are not even loaded otherwise.
  const tracing = config.tracing ? (await import('./observability/tracing.ts')).startTracing(config.tracing) : null;
  if (config.tracing) logger.info({ collector: new URL(config.tracing.tracesUrl).origin, serviceName: config.tracing.serviceName }, 'exporting traces over OTLP/HTTP');
  // Every port first, before anything changes (a second `npm start` leaves the first untouched).
  const busy = await busyPortMessage(config);
  if (busy) {
    process.stderr.write(`auth-gateway: ${busy}\n`);
    process.exit(1);
  }

  const keyRing = parseKeyRing(config.encryptionKeys ?? DEV_ENCRYPTION_KEYS);
  if (!config.encryptionKeys) logger.warn('ENCRYPTION_KEYS is unset: using the published development key ring (never in production)');
  const signingKeys = signingKeysFor(config);
  if (!config.gatewaySigningKeys) {
    logger.warn({ kid: signingKeys.activeKid }, 'GATEWAY_SIGNING_KEYS is unset: back-channel logout tokens are signed with a development key generated at this start (never in production)');
  }

  // The listener from here on: the probes answer while the boot waits (src/bootProbes.ts), and the
  // app takes the same listener over once it exists.
  const boot: BootState = { reason: 'starting' };
  const server = await listen(bootProbes(boot), config.port, undefined, config.listenHost ?? undefined);
  logger.info({ port: config.port }, 'probes answer while starting: /health/live 200, /health/ready 503');

  // Production migrates as a separate step (`node scripts/migrate.ts latest`), before
  // new instances start; development and the demo migrate at boot.
  boot.reason = 'connecting to PostgreSQL';
  const database = await openDatabase(config.databaseUrl, logger, {
    migrate: !config.isProduction,
    statementTimeoutMs: config.databaseStatementTimeoutMs,
    preparedStatements: config.databasePreparedStatements,
    onWaiting: (reason) => (boot.reason = reason),
  });
  boot.reason = 'starting the app';
  // The embedded PostgreSQL we started goes when this process goes, even if it dies unannounced.
  if (database.embedded) watchEmbeddedPostgres(logger);

  let devStack: DevStack | null = null;
  if (!config.oidc.issuer && !config.isProduction) {
    // Loaded only here: the dev stack's packages are development dependencies.
    const { startDevStack } = await import('./devstack/index.ts');
    devStack = await startDevStack(config, database.db, logger);
    config = devStack.config;
  }
  const oidc = relyingPartyFromConfig(config, logger);
  if (!oidc) logger.warn('the OpenID Connect client is not configured: the login flow answers 503 OIDC_NOT_CONFIGURED');

  // The one served registry of this process, with the process metrics (CPU, memory, event loop).
  const metrics = createMetrics({ db: database.db, processMetrics: true });
  const lifecycle = new Lifecycle();
  // Rate-limit counters in Redis when REDIS_URL is set (ioredis loaded only then); PostgreSQL otherwise.
  const redis = config.redisUrl ? await openRateLimitRedis(config.redisUrl, logger) : null;
  const deps: AppDeps = { config, db: database.db, logger, keyRing, oidc, idpAccounts: identityProviderAccountsFromConfig(config, logger, devStack?.idpAccounts), metrics, lifecycle, redis, tracing };
  const app = await createApp(deps);
  // Production: platforms stored with http URLs before the https rule cannot start logins; say which.
  // A check, not a precondition: a database not migrated yet or out of reach must not stop the boot.
  if (config.isProduction) await logInsecurePlatforms(database.db, logger).catch((error: unknown) => logger.warn({ err: error }, 'could not list platforms with http URLs'));
  serveApp(server, app);
  logger.info({ port: config.port, host: config.listenHost ?? 'every interface', docs: `${config.publicBaseUrl}/docs` }, 'auth-gateway is listening');
  // Prometheus on its own port (METRICS_PORT), never on the public one (there only with METRICS_TOKEN).
  const metricsServer = config.metricsPort === null ? null : await startMetricsServer(metrics, config.metricsPort);
  if (metricsServer) logger.info({ port: config.metricsPort }, 'metrics listener: GET /metrics');

  const stopPurge = schedulePurge(deps);
  // Back-channel logout out to platforms: every instance works the outbox (graphile-worker,
  // loaded here so that a bad configuration stops the process before it is).
  const { startBackchannelWorker } = await import('./services/backchannel/worker.ts');
  const backchannelWorker = await startBackchannelWorker(deps);
  // Once everything runs: "ready" is what people and the dev stack's tests wait for.
  devStack?.announce(logger, { pretty });

  installShutdown({ server, lifecycle, graceMs: config.shutdownGraceSeconds * 1000 }, logger, async () => {
    stopPurge();
    // Before the pool closes: deliveries in flight finish (each bounded by its timeout).
    await backchannelWorker.stop();
    metricsServer?.closeAllConnections();
    await new Promise((resolve) => (metricsServer ? metricsServer.close(resolve) : resolve(undefined)));
    await devStack?.close();
    if (redis) await closeRateLimitRedis(redis);
    await database.close();
    // The spans of the last requests, bounded: a collector that is down must not hold the exit.
    if (tracing) await Promise.race([tracing.shutdown().catch(() => undefined), new Promise((resolve) => setTimeout(resolve, 5000).unref())]);
  });
}

/**
 * Graceful shutdown (src/server.ts drain): out of rotation and `Connection: close` at once,
 * keep accepting for SHUTDOWN_GRACE_SECONDS while load balancers notice, let in-flight requests
 * finish (bounded), then close the pool and any embedded servers. A second signal exits at once.
 */
function installShutdown(listener: { server: Server; lifecycle: Lifecycle; graceMs: number }, logger: Logger, closeResources: () => Promise<void>): void {
  let stopping = false;
  // The stop the parent's exit began is not a first signal: Ctrl-C reaches node and the shell
  // npm runs it in alike, and whichever is noticed first, the first Ctrl-C stops cleanly.
  let byParentExit = false;
  const stop = async (signal: string) => {
    if (stopping) {
      if (byParentExit) {
        byParentExit = false;
        return;
      }
      logger.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    stopping = true;
    byParentExit = signal === 'parent exited';
    logger.info({ signal, graceSeconds: listener.graceMs / 1000 }, 'shutting down: readiness 503, draining connections, finishing in-flight requests');
    // A stop that hangs (a resource that never closes) must still end: the grace, the 10 s for
    // requests in flight, then 10 s for the resources. An embedded PostgreSQL left behind is
    // stopped by its watchdog once this process is gone.
    setTimeout(() => {
      logger.error('shutdown did not finish in time: exiting now');
      process.exit(1);
    }, listener.graceMs + 20_000).unref();
    await drain(listener.server, listener.lifecycle, { graceMs: listener.graceMs, forceAfterMs: 10_000 });
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
  // Under `npm start`, npm forwards SIGTERM to the shell that runs the script (sh -c), not to
  // node; the shell dies and node would run on as an orphan with every port bound. So when the
  // parent goes, stop as on SIGTERM (once: a stop already under way, as after Ctrl-C, goes on).
  if (process.env.npm_lifecycle_event) {
    const watch = setInterval(() => {
      if (process.ppid === PARENT_AT_START) return;
      clearInterval(watch);
      if (!stopping) void stop('parent exited');
    }, 500);
    watch.unref();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`auth-gateway failed to start: ${error instanceof Error ? error.stack ?? error.message : String(error)}\n`);
  process.exit(1);
});
