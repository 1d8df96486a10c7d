// `npm run bench`: GET /v1/auth/start and POST /v1/auth/exchange of the real
// gateway against a bare node:http + pg server doing the same SQL, measured in
// the same run with autocannon. Prints req/s, p50 and p99 of both and their
// ratio, writes bench-results/latest.json, and exits 1 when a gateway endpoint
// is below BENCH_TARGET (0.7) of its bare baseline. Method: docs/benchmarks.md.
//
// Self-contained: an embedded PostgreSQL in a temporary folder, the dev IdP
// in-process (the gateway discovers it once, during warm-up), a platform created
// through the registry service, and the two servers as child processes. The
// load generator stays in this process: in-process servers would share their
// event loop with autocannon.
//
// Knobs (environment): BENCH_DURATION (s, 10), BENCH_WARMUP (s, 2),
// BENCH_CONNECTIONS (32), BENCH_ROUNDS (3), BENCH_POOL (10), BENCH_TARGET (0.7),
// BENCH_ENDPOINTS (start,exchange), BENCH_LOG_LEVEL (the gateway's LOG_LEVEL, info),
// BENCH_CPU_PROF (gateway|bare|both: write V8 CPU profiles to
// bench-results/profiles; the numbers of such a run are not representative).

import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import pg from 'pg';
import { startEmbeddedDatabase, type EmbeddedDatabase } from '../../src/db/embedded.ts';
import { createDb, migrateLatest, type Db } from '../../src/db/knex.ts';
import { startDevIdp, type DevIdp } from '../../src/devidp/index.ts';
import { createPlatform, CLI_ACTOR } from '../../src/services/platformRegistry.ts';
import { findPlatformByKey } from '../../src/db/repositories/platforms.ts';
import { upsertUserFromIdp } from '../../src/db/repositories/users.ts';
import { generateKeyRingSpec, parseKeyRing } from '../../src/security/crypto.ts';
import { seedHandoffs, type HandoffBatch, type SeedTarget } from './seed.ts';
import type { DriverMessage, ServerMessage, ServerSettings } from './protocol.ts';

type Side = 'bare' | 'gateway';
type Endpoint = 'start' | 'exchange';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '../..');
const RESULTS_DIR = path.join(ROOT, 'bench-results');

function numberFromEnv(name: string, fallback: number, min: number, max: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < min || value > max) throw new Error(`${name}=${raw}: expected a number from ${min} to ${max}`);
  return value;
}

const SETTINGS = {
  durationSeconds: numberFromEnv('BENCH_DURATION', 10, 1, 600),
  warmupSeconds: numberFromEnv('BENCH_WARMUP', 2, 1, 60),
  connections: numberFromEnv('BENCH_CONNECTIONS', 32, 1, 1024),
  rounds: numberFromEnv('BENCH_ROUNDS', 3, 1, 20),
  poolSize: numberFromEnv('BENCH_POOL', 10, 1, 100),
  logLevel: process.env.BENCH_LOG_LEVEL ?? 'info',
  target: numberFromEnv('BENCH_TARGET', 0.7, 0, 10),
  endpoints: (process.env.BENCH_ENDPOINTS ?? 'start,exchange').split(',').map((name) => name.trim()) as Endpoint[],
  cpuProfile: (process.env.BENCH_CPU_PROF ?? '') as '' | Side | 'both',
};
for (const endpoint of SETTINGS.endpoints) {
  if (endpoint !== 'start' && endpoint !== 'exchange') throw new Error(`BENCH_ENDPOINTS: unknown endpoint ${endpoint} (start, exchange)`);
}
if (!['', 'gateway', 'bare', 'both'].includes(SETTINGS.cpuProfile)) throw new Error('BENCH_CPU_PROF: gateway, bare or both');

/** Measured runs may not see more than this share of unexpected answers or connection errors. */
const MAX_BAD_SHARE = 0.001;
/** Handoff codes seeded per run: the fastest exchange rate seen so far x duration x this margin. */
const SEED_MARGIN = 1.6;
/** A round in which other processes used more of the machine than this is reported as disturbed. */
const DISTURBED_SHARE = 0.05;
/** Before the first exchange run has been measured: codes per second of run. */
const INITIAL_SEED_RATE = 8000;

