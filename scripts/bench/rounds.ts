// ---------------------------------------------------------------- one run
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import autocannon from 'autocannon';
import type pg from 'pg';
import { seedHandoffs, type HandoffBatch } from './seed.ts';
import { basic, concurrently, exchangeBody, percentile, sendCallback, startAndApprove, startUrl, wholeLogin, type FlowResult, type PendingCallback } from './browser.ts';
import { cpuUse, sampleCpu, type CpuSample } from './cpu.ts';
import { ask, gcTotals, profiled } from './servers.ts';
import type { GcTotals } from './protocol.ts';
import {
  ENDPOINT_LABEL, EXPECTED_STATUS, INITIAL_SEED_RATE, MAX_BAD_SHARE, progress, RESULTS_DIR, ROOT, SEED_MARGIN, SETTINGS,
  type Context, type Endpoint, type RunRecord, type Side,
} from './settings.ts';

/**
 * The same starting point for every run: no autovacuum or checkpoint debt from the previous one,
 * and fresh rate-limit windows (every request of the benchmark comes from one address: at its
 * 100,000 a minute, a round of ~20 s at 5,000 requests a second would reach the limit).
 */
export async function settleDatabase(client: pg.Client): Promise<void> {
  await client.query('DELETE FROM rate_limits');
  await client.query('VACUUM (ANALYZE) auth_transactions, gateway_sessions, handoff_codes, platform_credentials, users, platform_memberships, rate_limits');
  await client.query('CHECKPOINT');
}

export async function rowsMarker(client: pg.Client, endpoint: Endpoint): Promise<number> {
  const sql = {
    start: 'SELECT count(*)::int AS n FROM auth_transactions WHERE consumed_at IS NULL',
    exchange: 'SELECT count(*)::int AS n FROM handoff_codes WHERE consumed_at IS NOT NULL',
    callback: 'SELECT count(*)::int AS n FROM handoff_codes',
    login: 'SELECT count(*)::int AS n FROM handoff_codes WHERE consumed_at IS NOT NULL',
  }[endpoint];
  const { rows } = await client.query<{ n: number }>(sql);
  return rows[0]!.n;
}


/** What a run measured, from autocannon or from the flow runner. */
export interface Measured {
  durationSeconds: number;
  statusCodes: Record<string, number>;
  errors: number;
  timeouts: number;
  latencyMs: RunRecord['latencyMs'];
  exhausted: number;
  seeded: number | null;
}

export async function measureAutocannon(ctx: Context, endpoint: 'start' | 'exchange', side: Side, seconds: number, bracket: <T>(run: () => Promise<T>) => Promise<T>): Promise<Measured> {
  const server = ctx.servers[side];
  let batch: HandoffBatch | null = null;
  if (endpoint === 'exchange') {
    const rate = ctx.fastestExchange > 0 ? ctx.fastestExchange : INITIAL_SEED_RATE;
    const count = Math.ceil((rate * seconds * SEED_MARGIN) / 1000) * 1000;
    const seeding = Date.now();
    batch = await seedHandoffs(ctx.client, ctx.seedTarget, count);
    progress(`  seeded ${count} handoff codes for ${side} in ${((Date.now() - seeding) / 1000).toFixed(1)} s`);
  }
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
                return { ...request, body: exchangeBody(code ?? `handoff_exhausted_${next}`) };
              },
            },
          ],
        };
  const result = await bracket(() => autocannon(options));
  const statusCodes: Record<string, number> = {};
  for (const [status, stat] of Object.entries(result.statusCodeStats ?? {})) statusCodes[status] = (stat as { count: number }).count;
  return {
    durationSeconds: result.duration,
    statusCodes,
    errors: result.errors,
    timeouts: result.timeouts,
    latencyMs: { p50: result.latency.p50, p90: result.latency.p90, p99: result.latency.p99, mean: result.latency.average, max: result.latency.max },
    exhausted,
    seeded: batch ? batch.codes.length : null,
  };
}

