// Issue 13 §11: several instances on one PostgreSQL. Two real gateway instances (child
// processes running src/main.ts; see test/helpers/gatewayCluster.ts) behind a small
// load balancer that behaves like a real one (test/helpers/loadBalancer.ts), the dev identity
// provider, real HTTP: the browser follows redirects and carries cookies, the BFF exchanges.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import {
  addClusterPlatform,
  exchange,
  fullLogin,
  handoffCodeOf,
  LoginStepError,
  PLATFORM_CALLBACK,
  signInUpToCallback,
  startCluster,
  type Cluster,
  type ClusterPlatform,
  type CompletedLogin,
} from '../helpers/gatewayCluster.ts';
import { sha256 } from '../../src/security/crypto.ts';

describe('two gateway instances on one PostgreSQL', () => {
  let database: TestDatabase;
  let cluster: Cluster;
  let platform: ClusterPlatform;
  const instance = (name: string) => cluster.instances.find((i) => i.name === name)!;

  beforeAll(async () => {
    database = await createTestDatabase();
    // The grace covers the balancer's health checks (every 100 ms here), as docs/operations.md advises.
    cluster = await startCluster({ databaseUrl: database.url, env: { SHUTDOWN_GRACE_SECONDS: '1' } });
    platform = await addClusterPlatform(cluster.db);
  });
  afterAll(async () => {
    await cluster?.close();
    await database?.drop();
  });

  it('a login started on A is finished on B, and exchanged on A and on B', async () => {
    for (const exchangeOn of ['A', 'B']) {
      const hits = cluster.lb.log.length;
      cluster.lb.route((_method, path) => (path.startsWith('/v1/auth/callback') ? 'B' : path.startsWith('/v1/auth/exchange') ? exchangeOn : 'A'));
      try {
        const login = await fullLogin(cluster, platform);
        const served = cluster.lb.log.slice(hits).map((hit) => `${hit.upstream} ${hit.method} ${hit.path.split('?')[0]} ${hit.outcome}`);
        expect(served).toEqual(['A GET /v1/auth/start 302', 'B GET /v1/auth/callback 302', `${exchangeOn} POST /v1/auth/exchange 200`]);
        const session = await cluster.db('gateway_sessions').where({ id: login.sessionId }).first();
        expect(session).toBeDefined();
      } finally {
        cluster.lb.route(null);
      }
    }
  });

  it('the same callback on A and B at once: one wins, the other is refused as already used', async () => {
    for (let round = 0; round < 3; round++) {
      const { browser, callbackUrl } = await signInUpToCallback(cluster.lb.url, platform.key);
      const cookie = Object.entries(browser.cookiesFor(callbackUrl))
        .map(([name, value]) => `${name}=${value}`)
        .join('; ');
      const path = new URL(callbackUrl).pathname + new URL(callbackUrl).search;
      const answers = await Promise.all(
        ['A', 'B'].map((name) => fetch(`${instance(name).url}${path}`, { redirect: 'manual', headers: { cookie, accept: 'application/json' } })),
      );
      const statuses = answers.map((res) => res.status).sort();
      expect(statuses).toEqual([302, 404]);
      const winner = answers.find((res) => res.status === 302)!;
      expect(winner.headers.get('location')).toMatch(new RegExp(`^${PLATFORM_CALLBACK}\\?code=handoff_`));
      const loser = answers.find((res) => res.status === 404)!;
      expect(loser.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(((await loser.json()) as { code: string }).code).toBe('TRANSACTION_NOT_FOUND');
      // One session and one handoff code for the one login.
      const code = new URL(winner.headers.get('location')!).searchParams.get('code')!;
      const handoff = await cluster.db('handoff_codes').where({ code_digest: sha256(code) }).first();
      expect(handoff).toBeDefined();
      expect(await cluster.db('handoff_codes').where({ session_id: handoff.session_id }).count({ n: '*' })).toEqual([{ n: 1 }]);
    }
  });

  it('the same handoff code exchanged on A and B at once: one wins, the other gets HANDOFF_CODE_INVALID', async () => {
    for (let round = 0; round < 3; round++) {
      const { browser, callbackUrl } = await signInUpToCallback(cluster.lb.url, platform.key);
      const code = handoffCodeOf(await browser.get(callbackUrl))!;
      expect(code).toMatch(/^handoff_/);
      const answers = await Promise.all(['A', 'B'].map((name) => exchange(instance(name).url, platform, code)));
      expect(answers.map((answer) => answer.status).sort()).toEqual([200, 404]);
      expect(answers.find((answer) => answer.status === 404)!.body.code).toBe('HANDOFF_CODE_INVALID');
      const sessionId = (answers.find((answer) => answer.status === 200)!.body.session as { id: string }).id;
      // The one platform credential of that session.
      expect(await cluster.db('platform_credentials').where({ session_id: sessionId }).count({ n: '*' })).toEqual([{ n: 1 }]);
    }
  });

  it('a rolling restart under load (A drained and restarted, then B) fails no login', async () => {
    const outcomes: Array<CompletedLogin | LoginStepError | Error> = [];
    let running = true;
    const worker = async () => {
      while (running) {
        outcomes.push(await fullLogin(cluster, platform).catch((error: Error) => error));
      }
    };
    const workers = Array.from({ length: 4 }, worker);
    const completed = () => outcomes.filter((o) => !(o instanceof Error)).length;
    const waitForLogins = async (more: number) => {
      const target = completed() + more;
      while (completed() < target && outcomes.length < 10_000) await new Promise((resolve) => setTimeout(resolve, 20));
    };
    const attemptsBefore = cluster.lb.log.length;

    await waitForLogins(10);
    const servedAfterRestart = new Set<string>();
    for (const name of ['A', 'B']) {
      const restarting = instance(name);
      // SIGTERM: readiness fails at once, the listener accepts during SHUTDOWN_GRACE_SECONDS while
      // the balancer notices, then in-flight requests finish and the process exits.
      expect(await restarting.stop()).toBe(0);
      await waitForLogins(5); // served by the other instance alone
      await restarting.start();
      // Back in rotation before the next one goes: what a rolling update waits for.
      while (!cluster.lb.inRotation(name)) await new Promise((resolve) => setTimeout(resolve, 20));
      const back = cluster.lb.log.length;
      const servedSinceBack = () => cluster.lb.log.slice(back).some((a) => a.upstream === name && (a.outcome === 302 || a.outcome === 200));
      // Until it has served a step of a login (bounded by a count of logins, not by time).
      const enough = completed() + 40;
      while (!servedSinceBack() && completed() < enough) await new Promise((resolve) => setTimeout(resolve, 20));
      if (servedSinceBack()) servedAfterRestart.add(name);
      await waitForLogins(5);
    }
    running = false;
    await Promise.all(workers);

    const failures = outcomes.filter((o) => o instanceof Error).map((error) => error.message);
    expect(failures).toEqual([]);
    expect(outcomes.length).toBeGreaterThanOrEqual(30);
    expect(instance('A').generation).toBe(2);
    expect(instance('B').generation).toBe(2);
    // Each restarted instance took its share again once it was back in rotation.
    expect(servedAfterRestart).toEqual(new Set(['A', 'B']));
    const attempts = cluster.lb.log.slice(attemptsBefore);
    // The only errors the balancer met were connections refused (retried elsewhere): no request
    // was reset on a keep-alive connection closed under it.
    expect(attempts.filter((a) => typeof a.outcome === 'string' && a.outcome !== 'ECONNREFUSED')).toEqual([]);
    // Every login that succeeded has its session.
    const sessionIds = outcomes.filter((o): o is CompletedLogin => !(o instanceof Error)).map((o) => o.sessionId);
    expect(await cluster.db('gateway_sessions').whereIn('id', sessionIds).count({ n: '*' })).toEqual([{ n: sessionIds.length }]);
  }, 90_000);
});