const PLATFORM_KEY = 'BENCH';
const PLATFORM_ROOT = 'https://platform.bench.test/';
const RETURN_TO = `${PLATFORM_ROOT}home`;
const CALLBACK_URL = 'https://gateway.bench.test/v1/auth/callback';
const SCOPES = ['openid', 'profile', 'email'];
const ENDPOINT_LABEL: Record<Endpoint, string> = { start: 'GET /v1/auth/start', exchange: 'POST /v1/auth/exchange' };
const EXPECTED_STATUS: Record<Endpoint, number> = { start: 302, exchange: 200 };

const began = Date.now();
const progress = (message: string) => process.stderr.write(`[bench ${((Date.now() - began) / 1000).toFixed(1).padStart(5)}s] ${message}\n`);

interface Server {
  side: Side;
  child: ChildProcess;
  baseUrl: string;
}

interface RunRecord {
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
  cpuPerRequestUs: { server: number; postgres: number; loadGenerator: number } | null;
  valid: boolean;
  problems: string[];
}

interface Context {
  servers: Record<Side, Server>;
  client: pg.Client;
  keyRing: ReturnType<typeof parseKeyRing>;
  seedTarget: SeedTarget;
  platform: { clientId: string; clientSecret: string };
  authorizationEndpoint: string;
  fastestExchange: number;
}

// ---------------------------------------------------------------- set-up

async function startServer(side: Side, settings: ServerSettings): Promise<Server> {
  const child = fork(path.join(HERE, `${side}.ts`), [], {
    execArgv: [],
    env: { ...process.env, BENCH_SERVER_SETTINGS: JSON.stringify(settings) },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (message: ServerMessage) => {
      if (message.type === 'ready') resolve(message.port);
      else if (message.type === 'failed') reject(new Error(`${side} server failed to start: ${message.message}`));
    });
    child.once('exit', (code) => reject(new Error(`${side} server exited with code ${code} before it was ready`)));
  });
  return { side, child, baseUrl: `http://127.0.0.1:${port}` };
}

/** Sends a message to a server process and waits for its answer of the given type. */
function ask(server: Server, message: DriverMessage, answer: ServerMessage['type']): Promise<void> {
  return new Promise((resolve) => {
    const listener = (reply: ServerMessage) => {
      if (reply.type !== answer) return;
      server.child.off('message', listener);
      resolve();
    };
    server.child.on('message', listener);
    server.child.send(message);
  });
}

const profiled = (side: Side) => SETTINGS.cpuProfile === side || SETTINGS.cpuProfile === 'both';

