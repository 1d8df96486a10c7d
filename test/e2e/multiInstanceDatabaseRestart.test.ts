// Issue 13 §11: PostgreSQL restarted under load, under two gateway instances (child processes
// running src/main.ts behind the test load balancer; see test/helpers/gatewayCluster.ts).
// While it is down every login step answers 503 (never a hang, never a 500), the instances
// recover by themselves once it is back, and nothing is lost or half written.
//
// A PostgreSQL server of its own (the suite's shared one must not go down under other files),
// really stopped (fast shutdown: every connection is cut) and started again on the same data
// folder and port.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startEmbeddedDatabase, type EmbeddedDatabase } from '../../src/db/embedded.ts';
import { createDb, migrateLatest } from '../../src/db/knex.ts';
import { sha256 } from '../../src/security/crypto.ts';
import {
  addClusterPlatform,
  exchange,
  fullLogin,
  handoffCodeOf,
  LoginStepError,
  signInUpToCallback,
  startCluster,
  type Cluster,
  type ClusterPlatform,
  type CompletedLogin,
} from '../helpers/gatewayCluster.ts';

/** A login that gets no answer within this is counted as hung (the gateway's own limits are 5-6 s). */
const HUNG_AFTER_MS = 20_000;

class HungLogin extends Error {}

