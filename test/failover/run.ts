// `npm run test:failover`: the gateway through a PostgreSQL failover, on the production topology
// of docs/operations.md ("PostgreSQL failover"): etcd, three Patroni nodes with synchronous
// replication, HAProxy routing to the primary (test/failover/haStack.ts), and two gateway
// instances (`node src/main.ts`) behind the test load balancer, their DATABASE_URL the one
// HAProxy address. Logins run in a loop while the primary's postmaster is killed (SIGKILL);
// Patroni fails over to the synchronous standby and HAProxy follows its REST API.
//
// Reported, and checked (exit 1 when one fails):
// - seconds without service (measured, not asserted);
// - logins failed: each must have failed with a retryable answer (503 from the gateway);
// - logins lost after a success: a handoff code the callback answered, or a session the exchange
//   answered, that the new primary does not have: must be 0;
// - codes used twice (a code exchanged before the failover exchanged again after it): must be 0.
//
// A BFF retries an exchange answered 503 (a 503 spends nothing), so each worker does too.
// Needs root (Debian packages, PostgreSQL as the `postgres` user): skipped otherwise, with the
// reason. Bounded: the whole run stops itself after RUN_LIMIT_MS and kills what it started.
import { execFileSync, spawnSync } from 'node:child_process';
import { userInfo } from 'node:os';
import { createDb, migrateLatest } from '../../src/db/knex.ts';
import { sha256 } from '../../src/security/crypto.ts';
import { addClusterPlatform, exchange, handoffCodeOf, LoginStepError, signInUpToCallback, startCluster, type Cluster, type ClusterPlatform } from '../helpers/gatewayCluster.ts';
import { missingPackages, startHaStack, type HaStack } from './haStack.ts';

const RUN_LIMIT_MS = 5 * 60_000;
const WORKERS = 4;
/** A login that gets no answer within this is counted as hung (the gateway's own limits are 5-6 s). */
const HUNG_AFTER_MS = 20_000;
/** How long a BFF keeps retrying an exchange answered 503 (below the code's 60 s lifetime). */
const EXCHANGE_RETRY_MS = 45_000;

const log = (line: string) => process.stdout.write(`[failover] ${line}\n`);
const began = Date.now();
const seconds = (ms: number) => (ms / 1000).toFixed(1);

type Failure = { at: number; startedAt: number; step: string; status: number | string; code: string; retryable: boolean };
type Login = { startedAt: number; code: string; codeAt: number; sessionId: string | null; exchangedAt: number | null; exchange503: number };

const failures: Failure[] = [];
const logins: Login[] = [];
/** A handoff code answered by the callback that its exchange could not redeem afterwards. */
const codesLost: { code: string; status: number; body: string; earlier503: number; sentAfterKillMs: number }[] = [];
/** Times of every successful write answer (a callback with a code, an exchange 200). */
const successes: number[] = [];
/** When the primary's postmaster was killed (0 before). */
let killedAt = 0;

function skip(reason: string): never {
  log(`skipped: ${reason}`);
  // The plain closing line CI logs are read for.
  process.stdout.write('failover: 0 passed, 0 failed, 1 skipped\n');
  process.exit(0);
}