async function stopServer(server: Server): Promise<void> {
  if (server.child.exitCode !== null || server.child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => server.child.once('exit', () => resolve()));
  server.child.send({ type: 'stop' });
  const timer = setTimeout(() => server.child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

// ---------------------------------------------------------------- checks before measuring

const startUrl = (server: Server) =>
  `${server.baseUrl}/v1/auth/start?${new URLSearchParams({ platformKey: PLATFORM_KEY, returnTo: RETURN_TO })}`;

const basic = (clientId: string, secret: string) => `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`;

async function postExchange(server: Server, authorization: string, code: string): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${server.baseUrl}/v1/auth/exchange`, {
    method: 'POST',
    headers: { authorization, 'content-type': 'application/json' },
    body: JSON.stringify({ code }),
  });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as unknown) : null };
}

/** The shape of a JSON value: key names and value types, recursively. */
function shape(value: unknown): unknown {
  if (Array.isArray(value)) return value.length ? [shape(value[0])] : [];
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.keys(value).sort().map((key) => [key, shape((value as Record<string, unknown>)[key])]));
  }
  return value === null ? 'null' : typeof value;
}

/**
 * Both servers must answer alike before their speed is compared: the same
 * authorize URL parameters, the same exchange body for a known code, 404 on a
 * second use and 401 on a wrong secret. The gateway's first start also runs
 * OIDC discovery, so none of that lands in a measurement.
 */
async function checkEquivalence(ctx: Context): Promise<void> {
  const authorizeParams: Record<Side, string[]> = { bare: [], gateway: [] };
  for (const side of ['bare', 'gateway'] as const) {
    const response = await fetch(startUrl(ctx.servers[side]), { redirect: 'manual' });
    const location = response.headers.get('location') ?? '';
    if (response.status !== 302 || !location.startsWith(`${ctx.authorizationEndpoint}?`)) {
      throw new Error(`${side}: start answered ${response.status} ${location || (await response.text())}`);
    }
    authorizeParams[side] = [...new URL(location).searchParams.keys()].sort();
  }
  if (authorizeParams.bare.join() !== authorizeParams.gateway.join()) {
    throw new Error(`the authorize URLs differ: bare ${authorizeParams.bare.join()} vs gateway ${authorizeParams.gateway.join()}`);
  }

  const batch = await seedHandoffs(ctx.client, ctx.seedTarget, 2);
  const authorization = basic(ctx.platform.clientId, ctx.platform.clientSecret);
  const bodies: unknown[] = [];
  for (const [index, side] of (['bare', 'gateway'] as const).entries()) {
    const server = ctx.servers[side];
    const first = await postExchange(server, authorization, batch.codes[index]!);
    const session = (first.body as { session?: { id?: string; gatewayToken?: string } } | null)?.session;
    if (first.status !== 200 || session?.id !== batch.sessionIds[index] || !session?.gatewayToken?.startsWith('gwp_')) throw new Error(`${side}: exchange answered ${first.status} ${JSON.stringify(first.body)}`);
    bodies.push(first.body);
    const again = await postExchange(server, authorization, batch.codes[index]!);
    if (again.status !== 404) throw new Error(`${side}: a second exchange of one code answered ${again.status}, expected 404`);
    const wrongSecret = await postExchange(server, basic(ctx.platform.clientId, 'pcs_wrong'), batch.codes[index]!);
    if (wrongSecret.status !== 401) throw new Error(`${side}: a wrong secret answered ${wrongSecret.status}, expected 401`);
  }
  if (JSON.stringify(shape(bodies[0])) !== JSON.stringify(shape(bodies[1]))) {
    throw new Error(`the exchange bodies differ in shape: bare ${JSON.stringify(shape(bodies[0]))} vs gateway ${JSON.stringify(shape(bodies[1]))}`);
  }
}

// ---------------------------------------------------------------- CPU accounting (Linux)
// From /proc, around every run: the CPU time of each of the benchmark's own
// processes (this driver with autocannon, the two servers, PostgreSQL and its
// backends), and of everything else on the machine. The servers' CPU time per
// answered request is a second measure of their cost that other load on a
// shared machine disturbs less than throughput does; the time of the other
// processes (and the hypervisor's steal time) says how disturbed a run was.

type CpuGroup = 'driver' | Side | 'postgres';

interface CpuSample {
  /** All CPUs, in clock ticks: time charged to processes, and all time. */
  busy: number;
  total: number;
  /** Time the hypervisor gave this machine's CPUs to someone else. */
  steal: number;
  /** Ticks of each of the benchmark's own processes, with the group it belongs to. */
  ours: Map<number, { group: CpuGroup; ticks: number }>;
}

interface CpuUse {
  /** Share of all CPUs' time used by processes outside the benchmark, or stolen by the hypervisor. */
  foreignShare: number;
  /** Milliseconds of CPU per group. */
  ms: Record<CpuGroup, number>;
}

const TICKS_PER_SECOND = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** The server processes, once started (their descendants belong to them). */
const serverPids = new Map<number, Side>();

async function processTicks(pid: number): Promise<{ ppid: number; ticks: number } | null> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    // Fields after the parenthesised command name: state ppid … utime(14) stime(15), all threads.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { ppid: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]) };
  } catch {
    return null;
  }
}

async function sampleCpu(): Promise<CpuSample | null> {
  try {
    const line = (await readFile('/proc/stat', 'utf8')).split('\n')[0]!;
    const [user, nice, system, idle, iowait, irq, softirq, steal] = line.trim().split(/\s+/).slice(1).map(Number) as number[];
    // Time charged to processes. Interrupt time is left out: most of it is the
    // loopback TCP traffic of the benchmark itself, which no process is charged for.
    const busy = user! + nice! + system!;
    const children = new Map<number, number[]>();
    const ticks = new Map<number, number>();
    for (const entry of await readdir('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      const info = await processTicks(Number(entry));
      if (!info) continue;
      ticks.set(Number(entry), info.ticks);
      children.set(info.ppid, [...(children.get(info.ppid) ?? []), Number(entry)]);
    }
    // This driver and everything it started: the servers, PostgreSQL and its backends.
    const ours: CpuSample['ours'] = new Map();
    const queue: [number, CpuGroup][] = [[process.pid, 'driver']];
    while (queue.length > 0) {
      const [pid, inherited] = queue.pop()!;
      const group: CpuGroup = pid === process.pid ? 'driver' : (serverPids.get(pid) ?? (inherited === 'driver' ? 'postgres' : inherited));
      ours.set(pid, { group, ticks: ticks.get(pid) ?? 0 });
      for (const child of children.get(pid) ?? []) queue.push([child, group]);
    }
    return { busy, total: busy + idle! + iowait! + irq! + softirq! + steal!, steal: steal!, ours };
  } catch {
    return null; // not Linux
  }
}

/**
 * CPU use between two samples. Per process, so that one of ours exiting in
 * between (an idle pool connection closed) does not look like someone else's work.
 */
function cpuUse(before: CpuSample | null, after: CpuSample | null): CpuUse | null {
  if (!before || !after || after.total <= before.total) return null;
  const ticks: Record<CpuGroup, number> = { driver: 0, bare: 0, gateway: 0, postgres: 0 };
  for (const [pid, { group, ticks: now }] of after.ours) ticks[group] += now - (before.ours.get(pid)?.ticks ?? 0);
  const oursTotal = Object.values(ticks).reduce((sum, t) => sum + t, 0);
  const toMs = (t: number) => (1000 * t) / TICKS_PER_SECOND;
  return {
    foreignShare: Math.max(0, (after.busy - before.busy - oursTotal + after.steal - before.steal) / (after.total - before.total)),
    ms: { driver: toMs(ticks.driver), bare: toMs(ticks.bare), gateway: toMs(ticks.gateway), postgres: toMs(ticks.postgres) },
  };
}

// ---------------------------------------------------------------- one run

/** The same starting point for every run: no autovacuum or checkpoint debt from the previous one. */
async function settleDatabase(client: pg.Client): Promise<void> {
  await client.query('VACUUM (ANALYZE) auth_transactions, gateway_sessions, handoff_codes');
  await client.query('CHECKPOINT');
}

async function rowsMarker(client: pg.Client, endpoint: Endpoint): Promise<number> {
  const sql = endpoint === 'start'
    ? 'SELECT count(*)::int AS n FROM auth_transactions WHERE consumed_at IS NULL'
    : 'SELECT count(*)::int AS n FROM handoff_codes WHERE consumed_at IS NOT NULL';
  const { rows } = await client.query<{ n: number }>(sql);
  return rows[0]!.n;
}

async function runOnce(ctx: Context, endpoint: Endpoint, side: Side, phase: RunRecord['phase'], round: number): Promise<RunRecord> {
  const server = ctx.servers[side];
  const seconds = phase === 'warmup' ? SETTINGS.warmupSeconds : SETTINGS.durationSeconds;
  let batch: HandoffBatch | null = null;
  if (endpoint === 'exchange') {
    const rate = ctx.fastestExchange > 0 ? ctx.fastestExchange : INITIAL_SEED_RATE;
    const count = Math.ceil((rate * seconds * SEED_MARGIN) / 1000) * 1000;
    const seeding = Date.now();
    batch = await seedHandoffs(ctx.client, ctx.seedTarget, count);
    progress(`  seeded ${count} handoff codes for ${side} in ${((Date.now() - seeding) / 1000).toFixed(1)} s`);
  }
  await settleDatabase(ctx.client);
  const before = await rowsMarker(ctx.client, endpoint);

  let next = 0;
  let exhausted = 0;
  const codes = batch?.codes ?? [];
  const options: autocannon.Options =
    endpoint === 'start'
      ? { url: startUrl(server), connections: SETTINGS.connections, duration: seconds }
      : {
          url: server.baseUrl,
          connections: SETTINGS.connections,
          duration: seconds,
          headers: { authorization: basic(ctx.platform.clientId, ctx.platform.clientSecret), 'content-type': 'application/json' },
          requests: [
            {
              method: 'POST',
              path: '/v1/auth/exchange',
              setupRequest: (request) => {
                const code = codes[next++];
                if (code === undefined) exhausted++;
                // An exhausted batch sends an unknown code: its 404 makes the run invalid.
                return { ...request, body: JSON.stringify({ code: code ?? `handoff_exhausted_${next}` }) };
              },
            },
          ],
        };
  progress(`${phase === 'warmup' ? 'warm-up ' : `round ${round}  `} ${ENDPOINT_LABEL[endpoint]} on ${side} for ${seconds} s`);
  const profile = phase === 'measured' && profiled(side);
  if (profile) await ask(server, { type: 'profile-start' }, 'profile-started');
  const cpuBefore = await sampleCpu();
  const result = await autocannon(options);
  const cpuAfter = await sampleCpu();
  if (profile) {
    const dir = path.join(RESULTS_DIR, 'profiles');
    await mkdir(dir, { recursive: true });
    const file = path.join(dir, `${side}-${endpoint}-round${round}.cpuprofile`);
    await ask(server, { type: 'profile-stop', file }, 'profile-written');
    progress(`  CPU profile: ${path.relative(ROOT, file)}`);
  }
  await new Promise((resolve) => setTimeout(resolve, 300)); // requests still in flight when autocannon stopped
  const rowsChanged = (await rowsMarker(ctx.client, endpoint)) - before;
  const cpu = cpuUse(cpuBefore, cpuAfter);

  const statusCodes: Record<string, number> = {};
  for (const [status, stat] of Object.entries(result.statusCodeStats ?? {})) statusCodes[status] = (stat as { count: number }).count;
  const responses = Object.values(statusCodes).reduce((sum, count) => sum + count, 0);
  const expectedStatus = EXPECTED_STATUS[endpoint];
  const expected = statusCodes[String(expectedStatus)] ?? 0;
  const unexpected = responses - expected;
  const requestsPerSecond = expected / result.duration;
  const problems: string[] = [];
  if (responses === 0) problems.push('no responses');
  if (unexpected > responses * MAX_BAD_SHARE) problems.push(`${unexpected} of ${responses} responses were not ${expectedStatus}: ${JSON.stringify(statusCodes)}`);
  if (result.errors > responses * MAX_BAD_SHARE) problems.push(`${result.errors} connection errors (${result.timeouts} timeouts)`);
  if (exhausted > 0) problems.push(`the ${codes.length} seeded handoff codes ran out (${exhausted} requests without one)`);
  // Every answered request did its database work; requests cut off at the end may add a few rows.
  if (rowsChanged < expected || rowsChanged > expected + SETTINGS.connections) {
    problems.push(`${rowsChanged} rows changed in PostgreSQL for ${expected} ${expectedStatus} answers`);
  }
  if (endpoint === 'exchange') ctx.fastestExchange = Math.max(ctx.fastestExchange, requestsPerSecond);
  const record: RunRecord = {
    endpoint,
    side,
    phase,
    round,
    durationSeconds: result.duration,
    expectedStatus,
    expected,
    responses,
    unexpected,
    statusCodes,
    errors: result.errors,
    timeouts: result.timeouts,
    requestsPerSecond,
    latencyMs: { p50: result.latency.p50, p90: result.latency.p90, p99: result.latency.p99, mean: result.latency.average, max: result.latency.max },
    rowsChanged,
    seeded: batch ? batch.codes.length : null,
    foreignCpu: cpu ? cpu.foreignShare : null,
    cpuPerRequestUs: cpu && expected > 0
      ? { server: (1000 * cpu.ms[side]) / expected, postgres: (1000 * cpu.ms.postgres) / expected, loadGenerator: (1000 * cpu.ms.driver) / expected }
      : null,
    valid: problems.length === 0,
    problems,
  };
  progress(
    `  ${requestsPerSecond.toFixed(0)} req/s, p50 ${record.latencyMs.p50} ms, p99 ${record.latencyMs.p99} ms` +
      (record.cpuPerRequestUs ? `, CPU/req: server ${record.cpuPerRequestUs.server.toFixed(0)} µs, PostgreSQL ${record.cpuPerRequestUs.postgres.toFixed(0)} µs` : '') +
      (record.foreignCpu !== null ? `, others ${(100 * record.foreignCpu).toFixed(0)}% of the CPUs` : '') +
      (problems.length ? `; INVALID: ${problems.join('; ')}` : ''),
  );
  return record;
}

// ---------------------------------------------------------------- report

interface SideSummary {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  runs: number[];
  unexpected: number;
  errors: number;
  /** Highest share of the machine's CPU other processes used during one of the rounds. */
  foreignCpuMax: number | null;
  /** Mean over the rounds of CPU microseconds per answered request. */
  serverCpuUs: number | null;
  postgresCpuUs: number | null;
}

interface EndpointSummary {
  endpoint: Endpoint;
  label: string;
  bare: SideSummary;
  gateway: SideSummary;
  ratio: number;
  pass: boolean;
  valid: boolean;
}

function summarise(records: RunRecord[], endpoint: Endpoint, side: Side): SideSummary {
  const runs = records.filter((r) => r.endpoint === endpoint && r.side === side && r.phase === 'measured');
  const seconds = runs.reduce((sum, r) => sum + r.durationSeconds, 0);
  const mean = (values: number[]) => values.reduce((sum, v) => sum + v, 0) / values.length;
  return {
    // All answers of all rounds over all their seconds.
    requestsPerSecond: runs.reduce((sum, r) => sum + r.expected, 0) / seconds,
    // Percentiles are not additive: the mean of the rounds' percentiles.
    p50Ms: mean(runs.map((r) => r.latencyMs.p50)),
    p99Ms: mean(runs.map((r) => r.latencyMs.p99)),
    runs: runs.map((r) => r.requestsPerSecond),
    unexpected: runs.reduce((sum, r) => sum + r.unexpected, 0),
    errors: runs.reduce((sum, r) => sum + r.errors, 0),
    foreignCpuMax: runs.some((r) => r.foreignCpu === null) ? null : Math.max(...runs.map((r) => r.foreignCpu!)),
    serverCpuUs: runs.some((r) => !r.cpuPerRequestUs) ? null : mean(runs.map((r) => r.cpuPerRequestUs!.server)),
    postgresCpuUs: runs.some((r) => !r.cpuPerRequestUs) ? null : mean(runs.map((r) => r.cpuPerRequestUs!.postgres)),
  };
}

function table(summaries: EndpointSummary[]): string {
  const us = (value: number | null) => (value === null ? 'n/a' : value.toFixed(0));
  const rows: string[][] = [['endpoint', 'server', 'req/s', 'p50 ms', 'p99 ms', 'CPU µs/req', 'PG µs/req', 'bad', 'others', 'req/s per round']];
  for (const s of summaries) {
    for (const side of ['bare', 'gateway'] as const) {
      const x = s[side];
      rows.push([
        side === 'bare' ? s.label : '',
        side === 'bare' ? 'bare node:http + pg' : 'gateway (express app)',
        x.requestsPerSecond.toFixed(0),
        x.p50Ms.toFixed(1),
        x.p99Ms.toFixed(1),
        us(x.serverCpuUs),
        us(x.postgresCpuUs),
        String(x.unexpected + x.errors),
        x.foreignCpuMax === null ? 'n/a' : `${(100 * x.foreignCpuMax).toFixed(0)}%`,
        x.runs.map((r) => r.toFixed(0)).join(' / '),
      ]);
    }
    const cpuRatio = s.gateway.serverCpuUs !== null && s.bare.serverCpuUs ? `x${(s.gateway.serverCpuUs / s.bare.serverCpuUs).toFixed(2)}` : '';
    rows.push(['', 'ratio gateway/bare', s.ratio.toFixed(2), '', '', cpuRatio, '', '', '', `${s.valid ? (s.pass ? 'PASS' : 'FAIL') : 'INVALID'} (target req/s ratio >= ${SETTINGS.target.toFixed(2)})`]);
  }
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  const numeric = new Set([2, 3, 4, 5, 6, 7, 8]);
  const line = (row: string[]) => row.map((cell, column) => (numeric.has(column) ? cell.padStart(widths[column]!) : cell.padEnd(widths[column]!))).join('  ').trimEnd();
  return [line(rows[0]!), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.slice(1).map(line)].join('\n');
}

// ---------------------------------------------------------------- main

async function main(): Promise<number> {
  const nodeMajor = Number(process.versions.node.split('.')[0]);
  if (nodeMajor < 24) progress(`WARNING: Node ${process.version}; the project runs on Node 24 (run through npm so the pinned node is used)`);
  if (SETTINGS.cpuProfile) progress(`CPU profiling of ${SETTINGS.cpuProfile} is on: these numbers are not representative`);

  const cleanups: (() => Promise<unknown>)[] = [];
  const cleanup = async () => {
    for (const step of cleanups.reverse()) await step().catch((error: unknown) => progress(`cleanup: ${String(error)}`));
    cleanups.length = 0;
  };
  process.once('SIGINT', () => void cleanup().finally(() => process.exit(130)));

  try {
    // PostgreSQL runs as the `postgres` user when we are root: it must be able to enter the folder.
    const tempDir = await mkdtemp(path.join(os.tmpdir(), 'gateway-bench-'));
    await chmod(tempDir, 0o755);
    cleanups.push(() => rm(tempDir, { recursive: true, force: true }));
    const embedded: EmbeddedDatabase = await startEmbeddedDatabase({ dataDir: path.join(tempDir, 'pg'), port: 0, persistent: false });
    cleanups.push(() => embedded.stop());
    const admin = createDb(embedded.adminUrl, { poolMax: 1 });
    await admin.raw('CREATE DATABASE bench');
    await admin.destroy();
    const databaseUrl = embedded.urlFor('bench');
    const db: Db = createDb(databaseUrl, { poolMax: 2 });
    cleanups.push(() => db.destroy());
    await migrateLatest(db);
    const client = new pg.Client({ connectionString: databaseUrl, application_name: 'bench-driver' });
    await client.connect();
    cleanups.push(() => client.end());
    const postgresVersion = (await client.query<{ server_version: string }>('SHOW server_version')).rows[0]!.server_version;
    progress(`PostgreSQL ${postgresVersion} up and migrated`);

    const oidcClient = { clientId: 'gateway-bench', clientSecret: randomBytes(32).toString('base64url') };
    const idp: DevIdp = await startDevIdp({ port: 0, clients: [{ ...oidcClient, redirectUris: [CALLBACK_URL] }] });
    cleanups.push(() => idp.close());
    const discovery = (await (await fetch(`${idp.issuer}/.well-known/openid-configuration`)).json()) as { authorization_endpoint: string };

    const created = await createPlatform(
      db,
      {
        platformKey: PLATFORM_KEY,
        displayName: 'Benchmark platform',
        callbackUrl: 'https://platform.bench.test/auth/callback',
        allowedReturnUrls: [PLATFORM_ROOT],
        defaultOnboardingMode: 'none',
        centralOnboardingEnabled: true,
      },
      CLI_ACTOR,
    );
    const platformRow = await findPlatformByKey(db, PLATFORM_KEY);
    const user = await upsertUserFromIdp(db, {
      sub: 'bench-user',
      email: 'bench@example.test',
      emailVerified: true,
      displayName: 'Bench User',
      givenName: 'Bench',
      familyName: 'User',
    });

    const encryptionKeys = generateKeyRingSpec('bench');
    const serverSettings: ServerSettings = {
      databaseUrl,
      poolSize: SETTINGS.poolSize,
      logLevel: SETTINGS.logLevel,
      issuer: idp.issuer,
      oidcClientId: oidcClient.clientId,
      oidcClientSecret: oidcClient.clientSecret,
      encryptionKeys,
      publicBaseUrl: 'https://gateway.bench.test',
      accountCenterUrl: 'https://account.bench.test',
      callbackUrl: CALLBACK_URL,
      scopes: SCOPES,
    };
    const servers = {} as Record<Side, Server>;
    for (const side of ['bare', 'gateway'] as const) {
      servers[side] = await startServer(side, serverSettings);
      serverPids.set(servers[side].child.pid!, side);
      cleanups.push(() => stopServer(servers[side]));
    }
    progress(`servers up: bare ${servers.bare.baseUrl}, gateway ${servers.gateway.baseUrl}; dev IdP ${idp.issuer}`);

    const ctx: Context = {
      servers,
      client,
      keyRing: parseKeyRing(encryptionKeys),
      seedTarget: {
        platformId: platformRow!.id,
        userId: user.id,
        callbackUrl: platformRow!.callbackUrl!,
        returnTo: RETURN_TO,
        handoffTtlSeconds: 300,
      },
      platform: { clientId: created.platform.clientId!, clientSecret: created.clientSecret },
      authorizationEndpoint: discovery.authorization_endpoint,
      fastestExchange: 0,
    };
    await checkEquivalence(ctx);
    progress('both servers answer alike (authorize URL parameters, exchange body, 404 on reuse, 401 on a wrong secret)');

    const records: RunRecord[] = [];
    for (const endpoint of SETTINGS.endpoints) {
      for (const side of ['bare', 'gateway'] as const) records.push(await runOnce(ctx, endpoint, side, 'warmup', 0));
      for (let round = 1; round <= SETTINGS.rounds; round++) {
        for (const side of ['bare', 'gateway'] as const) records.push(await runOnce(ctx, endpoint, side, 'measured', round));
      }
    }

    const summaries: EndpointSummary[] = SETTINGS.endpoints.map((endpoint) => {
      const bare = summarise(records, endpoint, 'bare');
      const gateway = summarise(records, endpoint, 'gateway');
      const ratio = gateway.requestsPerSecond / bare.requestsPerSecond;
      const valid = records.every((r) => r.endpoint !== endpoint || r.phase !== 'measured' || r.valid);
      return { endpoint, label: ENDPOINT_LABEL[endpoint], bare, gateway, ratio, pass: valid && ratio >= SETTINGS.target, valid };
    });
    const totalSeconds = (Date.now() - began) / 1000;
    const disturbed = records.some((r) => r.phase === 'measured' && r.foreignCpu !== null && r.foreignCpu > DISTURBED_SHARE);
    const cpus = os.cpus();
    const machine = `${cpus.length} CPUs (${cpus[0]?.model.trim() ?? 'unknown'}), Node ${process.version}, PostgreSQL ${postgresVersion}`;

    process.stdout.write(
      `\nGateway vs bare node:http + pg, same SQL, same run: ${machine}\n` +
        `autocannon ${SETTINGS.connections} connections, ${SETTINGS.rounds} rounds x ${SETTINGS.durationSeconds} s per server (alternating bare, gateway), ` +
        `${SETTINGS.warmupSeconds} s warm-up each, pool ${SETTINGS.poolSize}, gateway LOG_LEVEL ${SETTINGS.logLevel}\n\n` +
        `${table(summaries)}\n\n` +
        `req/s       answers with the expected status (${EXPECTED_STATUS.start} for start, ${EXPECTED_STATUS.exchange} for exchange) per second, all rounds together\n` +
        `p50, p99    autocannon latency percentiles, mean over the rounds\n` +
        `CPU µs/req  CPU time of the measured server process per answer; PG µs/req: the same for PostgreSQL (same SQL: should match)\n` +
        `bad         answers with another status, plus connection errors (a round with more than ${100 * MAX_BAD_SHARE}% is invalid)\n` +
        `others      most CPU that processes outside the benchmark, or the hypervisor, took during a round (share of all ${cpus.length} CPUs)\n` +
        `Total ${totalSeconds.toFixed(0)} s.\n` +
        (disturbed
          ? `WARNING: others took more than ${(100 * DISTURBED_SHARE).toFixed(0)}% of the CPUs during a round: this machine was shared; compare with care or re-run when it is quiet.\n`
          : ''),
    );

    await mkdir(RESULTS_DIR, { recursive: true });
    const resultsFile = path.join(RESULTS_DIR, 'latest.json');
    await writeFile(
      resultsFile,
      `${JSON.stringify(
        {
          finishedAt: new Date().toISOString(),
          totalSeconds,
          machine: { cpus: cpus.length, cpuModel: cpus[0]?.model.trim(), memoryBytes: os.totalmem(), node: process.version, postgres: postgresVersion, platform: `${os.platform()} ${os.release()}` },
          settings: SETTINGS,
          summaries,
          runs: records,
        },
        null,
        2,
      )}\n`,
    );
    process.stdout.write(`Results: ${path.relative(ROOT, resultsFile)}\n`);

    const invalid = summaries.filter((s) => !s.valid);
    if (invalid.length > 0) {
      const reasons = records.filter((r) => r.phase === 'measured' && !r.valid).map((r) => `${ENDPOINT_LABEL[r.endpoint]} ${r.side} round ${r.round}: ${r.problems.join('; ')}`);
      process.stderr.write(`\nINVALID RUN: the measurements below did not do what they claim, so no ratio is trustworthy:\n  ${reasons.join('\n  ')}\n`);
      return 2;
    }
    const failed = summaries.filter((s) => !s.pass);
    if (failed.length > 0) {
      process.stderr.write(`\nFAIL: ${failed.map((s) => `${s.label} at ${s.ratio.toFixed(2)}`).join(', ')} of the bare baseline (target ${SETTINGS.target})\n`);
      return 1;
    }
    return 0;
  } finally {
    await cleanup();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(2);
  },
);
