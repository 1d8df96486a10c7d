// What the benchmark driver (run.ts) and its two server processes (gateway.ts,
// bare.ts) tell each other over the fork() IPC channel.

import { Session } from 'node:inspector/promises';
import { writeFile } from 'node:fs/promises';
import { constants, PerformanceObserver } from 'node:perf_hooks';

/** Settings handed to a server process in the BENCH_SERVER_SETTINGS environment variable (JSON). */
export interface ServerSettings {
  databaseUrl: string;
  /** Pool size of the server's connection pool (the gateway's knex pool default is 10). */
  poolSize: number;
  /** The gateway's LOG_LEVEL (info in production: one access line per request). */
  logLevel: string;
  /** BENCH_GATEWAY_LAYER: `app` (the whole app) or `operations` (the login operations without the HTTP layer, operationsOnly.ts). */
  gatewayLayer: 'app' | 'operations';
  /** The dev IdP's issuer (discovery happens once, inside the server). */
  issuer: string;
  oidcClientId: string;
  oidcClientSecret: string;
  /** ENCRYPTION_KEYS of the run: both servers seal and open with the same key ring. */
  encryptionKeys: string;
  /** GATEWAY_SIGNING_KEYS of the run (required with NODE_ENV=production). */
  gatewaySigningKeys: string;
  publicBaseUrl: string;
  accountCenterUrl: string;
  /** AUTH_CALLBACK_URL: the redirect_uri of the authorize URL. */
  callbackUrl: string;
  scopes: string[];
  /** DATABASE_PREPARED_STATEMENTS of the run (BENCH_PREPARED): both servers name their statements, or neither. */
  preparedStatements: boolean;
}

/**
 * The rate limits of both servers (RATE_LIMIT_*): all of the benchmark's browsers share one
 * address, so the per-address limits are at their highest; still counted in PostgreSQL on
 * every start and callback by both servers' statements (the exchange has no limit).
 */
export const BENCH_RATE_LIMITS = {
  RATE_LIMIT_START_PER_MINUTE: '100000',
  RATE_LIMIT_CALLBACK_PER_MINUTE: '100000',
} as const;

export type ServerMessage =
  | { type: 'ready'; port: number }
  | { type: 'failed'; message: string }
  | { type: 'profile-started' }
  | { type: 'profile-written'; file: string }
  | { type: 'memory'; rss: number; heapUsed: number; heapTotal: number; external: number; arrayBuffers: number; afterGc: boolean }
  | { type: 'gc'; totals: GcTotals };
/** `profile-start`/`profile-stop` bracket one measured run when BENCH_CPU_PROF names this server. */
export type DriverMessage = { type: 'stop' } | { type: 'profile-start' } | { type: 'profile-stop'; file: string } | { type: 'memory'; gc?: boolean } | { type: 'gc' };

/**
 * The garbage collector's pauses of the main thread since the server started (perf_hooks `gc`
 * entries): young-generation scavenges, full mark-compacts, and the incremental marking steps.
 * The collector's helper threads are not in it (their CPU is in the process's CPU time).
 */
export interface GcTotals {
  minor: { count: number; ms: number };
  major: { count: number; ms: number };
  incremental: { count: number; ms: number };
}

export function readSettings(): ServerSettings {
  const raw = process.env.BENCH_SERVER_SETTINGS;
  if (!raw) throw new Error('BENCH_SERVER_SETTINGS is not set: this script is started by scripts/bench/run.ts');
  return JSON.parse(raw) as ServerSettings;
}

/**
 * BENCH_HEAP_PROF=1 (with BENCH_CPU_PROF): beside each CPU profile, V8's sampling heap profile
 * of the same window with every allocation, also those the young-generation and full
 * collections have freed since (what makes the garbage collector work), as `.heapprofile`.
 */
const heapProfile = process.env.BENCH_HEAP_PROF === '1';

/**
 * Reports the listening port to the driver, records V8 CPU profiles of the
 * measured runs when asked (inspector Profiler: only the run's window, not the
 * boot), and stops cleanly when told to.
 */
export function serveUntilStopped(port: number, close: () => Promise<void>): void {
  const gcTotals = observeGc();
  process.send?.({ type: 'ready', port } satisfies ServerMessage);
  let session: Session | undefined;
  process.on('message', (message: DriverMessage) => {
    if (message.type === 'profile-start') {
      void (async () => {
        session = new Session();
        session.connect();
        await session.post('Profiler.enable');
        await session.post('Profiler.start');
        if (heapProfile) {
          await session.post('HeapProfiler.enable');
          await session.post('HeapProfiler.startSampling', { samplingInterval: 8192, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
        }
        process.send?.({ type: 'profile-started' } satisfies ServerMessage);
      })();
    } else if (message.type === 'profile-stop') {
      void (async () => {
        if (!session) return;
        const { profile } = await session.post('Profiler.stop');
        if (heapProfile) {
          const { profile: heap } = await session.post('HeapProfiler.stopSampling');
          await writeFile(message.file.replace(/\.cpuprofile$/, '.heapprofile'), JSON.stringify(heap));
        }
        session.disconnect();
        session = undefined;
        await writeFile(message.file, JSON.stringify(profile));
        process.send?.({ type: 'profile-written', file: message.file } satisfies ServerMessage);
      })();
    } else if (message.type === 'memory') {
      // After a full collection when the driver started us with --expose-gc: what is still
      // referenced, apart from what the heap merely has not given back yet.
      // gc: false samples the memory as it is (what a full collection would free included).
      const gc = message.gc === false ? undefined : (globalThis as { gc?: () => void }).gc;
      gc?.();
      const usage = process.memoryUsage();
      process.send?.({ type: 'memory', rss: usage.rss, heapUsed: usage.heapUsed, heapTotal: usage.heapTotal, external: usage.external, arrayBuffers: usage.arrayBuffers, afterGc: gc !== undefined } satisfies ServerMessage);
    } else if (message.type === 'gc') {
      process.send?.({ type: 'gc', totals: gcTotals } satisfies ServerMessage);
    } else if (message.type === 'stop') {
      close().then(
        () => process.exit(0),
        () => process.exit(1),
      );
    }
  });
  // The driver went away without saying stop (crash, Ctrl-C): do not linger.
  process.on('disconnect', () => process.exit(0));
}

function observeGc(): GcTotals {
  const totals: GcTotals = { minor: { count: 0, ms: 0 }, major: { count: 0, ms: 0 }, incremental: { count: 0, ms: 0 } };
  const kinds = new Map<number, keyof GcTotals>([
    [constants.NODE_PERFORMANCE_GC_MINOR, 'minor'],
    [constants.NODE_PERFORMANCE_GC_MAJOR, 'major'],
    [constants.NODE_PERFORMANCE_GC_INCREMENTAL, 'incremental'],
  ]);
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = kinds.get((entry as { detail?: { kind?: number } }).detail?.kind ?? -1);
      if (!kind) continue;
      totals[kind].count++;
      totals[kind].ms += entry.duration;
    }
  }).observe({ entryTypes: ['gc'] });
  return totals;
}

export function reportFailure(error: unknown): never {
  const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
  process.send?.({ type: 'failed', message } satisfies ServerMessage);
  process.stderr.write(`${message}\n`);
  process.exit(1);
}
