// The benchmark's settings (environment), constants and the types its phases share.
import type http from 'node:http';
import type https from 'node:https';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ChildProcess } from 'node:child_process';
import type pg from 'pg';
import type { parseKeyRing } from '../../src/security/crypto.ts';
import type { SeedTarget } from './seed.ts';
import type { ServerSettings } from './protocol.ts';

/** The measured servers: the bare floor, the gateway of this checkout, and with `--compare` the gateway built from the given ref (compare.ts). */
export type Side = 'bare' | 'gateway' | 'base';
export type Endpoint = 'start' | 'exchange' | 'callback' | 'login';
export const ENDPOINTS: Endpoint[] = ['start', 'exchange', 'callback', 'login'];

export const HERE = path.dirname(fileURLToPath(import.meta.url));
export const ROOT = path.resolve(HERE, '../..');
export const RESULTS_DIR = path.join(ROOT, 'bench-results');

export function numberFromEnv(name: string, fallback: number, min: number, max: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < min || value > max) throw new Error(`${name}=${raw}: expected a number from ${min} to ${max}`);
  return value;
}

export const SETTINGS = {
  durationSeconds: numberFromEnv('BENCH_DURATION', 10, 1, 600),
  warmupSeconds: numberFromEnv('BENCH_WARMUP', 2, 1, 60),
  connections: numberFromEnv('BENCH_CONNECTIONS', 32, 1, 1024),
  rounds: numberFromEnv('BENCH_ROUNDS', 3, 1, 20),
  poolSize: numberFromEnv('BENCH_POOL', 10, 1, 100),
  logLevel: process.env.BENCH_LOG_LEVEL ?? 'info',
  gatewayLayer: (process.env.BENCH_GATEWAY_LAYER ?? 'app') as ServerSettings['gatewayLayer'],
  target: numberFromEnv('BENCH_TARGET', 0.7, 0, 10),
  endpoints: (process.env.BENCH_ENDPOINTS ?? ENDPOINTS.join(',')).split(',').map((name) => name.trim()) as Endpoint[],
  users: numberFromEnv('BENCH_USERS', 8, 1, 256),
  callbacks: numberFromEnv('BENCH_CALLBACKS', 2000, 50, 1_000_000),
  memoryLogins: numberFromEnv('BENCH_MEMORY_LOGINS', 0, 0, 10_000_000),
  memorySample: numberFromEnv('BENCH_MEMORY_SAMPLE', 0, 0, 10_000_000),
  memorySampleGc: process.env.BENCH_MEMORY_SAMPLE_GC !== 'false',
  // Memory logins before the warm reading: RSS climbs to its plateau over the first thousands of
  // logins (docs/benchmarks.md, "Memory along one run"), so a reading before that is not "warm".
  memoryWarmup: numberFromEnv('BENCH_MEMORY_WARMUP', 10_000, 0, 10_000_000),
  preparedStatements: (process.env.BENCH_PREPARED ?? 'true') !== 'false',
  eoc: (process.env.BENCH_EOC ?? 'true') !== 'false',
  cpuProfile: (process.env.BENCH_CPU_PROF ?? '') as '' | Side | 'both',
};
for (const endpoint of SETTINGS.endpoints) {
  if (!ENDPOINTS.includes(endpoint)) throw new Error(`BENCH_ENDPOINTS: unknown endpoint ${endpoint} (${ENDPOINTS.join(', ')})`);
}
if (!['', 'gateway', 'bare', 'both'].includes(SETTINGS.cpuProfile)) throw new Error('BENCH_CPU_PROF: gateway, bare or both');
if (!['app', 'operations'].includes(SETTINGS.gatewayLayer)) throw new Error('BENCH_GATEWAY_LAYER: app or operations');

/** Measured runs may not see more than this share of unexpected answers or connection errors. */
export const MAX_BAD_SHARE = 0.001;
/** Handoff codes seeded per run: the fastest exchange rate seen so far x duration x this margin. */
export const SEED_MARGIN = 1.6;
/** A round in which other processes used more of the machine than this is reported as disturbed. */
export const DISTURBED_SHARE = 0.05;
/** Before the first exchange run has been measured: codes per second of run. */
export const INITIAL_SEED_RATE = 8000;

export const PLATFORM_KEY = 'BENCH';
export const PLATFORM_ROOT = 'https://platform.bench.test/';
export const RETURN_TO = `${PLATFORM_ROOT}home`;
export const CALLBACK_URL = 'https://gateway.bench.test/v1/auth/callback';
export const SCOPES = ['openid', 'profile', 'email'];
export const ENDPOINT_LABEL: Record<Endpoint, string> = {
  start: 'GET /v1/auth/start',
  exchange: 'POST /v1/auth/exchange',
  callback: 'GET /v1/auth/callback',
  login: 'whole login (4 requests)',
};
export const EXPECTED_STATUS: Record<Endpoint, number> = { start: 302, exchange: 200, callback: 302, login: 200 };
export const PROVIDER_SUB = 'bench-user';
/**
 * The platform requires a handoff challenge (the registry's default, as in production): every
 * whole login has a verifier of its own (browser.ts); the start and exchange rounds under
 * autocannon send this one, and the seeded handoffs (seed.ts) carry its challenge.
 */
export const HANDOFF_VERIFIER = 'bench-handoff-verifier-0123456789abcdefghijklmnopqrstuvwxyz';

export const began = Date.now();
export const progress = (message: string) => process.stderr.write(`[bench ${((Date.now() - began) / 1000).toFixed(1).padStart(5)}s] ${message}\n`);

export interface Server {
  side: Side | 'provider' | 'eoc';
  child: ChildProcess;
  baseUrl: string;
}

export interface RunRecord {
  endpoint: Endpoint;
  side: Side;
  phase: 'warmup' | 'measured';
  round: number;
  durationSeconds: number;
  expectedStatus: number;
  expected: number;
  responses: number;
  unexpected: number;
  statusCodes: Record<string, number>;
  errors: number;
  timeouts: number;
  requestsPerSecond: number;
  latencyMs: { p50: number; p90: number; p99: number; mean: number; max: number };
  /** Rows the run changed in PostgreSQL (new pending transactions, or consumed handoff codes). */
  rowsChanged: number;
  seeded: number | null;
  /** Share of the machine's CPU that other processes (or other guests of the hypervisor) took during the run (null where /proc is missing). */
  foreignCpu: number | null;
  /** CPU time per answered request, in microseconds: the measured server, and PostgreSQL. */
  cpuPerRequestUs: { server: number; postgres: number; loadGenerator: number; provider: number } | null;
  /**
   * The server's garbage collection per answer: main-thread pause time (µs), and how many
   * scavenges and full collections (fractions: one every 1/x answers). Pauses are not all of
   * the collector's CPU (helper threads), which the server's CPU time includes.
   */
  gcPerRequest: { pauseUs: number; minor: number; major: number } | null;
  valid: boolean;
  problems: string[];
}

export interface Context {
  /** `base` only with `--compare`. */
  servers: Record<Side, Server>;
  client: pg.Client;
  keyRing: ReturnType<typeof parseKeyRing>;
  seedTarget: SeedTarget;
  platform: { clientId: string; clientSecret: string };
  authorizationEndpoint: string;
  fastestExchange: number;
  /** Keep-alive HTTP agents of the flow runs (callback, login), one per server and one for the provider. */
  agents: Record<Side | 'eoc', http.Agent> & { provider: https.Agent };
  /** express-openid-connect's login server (BENCH_EOC). */
  eoc: Server | null;
  /** Callbacks the gateway has answered (callback and login runs), for the memory report. */
  gatewayLogins: number;
}
