// ---------------------------------------------------------------- report
import { mb } from './servers.ts';
import type { EocSummary } from './eocRuns.ts';
import { SETTINGS, type Endpoint, type RunRecord, type Side } from './settings.ts';

export interface SideSummary {
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

export interface EndpointSummary {
  endpoint: Endpoint;
  label: string;
  bare: SideSummary;
  gateway: SideSummary;
  ratio: number;
  pass: boolean;
  valid: boolean;
}

export function summarise(records: RunRecord[], endpoint: Endpoint, side: Side): SideSummary {
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

export function table(summaries: EndpointSummary[]): string {
  const us = (value: number | null) => (value === null ? 'n/a' : value.toFixed(0));
  const rows: string[][] = [['endpoint', 'server', 'req/s', 'p50 ms', 'p99 ms', 'CPU µs/req', 'PG µs/req', 'bad', 'others', 'req/s per round']];
  for (const s of summaries) {
    for (const side of ['bare', 'gateway'] as const) {
      const x = s[side];
      rows.push([
        side === 'bare' ? s.label : '',
        side === 'bare' ? 'bare node:http + pg' : SETTINGS.gatewayLayer === 'app' ? 'gateway (express app)' : 'gateway operations only',
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

// ---------------------------------------------------------------- targets and memory

export interface Target {
  name: string;
  measured: string;
  status: 'PASS' | 'FAIL' | 'NOT MEASURED';
}

/**
 * Every target of issue 33 with what this run measured (ratios within the run: the absolute
 * figures depend on the machine), then the earlier per-step diagnostics of issue 15.
 */
export function targetsOf(
  summaries: EndpointSummary[],
  eoc: { start: EocSummary | null; login: EocSummary | null },
  memory: {
    rssAfterBootBytes: number | null; rssWarmBytes: number | null; loginsWhenWarm: number; warmAfterWarmup: boolean; rssAfterLoginsBytes: number | null; logins: number;
    heapWarmBytes: number | null; heapAfterLoginsBytes: number;
  },
): Target[] {
  const targets: Target[] = [];
  const check = (name: string, value: number | null | undefined, limit: number, compare: 'max' | 'min', show: (v: number) => string) => {
    if (value === null || value === undefined || !Number.isFinite(value)) targets.push({ name, measured: 'not measured in this run', status: 'NOT MEASURED' });
    else targets.push({ name, measured: show(value), status: (compare === 'max' ? value <= limit : value >= limit) ? 'PASS' : 'FAIL' });
  };
  const of = (endpoint: Endpoint) => summaries.find((s) => s.endpoint === endpoint && s.valid);
  const ratioOf = (s: EndpointSummary | undefined, pick: (x: SideSummary) => number | null) => {
    const gateway = s ? pick(s.gateway) : null;
    const bare = s ? pick(s.bare) : null;
    return gateway !== null && bare ? gateway / bare : null;
  };
  const ms = (us: number | null | undefined) => `${((us ?? NaN) / 1000).toFixed(2)} ms`;
  const login = of('login');
  check('whole login: gateway CPU per login <= 1.3x bare', ratioOf(login, (x) => x.serverCpuUs), 1.3, 'max',
    (v) => `x${v.toFixed(2)} (${ms(login?.gateway.serverCpuUs)} vs ${ms(login?.bare.serverCpuUs)})`);
  const eocLoginCpu = eoc.login?.valid ? eoc.login.cpuUs : null;
  check(
    "whole login: gateway CPU per login <= 1.5x express-openid-connect's",
    login?.gateway.serverCpuUs && eocLoginCpu ? login.gateway.serverCpuUs / eocLoginCpu : null, 1.5, 'max',
    (v) => `x${v.toFixed(2)} (${ms(login?.gateway.serverCpuUs)} vs ${ms(eocLoginCpu)})`,
  );
  check('whole login: PostgreSQL time per login <= 1.0x bare', ratioOf(login, (x) => x.postgresCpuUs), 1.0, 'max',
    (v) => `x${v.toFixed(2)} (${ms(login?.gateway.postgresCpuUs)} vs ${ms(login?.bare.postgresCpuUs)})`);
  for (const endpoint of ['start', 'callback', 'exchange'] as const) {
    check(`${endpoint}: req/s >= 1.0x bare`, of(endpoint)?.ratio, 1.0, 'min', (v) => v.toFixed(2));
  }
  const growth = memory.rssWarmBytes && memory.rssAfterLoginsBytes ? memory.rssAfterLoginsBytes / memory.rssWarmBytes : null;
  // Without a real warm-up (BENCH_MEMORY_LOGINS above BENCH_MEMORY_WARMUP) the warm reading is
  // taken while RSS still climbs: the figure is shown, but it is no verdict on growth after warm-up.
  const memoryName = `memory: RSS growth under 5% from warm (the lowest reading after the warm-up, at ${memory.loginsWhenWarm} logins) to ${memory.logins} logins (issue: 100k; BENCH_MEMORY_LOGINS)`;
  if (memory.warmAfterWarmup) check(memoryName, growth, 1.05, 'max', (v) => `x${v.toFixed(2)} (${mb(memory.rssWarmBytes)} -> ${mb(memory.rssAfterLoginsBytes)})`);
  else {
    targets.push({
      name: memoryName,
      measured: `no warm-up in this run (BENCH_MEMORY_LOGINS <= BENCH_MEMORY_WARMUP); from the first warm-up (${memory.loginsWhenWarm} logins): ` +
        (growth === null ? 'n/a' : `x${growth.toFixed(2)} (${mb(memory.rssWarmBytes)} -> ${mb(memory.rssAfterLoginsBytes)})`),
      status: 'NOT MEASURED',
    });
  }
  // Diagnostics (issue 15's per-step goals): where the gap of the targets above sits.
  for (const endpoint of ['start', 'callback', 'exchange'] as const) {
    const s = of(endpoint);
    check(`(diagnostic) ${endpoint}: gateway CPU per request <= 1.4x bare`, ratioOf(s, (x) => x.serverCpuUs), 1.4, 'max', (v) => `x${v.toFixed(2)} (${s!.gateway.serverCpuUs!.toFixed(0)} vs ${s!.bare.serverCpuUs!.toFixed(0)} µs)`);
    // CPU sampling in clock ticks (10 ms) over a run is good to a few percent: 5% is allowed as noise.
    check(`(diagnostic) ${endpoint}: PostgreSQL time per request no higher than bare (+5% noise)`, ratioOf(s, (x) => x.postgresCpuUs), 1.05, 'max', (v) => `x${v.toFixed(2)} (${s!.gateway.postgresCpuUs!.toFixed(0)} vs ${s!.bare.postgresCpuUs!.toFixed(0)} µs)`);
  }
  check('(diagnostic) memory: RSS under 150 MB', memory.rssAfterLoginsBytes, 150 * 1024 * 1024, 'max', (v) => mb(v));
  const heapGrowth = memory.heapWarmBytes ? memory.heapAfterLoginsBytes / memory.heapWarmBytes : null;
  check('(diagnostic) memory: JavaScript heap after a full GC flat within 10% (no leak)', heapGrowth, 1.1, 'max', (v) => `x${v.toFixed(2)} (${mb(memory.heapWarmBytes)} -> ${mb(memory.heapAfterLoginsBytes)})`);
  return targets;
}