describe('PostgreSQL restarted under two instances with logins running', () => {
  let folder: string;
  let postgres: EmbeddedDatabase;
  let cluster: Cluster;
  let platform: ClusterPlatform;
  let port: number;
  const dataDir = () => path.join(folder, 'data');

  beforeAll(async () => {
    folder = await mkdtemp(path.join(tmpdir(), 'auth-gateway-pg-restart-'));
    await chmod(folder, 0o755); // as root, PostgreSQL runs as `postgres` and must get in
    postgres = await startEmbeddedDatabase({ dataDir: dataDir(), port: 0, persistent: true });
    port = Number(new URL(postgres.adminUrl).port);
    const admin = createDb(postgres.adminUrl, { poolMax: 1 });
    await admin.raw('CREATE DATABASE gateway');
    await admin.destroy();
    const migrator = createDb(postgres.urlFor('gateway'), { poolMax: 1, statementTimeoutMs: 0 });
    await migrateLatest(migrator);
    await migrator.destroy();
    cluster = await startCluster({ databaseUrl: postgres.urlFor('gateway') });
    platform = await addClusterPlatform(cluster.db);
  });
  afterAll(async () => {
    await cluster?.close();
    await postgres?.stop();
    if (folder) await rm(folder, { recursive: true, force: true });
  });

  it('logins answer 503 while it is down, succeed again once it is back, and nothing is lost', async () => {
    type Outcome = { login: CompletedLogin; phase: string } | { error: Error; phase: string };
    const outcomes: Outcome[] = [];
    let phase = 'before';
    let running = true;
    const worker = async () => {
      while (running) {
        const startedIn = phase;
        let timer: NodeJS.Timeout | undefined;
        const hung = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new HungLogin(`no answer within ${HUNG_AFTER_MS} ms`)), HUNG_AFTER_MS)));
        try {
          outcomes.push({ login: await Promise.race([fullLogin(cluster, platform), hung]), phase: startedIn });
        } catch (error) {
          outcomes.push({ error: error as Error, phase: startedIn });
          // A client waits a moment before trying again (and the balancer's log stays readable).
          await new Promise((resolve) => setTimeout(resolve, 50));
        } finally {
          clearTimeout(timer);
        }
      }
    };
    const workers = Array.from({ length: 4 }, worker);
    const count = (test: (outcome: Outcome) => boolean) => outcomes.filter(test).length;
    const until = async (test: () => boolean) => {
      while (!test()) await new Promise((resolve) => setTimeout(resolve, 20));
    };

    // Two logins caught by the outage half way: one back from the provider (its callback not
    // requested yet), one with its handoff code (not exchanged yet).
    const pendingCallback = await signInUpToCallback(cluster.lb.url, platform.key);
    const pendingHandoff = await signInUpToCallback(cluster.lb.url, platform.key);
    const pendingCode = handoffCodeOf(await pendingHandoff.browser.get(pendingHandoff.callbackUrl))!;
    expect(pendingCode).toMatch(/^handoff_/);
    const recovered: CompletedLogin[] = [];
    let upFrom = Infinity;
    try {
      await until(() => count((o) => 'login' in o) >= 8);
      phase = 'down';
      await postgres.stop();
      // Logins keep coming and are refused with 503 (at whichever step reaches the database).
      const callbackDown = await pendingCallback.browser.get(pendingCallback.callbackUrl, { accept: 'application/json' });
      expect([callbackDown.status, JSON.parse(callbackDown.text).code]).toEqual([503, 'DATABASE_UNAVAILABLE']);
      const exchangeDown = await exchange(cluster.lb.url, platform, pendingCode);
      expect([exchangeDown.status, exchangeDown.body.code]).toEqual([503, 'DATABASE_UNAVAILABLE']);
      await until(() => count((o) => o.phase === 'down' && 'error' in o) >= 12);
      phase = 'up';
      upFrom = cluster.lb.log.length;
      postgres = await startEmbeddedDatabase({ dataDir: dataDir(), port, persistent: true });
      // No instance is restarted: their pools reconnect by themselves.
      await until(() => count((o) => o.phase === 'up' && 'login' in o) >= 12 || count((o) => 'error' in o && !(o.error instanceof LoginStepError && o.error.status === 503)) > 0);

      // The refused steps spent nothing: the same callback and the same code now succeed.
      const callbackUp = await pendingCallback.browser.get(pendingCallback.callbackUrl);
      const codeAfter = handoffCodeOf(callbackUp);
      expect(codeAfter, callbackUp.text.slice(0, 300)).toMatch(/^handoff_/);
      for (const code of [codeAfter!, pendingCode]) {
        const exchanged = await exchange(cluster.lb.url, platform, code);
        expect(exchanged.status).toBe(200);
        recovered.push({ sessionId: (exchanged.body.session as { id: string }).id, code });
      }
    } finally {
      running = false;
      await Promise.all(workers);
    }

    // Every failure is a 503 from the gateway: no 500, no hang, no connection reset, no 502.
    const failures = outcomes.filter((o): o is { error: Error; phase: string } => 'error' in o);
    const unexpected = failures.filter((o) => !(o.error instanceof LoginStepError && o.error.status === 503)).map((o) => `${o.phase}: ${o.error.message}`);
    expect(unexpected).toEqual([]);
    expect(failures.some((o) => o.phase === 'down')).toBe(true);
    expect(count((o) => o.phase === 'up' && 'login' in o)).toBeGreaterThanOrEqual(12);
    // The gateway's 503s are problem+json DATABASE_UNAVAILABLE (the browser steps answer an HTML page).
    const exchange503 = failures.filter((o) => o.error instanceof LoginStepError && o.error.step === 'exchange');
    for (const o of exchange503) expect(o.error.message).toContain('DATABASE_UNAVAILABLE');
    // Both instances kept running: the first generation of each served logins after the restart.
    for (const instance of cluster.instances) expect(instance.generation).toBe(1);
    const afterRestart = cluster.lb.log.slice(upFrom).filter((hit) => hit.path.startsWith('/v1/auth/exchange') && hit.outcome === 200);
    expect(new Set(afterRestart.map((hit) => hit.upstream))).toEqual(new Set(['A', 'B']));

    // Nothing lost: every login that got its 200 has its session, its spent code and its platform credential.
    const logins = [...outcomes.filter((o): o is { login: CompletedLogin; phase: string } => 'login' in o).map((o) => o.login), ...recovered];
    const sessions = await cluster.db('gateway_sessions').whereIn('id', logins.map((l) => l.sessionId)).count({ n: '*' });
    expect(sessions).toEqual([{ n: logins.length }]);
    const spent = await cluster.db('handoff_codes').whereIn('code_digest', logins.map((l) => sha256(l.code))).whereNotNull('consumed_at').count({ n: '*' });
    expect(spent).toEqual([{ n: logins.length }]);
    const credentials = await cluster.db('platform_credentials').whereIn('session_id', logins.map((l) => l.sessionId)).count({ n: '*' });
    expect(credentials).toEqual([{ n: logins.length }]);
    // Nothing half written: a session always comes with the handoff code of its login (one
    // transaction), a spent code always with the platform credential (one statement).
    const { rows: orphans } = await cluster.db.raw(`
      SELECT
        (SELECT count(*) FROM gateway_sessions s WHERE NOT EXISTS (SELECT 1 FROM handoff_codes h WHERE h.session_id = s.id)) AS sessions_without_code,
        (SELECT count(*) FROM handoff_codes h WHERE h.consumed_at IS NOT NULL AND NOT EXISTS (SELECT 1 FROM platform_credentials c WHERE c.session_id = h.session_id)) AS spent_without_credential,
        (SELECT count(*) FROM auth_transactions t WHERE t.session_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM handoff_codes h WHERE h.transaction_id = t.id)) AS attached_without_code`);
    expect(orphans).toEqual([{ sessions_without_code: 0, spent_without_credential: 0, attached_without_code: 0 }]);
  }, 60_000);
});
