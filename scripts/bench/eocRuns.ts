// ---------------------------------------------------------------- express-openid-connect
import autocannon from 'autocannon';
import { concurrently, FlowError, percentile, request } from './browser.ts';
import { cpuUse, sampleCpu } from './cpu.ts';
import { CALLBACK_URL, MAX_BAD_SHARE, progress, SETTINGS, type Context, type RunRecord } from './settings.ts';

/** A login on express-openid-connect: /login, the provider, the callback (302 to /). */
export async function eocLogin(ctx: Context): Promise<void> {
  const server = ctx.eoc!;
  const started = await request(ctx.agents.eoc, `${server.baseUrl}/login`);
  if (started.status !== 302 || !started.location) throw new FlowError(`eoc /login answered ${started.status}`);
  const cookie = started.cookies.map((c) => c.split(';')[0]).join('; ');
  const approved = await request(ctx.agents.provider, started.location);
  if (approved.status !== 302 || !approved.location?.startsWith(`${CALLBACK_URL}?`)) throw new FlowError(`the provider answered ${approved.status}`);
  const back = new URL(approved.location);
  const done = await request(ctx.agents.eoc, `${server.baseUrl}${back.pathname}${back.search}`, { headers: { cookie } });
  if (done.status !== 302 || !done.cookies.some((c) => c.startsWith('appSession='))) throw new FlowError(`eoc callback answered ${done.status} ${done.body.slice(0, 200)}`);
}

export interface EocRun {
  kind: 'start' | 'login';
  phase: RunRecord['phase'];
  round: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  cpuUs: number | null;
  failed: number;
  foreignCpu: number | null;
}

export async function runEoc(ctx: Context, kind: 'start' | 'login', phase: RunRecord['phase'], round: number): Promise<EocRun> {
  const seconds = phase === 'warmup' ? SETTINGS.warmupSeconds : SETTINGS.durationSeconds;
  progress(`${phase === 'warmup' ? 'warm-up ' : `round ${round}  `} express-openid-connect ${kind === 'start' ? 'GET /login' : 'whole login'} for ${seconds} s`);
  const before = await sampleCpu();
  let ok = 0;
  let failed = 0;
  let p50 = 0;
  let p99 = 0;
  let duration = seconds;
  if (kind === 'start') {
    const result = await autocannon({ url: `${ctx.eoc!.baseUrl}/login`, connections: SETTINGS.connections, duration: seconds });
    for (const [status, stat] of Object.entries(result.statusCodeStats ?? {})) {
      if (status === '302') ok += (stat as { count: number }).count;
      else failed += (stat as { count: number }).count;
    }
    failed += result.errors;
    p50 = result.latency.p50;
    p99 = result.latency.p99;
    duration = result.duration;
  } else {
    const result = await concurrently(SETTINGS.users, { seconds }, () => eocLogin(ctx));
    ok = result.ok;
    failed = result.failed;
    const sorted = result.latenciesMs.sort((a, b) => a - b);
    p50 = percentile(sorted, 50);
    p99 = percentile(sorted, 99);
    duration = result.durationSeconds;
    if (failed > 0) progress(`  failures: ${JSON.stringify(result.failures)}`);
  }
  const cpu = cpuUse(before, await sampleCpu());
  const run: EocRun = {
    kind, phase, round, perSecond: ok / duration, p50Ms: p50, p99Ms: p99,
    cpuUs: cpu && ok > 0 ? (1000 * cpu.ms.eoc) / ok : null, failed, foreignCpu: cpu ? cpu.foreignShare : null,
  };
  progress(`  ${run.perSecond.toFixed(0)} ${kind === 'login' ? 'logins' : 'req'}/s, p50 ${p50.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, CPU ${run.cpuUs?.toFixed(0) ?? 'n/a'} µs` +
    (failed ? `, ${failed} failed` : '') + (run.foreignCpu !== null ? `, others ${(100 * run.foreignCpu).toFixed(0)}% of the CPUs` : ''));
  return run;
}

export interface EocSummary {
  kind: 'start' | 'login';
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  cpuUs: number | null;
  valid: boolean;
}

export function summariseEoc(runs: EocRun[], kind: 'start' | 'login'): EocSummary | null {
  const measured = runs.filter((r) => r.kind === kind && r.phase === 'measured');
  if (measured.length === 0) return null;
  const mean = (values: number[]) => values.reduce((sum, v) => sum + v, 0) / values.length;
  return {
    kind,
    perSecond: mean(measured.map((r) => r.perSecond)),
    p50Ms: mean(measured.map((r) => r.p50Ms)),
    p99Ms: mean(measured.map((r) => r.p99Ms)),
    cpuUs: measured.some((r) => r.cpuUs === null) ? null : mean(measured.map((r) => r.cpuUs!)),
    valid: measured.every((r) => r.failed <= r.perSecond * SETTINGS.durationSeconds * MAX_BAD_SHARE),
  };
}