export async function measureFlow(ctx: Context, endpoint: 'callback' | 'login', side: Side, phase: RunRecord['phase'], seconds: number, bracket: <T>(run: () => Promise<T>) => Promise<T>): Promise<Measured> {
  let result: FlowResult;
  let seeded: number | null = null;
  if (endpoint === 'callback') {
    // Logins started and approved first (not measured), then only their callbacks.
    const count = phase === 'warmup' ? Math.min(200, SETTINGS.callbacks) : SETTINGS.callbacks;
    const pending: PendingCallback[] = new Array(count);
    const preparing = Date.now();
    const prepared = await concurrently(SETTINGS.users, { count }, async (index) => {
      pending[index] = await startAndApprove(ctx, side);
    });
    if (prepared.failed > 0) throw new Error(`${side}: ${prepared.failed} logins could not be started: ${JSON.stringify(prepared.failures)}`);
    seeded = count;
    progress(`  started and approved ${count} logins on ${side} in ${((Date.now() - preparing) / 1000).toFixed(1)} s`);
    await settleDatabase(ctx.client);
    result = await bracket(() => concurrently(SETTINGS.users, { count }, (index) => sendCallback(ctx, side, pending[index]!)));
  } else {
    result = await bracket(() => concurrently(SETTINGS.users, { seconds }, () => wholeLogin(ctx, side)));
  }
  const sorted = result.latenciesMs.sort((a, b) => a - b);
  const mean = sorted.reduce((sum, v) => sum + v, 0) / Math.max(1, sorted.length);
  const round2 = (value: number) => Math.round(value * 100) / 100;
  return {
    durationSeconds: result.durationSeconds,
    statusCodes: { [String(EXPECTED_STATUS[endpoint])]: result.ok, ...Object.fromEntries(Object.entries(result.failures).map(([reason, n]) => [`failed: ${reason}`, n])) },
    errors: 0,
    timeouts: 0,
    latencyMs: { p50: round2(percentile(sorted, 50)), p90: round2(percentile(sorted, 90)), p99: round2(percentile(sorted, 99)), mean: round2(mean), max: round2(sorted.at(-1) ?? 0) },
    exhausted: 0,
    seeded,
  };
}

