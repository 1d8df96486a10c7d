import path from 'node:path';
import type { Logger } from 'pino';
import { createDb, migrateLatest, type Db } from './knex.ts';
import { isDatabaseUnavailable } from './errors.ts';
import type { EmbeddedDatabase } from './embedded.ts';

export const EMBEDDED_DATA_DIR = path.resolve('.data/postgres');
/** The embedded server's port: EMBEDDED_POSTGRES_PORT (development only), default 54329. */
export const EMBEDDED_PORT = embeddedPort(process.env.EMBEDDED_POSTGRES_PORT);

function embeddedPort(value: string | undefined): number {
  if (value === undefined || value.trim() === '') return 54329;
  const port = Number(value);
  if (!/^\d{1,5}$/.test(value.trim()) || port < 1 || port > 65535) throw new Error(`EMBEDDED_POSTGRES_PORT is refused: must be a port number (1..65535), got "${value}"`);
  return port;
}
const EMBEDDED_DATABASE = 'gateway';

export interface OpenedDatabase {
  db: Db;
  embedded: EmbeddedDatabase | null;
  close(): Promise<void>;
}

/**
 * DATABASE_URL when set; otherwise a real PostgreSQL of our own under `.data/`
 * (development and demo only: the config refuses this in production).
 */
export async function openDatabase(
  databaseUrl: string | null,
  logger: Logger,
  options: { migrate: boolean; statementTimeoutMs?: number; preparedStatements?: boolean; onWaiting?: (reason: string) => void },
): Promise<OpenedDatabase> {
  const { url, embedded } = databaseUrl ? { url: databaseUrl, embedded: null } : await embeddedDatabase(logger);
  const db = createDb(url, {
    ...(options.statementTimeoutMs !== undefined ? { statementTimeoutMs: options.statementTimeoutMs } : {}),
    ...(options.preparedStatements !== undefined ? { preparedStatements: options.preparedStatements } : {}),
    logger: { warn: (message) => logger.warn({ knex: message }, 'database warning'), error: (message) => logger.error({ knex: message }, 'database error') },
  });
  if (options.migrate) {
    await waitForDatabase(db, url, logger, 10_000, options.onWaiting);
    options.onWaiting?.('migrating the database');
    const applied = await migrateLatest(db);
    logger.info({ applied }, applied.length ? 'database migrated' : 'database schema is current');
  }
  return {
    db,
    embedded,
    async close() {
      await db.destroy();
      await embedded?.stop();
    },
  };
}

/**
 * DATABASE_URL unset: the embedded server another process of ours already runs
 * on `.data/` (the service, while the CLI or a migration runs), or a new one.
 * Loaded only here: embedded-postgres is a development dependency, absent from
 * the production image.
 */
async function embeddedDatabase(logger: Logger): Promise<{ url: string; embedded: EmbeddedDatabase | null }> {
  const { runningEmbeddedDatabaseUrl, startEmbeddedDatabase } = await import('./embedded.ts');
  const running = await runningEmbeddedDatabaseUrl(EMBEDDED_DATA_DIR, EMBEDDED_PORT, EMBEDDED_DATABASE);
  if (running) {
    logger.info({ port: EMBEDDED_PORT }, 'DATABASE_URL is unset: using the embedded PostgreSQL another process of ours runs');
    return { url: running, embedded: null };
  }
  logger.info({ dataDir: EMBEDDED_DATA_DIR, port: EMBEDDED_PORT }, 'DATABASE_URL is unset: starting embedded PostgreSQL');
  const embedded = await startEmbeddedDatabase({
    dataDir: EMBEDDED_DATA_DIR,
    port: EMBEDDED_PORT,
    persistent: true,
    onLog: (message) => logger.debug({ postgres: message.trim() }, 'embedded postgres'),
  });
  await ensureDatabase(embedded.adminUrl, EMBEDDED_DATABASE);
  logger.info({ port: EMBEDDED_PORT }, 'embedded PostgreSQL is up');
  return { url: embedded.urlFor(EMBEDDED_DATABASE), embedded };
}

/** CREATE DATABASE has no IF NOT EXISTS; ask first. */
export async function ensureDatabase(adminUrl: string, name: string): Promise<void> {
  const admin = createDb(adminUrl, { poolMax: 1 });
  try {
    const { rows } = await admin.raw<{ rows: unknown[] }>('SELECT 1 FROM pg_database WHERE datname = ?', [name]);
    if (rows.length === 0) await admin.raw(`CREATE DATABASE ${admin.client.wrapIdentifier(name)}`);
  } finally {
    await admin.destroy();
  }
}

/**
 * Before migrating at boot: a database that is not up yet (still starting, or started after
 * us by a compose file) is waited for with a clear line per attempt, instead of a stack trace
 * and an exit; a production instance, which does not migrate at boot, starts anyway and
 * answers readiness 503 until the pool reaches it. Anything but unavailability (a wrong
 * password, a missing database) still fails at once: waiting would not fix it.
 */
export async function waitForDatabase(db: Db, url: string, logger: Logger, maxDelayMs = 10_000, onWaiting?: (reason: string) => void): Promise<void> {
  const { hostname, port } = new URL(url);
  for (let attempt = 1; ; attempt++) {
    try {
      await db.raw('SELECT 1');
      if (attempt > 1) logger.info({ host: hostname, port }, 'PostgreSQL answers now');
      return;
    } catch (error) {
      if (!isDatabaseUnavailable(error)) throw error;
      const delayMs = Math.min(maxDelayMs, 500 * 2 ** (attempt - 1));
      const reason = (error as { code?: string }).code ?? (error as Error).message;
      onWaiting?.(`waiting for PostgreSQL (${reason})`);
      logger.warn({ host: hostname, port, reason, retryInMs: delayMs }, 'PostgreSQL is not answering yet; waiting for it (Ctrl-C to stop)');
      await new Promise((resolve) => setTimeout(resolve, delayMs));
    }
  }
}
