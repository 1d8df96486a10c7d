// `npm run bench -- --compare <git ref>`: the regression guard of the login path (issue 33).
// The gateway of this checkout (its working files, uncommitted changes included) and the
// gateway built from <ref>, side by side in one run: the same PostgreSQL, provider, platform
// and settings, whole logins (start → provider → callback → exchange) in alternating rounds
// (base, gateway, then gateway, base, …: a slow drift of a shared machine falls on both).
// Per round the two neighbouring measurements give a ratio of CPU per login and of
// PostgreSQL time per login; the verdict is on the median of those ratios, with their
// spread printed beside it. docs/benchmarks.md, "Comparing two builds".

import { execFileSync } from 'node:child_process';
import { copyFile, mkdir, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { runOnce } from './rounds.ts';
import { buildGatewayForBench, imageRuntimeEnv } from './servers.ts';
import { DISTURBED_SHARE, HERE, progress, RESULTS_DIR, ROOT, SETTINGS, type Context, type RunRecord } from './settings.ts';

/** A change may cost this much more per login (median over the rounds) and still pass. */
export const COMPARE_TOLERANCE = 1.05;
/** Rounds per build when BENCH_ROUNDS is not set: more than a normal run's 3, to see the spread. */
const COMPARE_ROUNDS = 6;
/**
 * The benchmark's server entry of this checkout, compiled into both builds: both then read the
 * same settings the same way, and what differs is the gateway's own code (src/).
 */
const HARNESS = ['gateway.ts', 'protocol.ts', 'operationsOnly.ts'];

/** `--compare <ref>` or `--compare=<ref>` among the arguments, or null. */
export function compareRefFromArgs(argv: readonly string[] = process.argv.slice(2)): string | null {
  for (const [index, arg] of argv.entries()) {
    if (arg === '--compare') {
      const ref = argv[index + 1];
      if (!ref || ref.startsWith('--')) throw new Error('--compare needs a git ref (a commit, branch or tag)');
      return ref;
    }
    if (arg.startsWith('--compare=')) return arg.slice('--compare='.length);
  }
  const unknown = argv.find((arg) => arg.startsWith('--'));
  if (unknown) throw new Error(`unknown argument ${unknown} (npm run bench -- --compare <git ref>)`);
  return null;
}

const git = (args: string[]) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });

export interface BaseBuild {
  ref: string;
  commit: string;
  /** The entry to fork (servers.ts startServer). */
  script: string;
  /** The runtime settings of the ref's own Dockerfile (servers.ts imageRuntimeEnv). */
  runtimeEnv: Record<string, string>;
}

/**
 * The gateway of <ref> built as the image builds it, in `folder`. The ref's files come out of
 * `git archive` (no worktree, nothing written into the repository, nothing to clean up there
 * after a crash), this checkout's node_modules are linked in and its benchmark entry (HARNESS)
 * is put in place of the ref's. Both builds share one database, migrated by this checkout:
 * the ref may not have migrations this checkout lacks.
 */
export async function buildBase(ref: string, folder: string): Promise<BaseBuild> {
  if (ref.startsWith('-')) throw new Error(`--compare ${ref}: not a git ref`);
  let commit: string;
  try {
    commit = git(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]).trim();
  } catch {
    throw new Error(`--compare ${ref}: no such commit in ${ROOT}`);
  }
  const ours = new Set(await readdir(path.join(ROOT, 'migrations')));
  const missing = git(['ls-tree', '--name-only', commit, 'migrations/']).split('\n').filter(Boolean).map((file) => path.basename(file)).filter((file) => !ours.has(file));
  if (missing.length > 0) {
    throw new Error(
      `${ref} has migrations this checkout lacks (${missing.join(', ')}); both builds share one database migrated by this checkout. ` +
        'Compare against an ancestor, e.g. --compare $(git merge-base HEAD main), or merge it first.',
    );
  }
  const tree = path.join(folder, 'tree');
  await mkdir(tree, { recursive: true });
  const archive = path.join(folder, 'tree.tar');
  git(['archive', '--format=tar', `--output=${archive}`, commit]);
  execFileSync('tar', ['-xf', archive, '-C', tree]);
  await rm(archive);
  await mkdir(path.join(tree, 'scripts/bench'), { recursive: true });
  for (const file of HARNESS) await copyFile(path.join(HERE, file), path.join(tree, 'scripts/bench', file));
  await symlink(path.join(ROOT, 'node_modules'), path.join(tree, 'node_modules'));
  try {
    const script = await buildGatewayForBench(path.join(folder, 'build'), tree);
    return { ref, commit, script, runtimeEnv: await imageRuntimeEnv(path.join(tree, 'Dockerfile')) };
  } catch (error) {
    throw new Error(`the gateway of ${ref} (${commit.slice(0, 10)}) with this checkout's benchmark entry (${HARNESS.join(', ')}) does not compile: ${String(error)}`);
  }
}

interface Spread {
  median: number;
  min: number;
  max: number;
}