function ensurePackages(): void {
  const missing = missingPackages();
  if (missing.length === 0) return;
  if (userInfo().uid !== 0) skip(`needs the Debian packages ${missing.join(', ')} (and root to install them and to run PostgreSQL as the postgres user); run it as root`);
  log(`installing ${missing.join(', ')} (Debian)`);
  try {
    execFileSync('apt-get', ['update', '-qq'], { stdio: 'ignore' });
    execFileSync('apt-get', ['install', '-y', '-qq', ...missing], { stdio: 'ignore', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  } catch (error) {
    skip(`apt-get install ${missing.join(' ')} failed: ${(error as Error).message.split('\n')[0]}`);
  }
  if (missingPackages().length > 0) skip(`still missing after apt-get: ${missingPackages().join(', ')}`);
}

async function oneLogin(cluster: Cluster, platform: ClusterPlatform): Promise<void> {
  const startedAt = Date.now();
  const fail = (step: string, status: number | string, code: string) =>
    failures.push({ at: Date.now(), startedAt, step, status, code, retryable: status === 503 || isStartLost(step, status, code, startedAt) });
  let signedIn;
  try {
    signedIn = await signInUpToCallback(cluster.lb.url, platform.key);
  } catch (error) {
    if (error instanceof LoginStepError) return void fail(error.step, error.status, codeIn(error.message));
    return void fail('start', (error as Error).message, '');
  }
  // JSON rather than the browser's error page, to read the code of a refusal.
  const callback = await signedIn.browser.get(signedIn.callbackUrl, { accept: 'application/json' });
  const code = handoffCodeOf(callback);
  if (!code) return void fail('callback', callback.status, codeIn(callback.text));
  const login: Login = { startedAt, code, codeAt: Date.now(), sessionId: null, exchangedAt: null, exchange503: 0 };
  logins.push(login);
  successes.push(login.codeAt);
  // The BFF's exchange, retried while it answers 503, as a BFF would.
  for (;;) {
    const answer = await exchange(cluster.lb.url, platform, code).catch((error: Error) => ({ status: 0, body: { text: error.message } as Record<string, unknown> }));
    if (answer.status === 200) {
      login.sessionId = (answer.body.session as { id: string }).id;
      login.exchangedAt = Date.now();
      successes.push(login.exchangedAt);
      return;
    }
    if (answer.status === 503 && Date.now() - login.codeAt < EXCHANGE_RETRY_MS) {
      login.exchange503++;
      failures.push({ at: Date.now(), startedAt, step: 'exchange (retried)', status: 503, code: String(answer.body.code), retryable: true });
      await new Promise((resolve) => setTimeout(resolve, 250));
      continue;
    }
    codesLost.push({ code, status: answer.status, body: String(answer.body.code ?? JSON.stringify(answer.body).slice(0, 200)), earlier503: login.exchange503, sentAfterKillMs: killedAt ? login.codeAt - killedAt : NaN });
    return;
  }
}

/**
 * A start answered just before the kill whose callback finds no transaction: the start's row is
 * committed asynchronously (docs/scaling.md), so a crash may lose it, and the callback answers
 * 404 with "start again", by design. Counted apart; any other 404 is not retryable.
 */
function isStartLost(step: string, status: number | string, code: string, startedAt: number): boolean {
  return step === 'callback' && status === 404 && code === 'TRANSACTION_NOT_FOUND' && killedAt > 0 && startedAt <= killedAt + 1000;
}

function codeIn(text: string): string {
  return /"code":"([A-Z_]+)"/.exec(text)?.[1] ?? /\b([A-Z][A-Z_]{5,})\b/.exec(text)?.[1] ?? '';
}

async function main(): Promise<void> {
  ensurePackages();
  if (userInfo().uid !== 0) skip('needs root: it runs etcd, Patroni and PostgreSQL as the postgres user (PostgreSQL refuses to run as root, and only root can switch to another user); run it as root');
  let stack: HaStack | null = null;
  let cluster: Cluster | null = null;
  let cleaning: Promise<void> | null = null;
  const cleanUp = () =>
    (cleaning ??= (async () => {
      await cluster?.close().catch((error: Error) => log(`closing the gateways: ${error.message}`));
      await stack?.stop().catch((error: Error) => log(`stopping the stack: ${error.message}`));
    })());
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void cleanUp().finally(() => process.exit(130)));
  const limit = setTimeout(() => {
    log(`run limit of ${RUN_LIMIT_MS / 1000} s reached: stopping everything`);
    void cleanUp().finally(() => process.exit(1));
  }, RUN_LIMIT_MS);

  let ok = false;
  let stackFailed = false;
  try {
    stack = await startHaStack({ log });
    log(`stack up after ${seconds(Date.now() - began)} s: ${JSON.stringify((await stack.members()).map((m) => `${m.name}:${m.role}`))}`);
    const admin = createDb(stack.databaseUrl('postgres'), { poolMax: 1 });
    await admin.raw('CREATE DATABASE gateway');
    await admin.destroy();
    const migrator = createDb(stack.databaseUrl('gateway'), { poolMax: 1, statementTimeoutMs: 0 });
    await migrateLatest(migrator);
    await migrator.destroy();
    cluster = await startCluster({ databaseUrl: stack.databaseUrl('gateway') });
    const platform = await addClusterPlatform(cluster.db);
    log(`two gateway instances up after ${seconds(Date.now() - began)} s`);

    let running = true;
    const active = cluster;
    const worker = async () => {
      while (running) {
        let timer: NodeJS.Timeout | undefined;
        const hung = new Promise<void>((resolve) => (timer = setTimeout(() => (failures.push({ at: Date.now(), startedAt: Date.now() - HUNG_AFTER_MS, step: 'login', status: 'hung', code: '', retryable: false }), resolve()), HUNG_AFTER_MS)));
        await Promise.race([oneLogin(active, platform), hung]);
        clearTimeout(timer);
        if (failures.length && Date.now() - failures[failures.length - 1]!.at < 100) await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };
    const workers = Array.from({ length: WORKERS }, worker);
    const waitUntil = async (what: string, ms: number, test: () => boolean | Promise<boolean>) => {
      const until = Date.now() + ms;
      while (!(await test())) {
        if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };

    let oldLeader: string | null = null;
    try {
      await waitUntil('logins before the failover', 60_000, () => logins.filter((l) => l.sessionId).length >= 12);
      oldLeader = await stack.leader();
      const pid = await stack.killPostmaster(oldLeader!);
      killedAt = Date.now();
      log(`killed the postmaster (pid ${pid}) of the primary ${oldLeader} after ${logins.length} logins`);
      await waitUntil('a new primary', 60_000, async () => {
        const leader = await stack!.leader().catch(() => null);
        return leader !== null && leader !== oldLeader;
      });
      log(`new primary ${await stack.leader()} after ${seconds(Date.now() - killedAt)} s`);
      // Service is back once logins started after the kill complete; then some more for good measure.
      await waitUntil('logins after the failover', 90_000, () => logins.filter((l) => l.startedAt > killedAt && l.sessionId).length >= 12);
    } finally {
      running = false;
      await Promise.all(workers);
    }

    // What the new primary has: every answered session with its spent code and its credential.
    const answered = logins.filter((l) => l.sessionId);
    const sessionIds = answered.map((l) => l.sessionId!);
    const sessions = new Set((await cluster.db('gateway_sessions').whereIn('id', sessionIds).select('id')).map((row: { id: string }) => row.id));
    const credentials = new Set((await cluster.db('platform_credentials').whereIn('session_id', sessionIds).select('session_id')).map((row: { session_id: string }) => row.session_id));
    const spent = new Set((await cluster.db('handoff_codes').whereIn('code_digest', answered.map((l) => sha256(l.code))).whereNotNull('consumed_at').select('code_digest')).map((row: { code_digest: Buffer }) => row.code_digest.toString('hex')));
    const sessionsLost = answered.filter((l) => !sessions.has(l.sessionId!) || !credentials.has(l.sessionId!) || !spent.has(sha256(l.code).toString('hex')));
    // A code exchanged once must be refused after the failover.
    let usedTwice = 0;
    for (const login of answered) if ((await exchange(cluster.lb.url, platform, login.code)).status === 200) usedTwice++;

    const startsLost = failures.filter((f) => isStartLost(f.step, f.status, f.code, f.startedAt));
    const notRetryable = failures.filter((f) => !f.retryable);
    // The longest stretch without a successful answer (a callback's code or an exchange) around the kill.
    const around = [killedAt, ...successes.filter((t) => t > killedAt - 5000)].sort((a, b) => a - b);
    let gap = 0;
    for (let i = 1; i < around.length; i++) gap = Math.max(gap, around[i]! - around[i - 1]!);
    const firstLoginAfter = Math.min(...logins.filter((l) => l.startedAt > killedAt && l.exchangedAt).map((l) => l.exchangedAt!));
    const loginsFailed = failures.filter((f) => !f.step.endsWith('(retried)')).length;
    const byAnswer = new Map<string, number>();
    for (const f of failures) byAnswer.set(`${f.step} ${f.status} ${f.code}`.trim(), (byAnswer.get(`${f.step} ${f.status} ${f.code}`.trim()) ?? 0) + 1);

    log('---------------------------------------------------------------- report');
    log(`topology: etcd 3.4, Patroni 3.0 x3 (synchronous_mode, primary_start_timeout 0, loop_wait 1 s, ttl 10 s), PostgreSQL 15, HAProxy 2.6 (check GET /primary every 500 ms, fall 2, rise 1), 2 gateway instances, ${WORKERS} login loops`);
    log(`failover: ${oldLeader} killed, new primary ${await stack.leader()}`);
    log(`seconds without service: ${seconds(gap)} (the longest stretch without a successful callback or exchange, around the kill); the first login started after the kill completed ${seconds(firstLoginAfter - killedAt)} s after it`);
    log(`logins completed: ${answered.length} (${logins.filter((l) => l.startedAt > killedAt && l.sessionId).length} started after the kill; ${answered.filter((l) => l.exchange503 > 0).length} of them exchanged after a 503)`);
    log(`logins failed: ${loginsFailed}; with a retryable answer: ${loginsFailed - notRetryable.length} (503, or a lost start's 404 below); exchange attempts answered 503 and retried: ${failures.filter((f) => f.step.endsWith('(retried)')).length}`);
    for (const [answer, count] of byAnswer) log(`  ${count} x ${answer}`);
    log(`logins lost after a success: ${codesLost.length + sessionsLost.length} (codes answered then refused: ${codesLost.length}; sessions answered then missing: ${sessionsLost.length})`);
    for (const lost of codesLost) {
      // What the new primary says about it: spent (with its credential) means the exchange did
      // commit, and replicate, before the primary died, but its answer never came back.
      const row = await cluster.db('handoff_codes').where('code_digest', sha256(lost.code)).first('consumed_at', 'session_id');
      const credential = row?.session_id ? await cluster.db('platform_credentials').where('session_id', row.session_id).first('session_id') : undefined;
      log(`  code answered by its callback (${seconds(lost.sentAfterKillMs)} s from the kill), then ${lost.earlier503} x 503, then ${lost.status} ${lost.body}; on the new primary: ${row ? (row.consumed_at ? `spent${credential ? ', with its credential' : ''}` : 'not spent') : 'absent'}`);
    }
    log(`starts lost (callback 404 after the start was answered: the start's row is committed asynchronously, docs/scaling.md): ${startsLost.length}`);
    log(`codes used twice: ${usedTwice}`);
    log(`run took ${seconds(Date.now() - began)} s`);
    const problems = [
      ...(notRetryable.length ? [`${notRetryable.length} login(s) failed with an answer that is not retryable`] : []),
      ...(codesLost.length + sessionsLost.length ? ['logins lost after a success'] : []),
      ...(usedTwice ? ['codes used twice'] : []),
    ];
    if (problems.length) log(`FAILED: ${problems.join('; ')}`);
    else log('passed');
    ok = problems.length === 0;
  } catch (error) {
    // The HA stack itself failing (not starting, or Patroni electing no new primary within a
    // minute on a loaded machine) says nothing about the gateway: such a run is tried once more.
    stackFailed = stack === null || String((error as Error).message).includes('timed out waiting for a new primary');
    log(`FAILED: ${(error as Error).stack ?? String(error)}`);
    if (stack) log(stack.logs());
    if (cluster) for (const instance of cluster.instances) log(`--- gateway ${instance.name}\n${instance.output.slice(-3000)}`);
  } finally {
    clearTimeout(limit);
    await cleanUp();
  }
  log(`everything stopped; ${seconds(Date.now() - began)} s in all`);
  if (!ok && stackFailed && process.env.FAILOVER_STACK_RETRY === undefined) {
    log('the high-availability stack failed, not the gateway: running the whole test once more');
    const again = spawnSync(process.execPath, process.argv.slice(1), { stdio: 'inherit', env: { ...process.env, FAILOVER_STACK_RETRY: '1' } });
    process.exit(again.status ?? 1);
  }
  process.stdout.write(ok ? 'failover: 1 passed, 0 failed\n' : 'failover: 0 passed, 1 failed\n');
  process.exit(ok ? 0 : 1);
}

await main();