export async function runOnce(ctx: Context, endpoint: Endpoint, side: Side, phase: RunRecord['phase'], round: number): Promise<RunRecord> {
  const server = ctx.servers[side];
  const seconds = phase === 'warmup' ? SETTINGS.warmupSeconds : SETTINGS.durationSeconds;
  let before = 0;
  let cpuBefore: CpuSample | null = null;
  let cpuAfter: CpuSample | null = null;
  let gcBefore: GcTotals | null = null;
  let gcAfter: GcTotals | null = null;
  const profile = phase === 'measured' && profiled(side);
  // Only the measured requests inside: CPU samples, and the CPU profile when asked.
  const bracket = async <T>(run: () => Promise<T>): Promise<T> => {
    if (endpoint !== 'callback') await settleDatabase(ctx.client);
    before = await rowsMarker(ctx.client, endpoint);
    progress(`${phase === 'warmup' ? 'warm-up ' : `round ${round}  `} ${ENDPOINT_LABEL[endpoint]} on ${side}${endpoint === 'callback' ? '' : ` for ${seconds} s`}`);
    if (profile) await ask(server, { type: 'profile-start' }, 'profile-started');
    gcBefore = await gcTotals(server);
    cpuBefore = await sampleCpu();
    const result = await run();
    cpuAfter = await sampleCpu();
    gcAfter = await gcTotals(server);
    if (profile) {
      const dir = path.join(RESULTS_DIR, 'profiles');
      await mkdir(dir, { recursive: true });
      const file = path.join(dir, `${side}-${endpoint}-round${round}.cpuprofile`);
      await ask(server, { type: 'profile-stop', file }, 'profile-written');
      progress(`  CPU profile: ${path.relative(ROOT, file)}`);
    }
    return result;
  };
  const measured = endpoint === 'start' || endpoint === 'exchange'
    ? await measureAutocannon(ctx, endpoint, side, seconds, bracket)
    : await measureFlow(ctx, endpoint, side, phase, seconds, bracket);
  await new Promise((resolve) => setTimeout(resolve, 300)); // requests still in flight when autocannon stopped
  const rowsChanged = (await rowsMarker(ctx.client, endpoint)) - before;
  const cpu = cpuUse(cpuBefore, cpuAfter);

  const { statusCodes } = measured;
  const responses = Object.values(statusCodes).reduce((sum, count) => sum + count, 0);
  const expectedStatus = EXPECTED_STATUS[endpoint];
  const expected = statusCodes[String(expectedStatus)] ?? 0;
  const unexpected = responses - expected;
  const requestsPerSecond = expected / measured.durationSeconds;
  const problems: string[] = [];
  if (responses === 0) problems.push('no responses');
  if (unexpected > responses * MAX_BAD_SHARE) problems.push(`${unexpected} of ${responses} responses were not ${expectedStatus}: ${JSON.stringify(statusCodes)}`);
  if (measured.errors > responses * MAX_BAD_SHARE) problems.push(`${measured.errors} connection errors (${measured.timeouts} timeouts)`);
  if (measured.exhausted > 0) problems.push(`the ${measured.seeded} seeded handoff codes ran out (${measured.exhausted} requests without one)`);
  // Every answered request did its database work; requests cut off at the end may add a few rows.
  if (rowsChanged < expected || rowsChanged > expected + SETTINGS.connections) {
    problems.push(`${rowsChanged} rows changed in PostgreSQL for ${expected} ${expectedStatus} answers`);
  }
  if (endpoint === 'exchange') ctx.fastestExchange = Math.max(ctx.fastestExchange, requestsPerSecond);
  if (side === 'gateway' && (endpoint === 'callback' || endpoint === 'login')) ctx.gatewayLogins += expected;
  const record: RunRecord = {
    endpoint,
    side,
    phase,
    round,
    durationSeconds: measured.durationSeconds,
    expectedStatus,
    expected,
    responses,
    unexpected,
    statusCodes,
    errors: measured.errors,
    timeouts: measured.timeouts,
    requestsPerSecond,
    latencyMs: measured.latencyMs,
    rowsChanged,
    seeded: measured.seeded,
    foreignCpu: cpu ? cpu.foreignShare : null,
    cpuPerRequestUs: cpu && expected > 0
      ? {
          server: (1000 * cpu.ms[side]) / expected,
          postgres: (1000 * cpu.ms.postgres) / expected,
          loadGenerator: (1000 * cpu.ms.driver) / expected,
          provider: (1000 * cpu.ms.provider) / expected,
        }
      : null,
    gcPerRequest: gcPerAnswer(gcBefore, gcAfter, expected),
    valid: problems.length === 0,
    problems,
  };
  progress(
    `  ${requestsPerSecond.toFixed(0)} ${endpoint === 'login' ? 'logins' : 'req'}/s, p50 ${record.latencyMs.p50} ms, p99 ${record.latencyMs.p99} ms` +
      (record.cpuPerRequestUs ? `, CPU/${endpoint === 'login' ? 'login' : 'req'}: server ${record.cpuPerRequestUs.server.toFixed(0)} µs, PostgreSQL ${record.cpuPerRequestUs.postgres.toFixed(0)} µs` : '') +
      (record.gcPerRequest ? `, GC pauses ${record.gcPerRequest.pauseUs.toFixed(0)} µs (${record.gcPerRequest.minor.toFixed(2)} scavenges, ${record.gcPerRequest.major.toFixed(3)} full)` : '') +
      (record.foreignCpu !== null ? `, others ${(100 * record.foreignCpu).toFixed(0)}% of the CPUs` : '') +
      (problems.length ? `; INVALID: ${problems.join('; ')}` : ''),
  );
  return record;
}

/** The collector's main-thread pauses per answer between two readings, and how many scavenges and full collections that took. */
function gcPerAnswer(before: GcTotals | null, after: GcTotals | null, answers: number): RunRecord['gcPerRequest'] {
  if (!before || !after || answers === 0) return null;
  const ms = (kind: keyof GcTotals) => after[kind].ms - before[kind].ms;
  const count = (kind: keyof GcTotals) => after[kind].count - before[kind].count;
  return {
    pauseUs: (1000 * (ms('minor') + ms('major') + ms('incremental'))) / answers,
    minor: count('minor') / answers,
    major: count('major') / answers,
  };
}