function spread(values: number[]): Spread {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length / 2;
  const median = sorted.length % 2 ? sorted[Math.floor(middle)]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
  return { median, min: sorted[0]!, max: sorted.at(-1)! };
}

const pct = (ratio: number) => `${ratio >= 1 ? '+' : ''}${((ratio - 1) * 100).toFixed(1)}%`;
const show = (s: Spread) => `x${s.median.toFixed(3)} (${pct(s.median)}), rounds x${s.min.toFixed(3)}–x${s.max.toFixed(3)}`;

/**
 * Whole logins on `base` and `gateway`, alternating; prints the ratios and writes
 * bench-results/compare.json. Exit code: 0 within COMPARE_TOLERANCE, 1 above, 2 invalid.
 */
export async function runCompare(ctx: Context, base: BaseBuild): Promise<number> {
  const rounds = process.env.BENCH_ROUNDS ? SETTINGS.rounds : COMPARE_ROUNDS;
  const records: RunRecord[] = [];
  for (const side of ['base', 'gateway'] as const) records.push(await runOnce(ctx, 'login', side, 'warmup', 0));
  const pairs: { round: number; base: RunRecord; gateway: RunRecord }[] = [];
  for (let round = 1; round <= rounds; round++) {
    const order = round % 2 === 1 ? (['base', 'gateway'] as const) : (['gateway', 'base'] as const);
    const pair = {} as { base: RunRecord; gateway: RunRecord };
    for (const side of order) {
      pair[side] = await runOnce(ctx, 'login', side, 'measured', round);
      records.push(pair[side]);
    }
    pairs.push({ round, ...pair });
  }
  const invalid = pairs.flatMap((p) => [p.base, p.gateway]).filter((r) => !r.valid || !r.cpuPerRequestUs);
  const ratio = (pick: (r: RunRecord) => number) => pairs.map((p) => pick(p.gateway) / pick(p.base));
  const cpu = spread(ratio((r) => r.cpuPerRequestUs!.server));
  const postgres = spread(ratio((r) => r.cpuPerRequestUs!.postgres));
  const rate = spread(ratio((r) => r.requestsPerSecond));
  const others = Math.max(...pairs.flatMap((p) => [p.base.foreignCpu ?? 0, p.gateway.foreignCpu ?? 0]));
  const verdict = (s: Spread) => (s.median <= COMPARE_TOLERANCE ? 'PASS' : 'FAIL');
  const perRound = pairs.map((p) =>
    `  round ${p.round}: CPU/login ${p.base.cpuPerRequestUs?.server.toFixed(0)} → ${p.gateway.cpuPerRequestUs?.server.toFixed(0)} µs, ` +
      `PostgreSQL/login ${p.base.cpuPerRequestUs?.postgres.toFixed(0)} → ${p.gateway.cpuPerRequestUs?.postgres.toFixed(0)} µs, ` +
      `logins/s ${p.base.requestsPerSecond.toFixed(0)} → ${p.gateway.requestsPerSecond.toFixed(0)}, ` +
      `others ${(100 * Math.max(p.base.foreignCpu ?? 0, p.gateway.foreignCpu ?? 0)).toFixed(0)}%`);
  process.stdout.write(
    `\nWhole login, this checkout against ${base.ref} (${base.commit.slice(0, 10)}): ${rounds} rounds x ${SETTINGS.durationSeconds} s per build, ` +
      `alternating, ${SETTINGS.users} browsers at once; ratio = this checkout ÷ ${base.ref}, per round, median and range\n` +
      `${perRound.join('\n')}\n\n` +
      `  ${verdict(cpu)}  gateway CPU per login:    ${show(cpu)}\n` +
      `  ${verdict(postgres)}  PostgreSQL time per login: ${show(postgres)}\n` +
      `        logins per second:         ${show(rate)}\n` +
      `(PASS: median at most x${COMPARE_TOLERANCE.toFixed(2)}; others took up to ${(100 * others).toFixed(0)}% of the CPUs in a round)\n` +
      (others > DISTURBED_SHARE
        ? `WARNING: other processes took up to ${(100 * others).toFixed(0)}% of the CPUs: two identical builds measured so have given medians up to x1.085 ` +
          '(docs/benchmarks.md): repeat the run on a quiet machine before reading a difference under 10%.\n'
        : ''),
  );
  await mkdir(RESULTS_DIR, { recursive: true });
  const file = path.join(RESULTS_DIR, 'compare.json');
  await writeFile(file, `${JSON.stringify({ finishedAt: new Date().toISOString(), base: { ref: base.ref, commit: base.commit }, settings: { ...SETTINGS, rounds }, cpu, postgres, rate, runs: records }, null, 2)}\n`);
  progress(`results: ${path.relative(ROOT, file)}`);
  if (invalid.length > 0) {
    process.stderr.write(`\nINVALID: ${invalid.map((r) => `${r.side} round ${r.round}: ${r.problems.join('; ') || 'no CPU figures'}`).join('\n  ')}\n`);
    return 2;
  }
  return verdict(cpu) === 'PASS' && verdict(postgres) === 'PASS' ? 0 : 1;
}
