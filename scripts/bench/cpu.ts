// ---------------------------------------------------------------- CPU accounting (Linux)
// From /proc, around every run: the CPU time of each of the benchmark's own
// processes (this driver with autocannon, the two servers, PostgreSQL and its
// backends), and of everything else on the machine. The servers' CPU time per
// answered request is a second measure of their cost that other load on a
// shared machine disturbs less than throughput does; the time of the other
// processes (and the hypervisor's steal time) says how disturbed a run was.
import { execFileSync } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import type { Side } from './settings.ts';

export type CpuGroup = 'driver' | Side | 'postgres' | 'provider' | 'eoc';

export interface CpuSample {
  /** All CPUs, in clock ticks: time charged to processes, and all time. */
  busy: number;
  total: number;
  /** Time the hypervisor gave this machine's CPUs to someone else. */
  steal: number;
  /** Ticks of each of the benchmark's own processes, with the group it belongs to. */
  ours: Map<number, { group: CpuGroup; ticks: number }>;
}

export interface CpuUse {
  /** Share of all CPUs' time used by processes outside the benchmark, or stolen by the hypervisor. */
  foreignShare: number;
  /** Milliseconds of CPU per group. */
  ms: Record<CpuGroup, number>;
}

export const TICKS_PER_SECOND = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** The server processes, once started (their descendants belong to them). */
export const serverPids = new Map<number, Side | 'provider' | 'eoc'>();

export async function processTicks(pid: number): Promise<{ ppid: number; ticks: number } | null> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    // Fields after the parenthesised command name: state ppid … utime(14) stime(15), all threads.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { ppid: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]) };
  } catch {
    return null;
  }
}

export async function sampleCpu(): Promise<CpuSample | null> {
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
export function cpuUse(before: CpuSample | null, after: CpuSample | null): CpuUse | null {
  if (!before || !after || after.total <= before.total) return null;
  const ticks: Record<CpuGroup, number> = { driver: 0, bare: 0, gateway: 0, base: 0, postgres: 0, provider: 0, eoc: 0 };
  for (const [pid, { group, ticks: now }] of after.ours) ticks[group] += now - (before.ours.get(pid)?.ticks ?? 0);
  const oursTotal = Object.values(ticks).reduce((sum, t) => sum + t, 0);
  const toMs = (t: number) => (1000 * t) / TICKS_PER_SECOND;
  return {
    foreignShare: Math.max(0, (after.busy - before.busy - oursTotal + after.steal - before.steal) / (after.total - before.total)),
    ms: {
      driver: toMs(ticks.driver), bare: toMs(ticks.bare), gateway: toMs(ticks.gateway), base: toMs(ticks.base), postgres: toMs(ticks.postgres),
      provider: toMs(ticks.provider), eoc: toMs(ticks.eoc),
    },
  };
}
