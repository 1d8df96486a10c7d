// `npm run bench`: the real gateway against a bare node:http + pg server doing the
// same SQL, measured in the same run: GET /v1/auth/start and POST /v1/auth/exchange
// with autocannon, GET /v1/auth/callback and the whole login (start → provider →
// callback → exchange) with this driver's own HTTP client. Prints req/s (logins/s),
// p50 and p99, CPU of the server and of PostgreSQL per request and per login, the
// ratio to bare, every target of issue 15 with PASS or FAIL, and the gateway's RSS;
// writes bench-results/latest.json, and exits 1 when a gateway endpoint is below
// BENCH_TARGET (0.7) of its bare baseline. Method: docs/benchmarks.md.
//
// Self-contained: an embedded PostgreSQL in a temporary folder, a minimal OpenID
// provider in its own process (provider.ts: approves at once, RS256 tokens, JWKS;
// its CPU is accounted apart), a platform created through the registry service,
// and the two servers as child processes. The load generator stays in this
// process: in-process servers would share their event loop with it.
//
// Knobs (environment): BENCH_DURATION (s, 10), BENCH_WARMUP (s, 2),
// BENCH_CONNECTIONS (32), BENCH_ROUNDS (3), BENCH_POOL (10), BENCH_TARGET (0.7),
// BENCH_ENDPOINTS (start,exchange,callback,login), BENCH_USERS (concurrent browsers
// of the callback and login runs, 8), BENCH_CALLBACKS (callbacks per measured
// callback run, 2000), BENCH_MEMORY_LOGINS (extra whole logins on the gateway; BENCH_MEMORY_SAMPLE: its memory every that many
// before its RSS is read again, 0), BENCH_PREPARED (false: both servers without
// prepared statements, true), BENCH_LOG_LEVEL (the gateway's LOG_LEVEL, info),
// BENCH_GATEWAY_LAYER (operations: the gateway's login operations without its HTTP
// layer, operationsOnly.ts; app), BENCH_CPU_PROF (gateway|bare|both: write V8 CPU profiles to
// bench-results/profiles; the numbers of such a run are not representative).
//
// `npm run bench -- --compare <git ref>`: the whole login of this checkout against the
// gateway built from <ref>, in one run, as ratios of CPU and PostgreSQL time per login
// (compare.ts; the regression guard of docs/development.md).

import { randomBytes } from 'node:crypto';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startEmbeddedDatabase, type EmbeddedDatabase } from '../../src/db/embedded.ts';
import { createDb, migrateLatest, type Db } from '../../src/db/knex.ts';
import { createPlatform, CLI_ACTOR } from '../../src/services/registry/index.ts';
import { findPlatformByKey } from '../../src/services/registry/platformsRepository.ts';
import { upsertUserFromIdp } from '../../src/services/account/usersRepository.ts';
import { generateKeyRingSpec, parseKeyRing } from '../../src/security/crypto.ts';
import { generateSigningKeySpec } from '../../src/security/signingKeys.ts';
import type { ServerSettings } from './protocol.ts';
import { concurrently, request, wholeLogin } from './browser.ts';
import { serverPids } from './cpu.ts';
import { runEoc, summariseEoc, type EocRun } from './eocRuns.ts';
import { buildBase, compareRefFromArgs, runCompare } from './compare.ts';
import { checkEquivalence } from './equivalence.ts';
import { summarise, table, targetsOf, type EndpointSummary } from './report.ts';
import { runOnce } from './rounds.ts';
import { buildGatewayForBench, heapAfterGc, makeProviderCertificate, memoryAfterGc, mb, rssBytes, startChild, startProvider, startServer, stopServer } from './servers.ts';
import {
  began, CALLBACK_URL, DISTURBED_SHARE, HANDOFF_VERIFIER, ENDPOINT_LABEL, EXPECTED_STATUS, HERE, MAX_BAD_SHARE, PLATFORM_KEY, PLATFORM_ROOT, progress,
  PROVIDER_SUB, RESULTS_DIR, RETURN_TO, ROOT, SCOPES, SETTINGS, type Context, type RunRecord, type Server, type Side,
} from './settings.ts';


// ---------------------------------------------------------------- main

async function main(): Promise<number> {
  const compareRef = compareRefFromArgs();
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
    // The provider speaks https as in production; every server started below trusts its certificate.
    const tls = makeProviderCertificate(tempDir);
    process.env.NODE_EXTRA_CA_CERTS = tls.cert;
    const provider = await startProvider({ ...oidcClient, redirectUri: CALLBACK_URL, sub: PROVIDER_SUB, email: 'bench@example.test', tls });
    serverPids.set(provider.child.pid!, 'provider');
    cleanups.push(() => stopServer(provider));
    const issuer = provider.baseUrl;
    const providerAgent = new https.Agent({ keepAlive: true, maxSockets: SETTINGS.users, ca: await readFile(tls.cert) });
    const discovery = JSON.parse((await request(providerAgent, `${issuer}/.well-known/openid-configuration`)).body) as { authorization_endpoint: string };

    const created = await createPlatform(
      db,
      {
        platformKey: PLATFORM_KEY,
        displayName: 'Benchmark platform',
        callbackUrl: 'https://platform.bench.test/auth/callback',
        allowedReturnUrls: [PLATFORM_ROOT],
        defaultOnboardingMode: 'none',
        centralOnboardingEnabled: true,
        // The registry's default, as in production: every start sends a handoff challenge and
        // every exchange its verifier (browser.ts), on both servers.
        handoffChallengeRequired: true,
      },
      CLI_ACTOR,
    );
    const platformRow = await findPlatformByKey(db, PLATFORM_KEY);
    const user = await upsertUserFromIdp(db, {
      sub: PROVIDER_SUB,
      email: 'bench@example.test',
      emailVerified: true,
      displayName: 'Bench User',
      givenName: 'Bench',
      familyName: 'User',
    });

    const encryptionKeys = generateKeyRingSpec('bench');
    const gatewaySigningKeys = generateSigningKeySpec('bench');
    const serverSettings: ServerSettings = {
      databaseUrl,
      poolSize: SETTINGS.poolSize,
      logLevel: SETTINGS.logLevel,
      gatewayLayer: SETTINGS.gatewayLayer,
      issuer,
      oidcClientId: oidcClient.clientId,
      oidcClientSecret: oidcClient.clientSecret,
      encryptionKeys,
      gatewaySigningKeys,
      publicBaseUrl: 'https://gateway.bench.test',
      accountCenterUrl: 'https://account.bench.test',
      callbackUrl: CALLBACK_URL,
      scopes: SCOPES,
      preparedStatements: SETTINGS.preparedStatements,
    };
    const gatewayScript = await buildGatewayForBench(path.join(tempDir, 'gateway'));
    const base = compareRef === null ? null : await buildBase(compareRef, path.join(tempDir, 'base'));
    progress('gateway compiled to JavaScript, as the image runs it');
    const servers = {} as Record<Side, Server>;
    for (const side of base ? (['bare', 'gateway', 'base'] as const) : (['bare', 'gateway'] as const)) {
      servers[side] = await startServer(side, serverSettings, side === 'bare' ? path.join(HERE, 'bare.ts') : side === 'base' ? base!.script : gatewayScript, side === 'base' ? base!.runtimeEnv : undefined);
      serverPids.set(servers[side].child.pid!, side);
      cleanups.push(() => stopServer(servers[side]));
    }
    progress(`servers up: bare ${servers.bare.baseUrl}, gateway ${servers.gateway.baseUrl}; provider ${issuer}`);
    const rssAfterBoot = await rssBytes(servers.gateway.child.pid!);
    let rssWarm: { bytes: number | null; heap: number; logins: number } | null = null;
    const agents = {
      bare: new http.Agent({ keepAlive: true, maxSockets: SETTINGS.users }),
      gateway: new http.Agent({ keepAlive: true, maxSockets: SETTINGS.users }),
      provider: providerAgent,
      base: new http.Agent({ keepAlive: true, maxSockets: SETTINGS.users }),
      eoc: new http.Agent({ keepAlive: true, maxSockets: SETTINGS.users }),
    };
    let eoc: Server | null = null;
    if (SETTINGS.eoc && !base) {
      eoc = await startChild('eoc', 'BENCH_SERVER_SETTINGS', serverSettings);
      serverPids.set(eoc.child.pid!, 'eoc');
      cleanups.push(() => stopServer(eoc!));
    }
    cleanups.push(async () => Object.values(agents).forEach((agent) => agent.destroy()));

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
        handoffVerifier: HANDOFF_VERIFIER,
      },
      platform: { clientId: created.platform.clientId!, clientSecret: created.clientSecret },
      authorizationEndpoint: discovery.authorization_endpoint,
      fastestExchange: 0,
      agents,
      gatewayLogins: 0,
      eoc,
    };
    await checkEquivalence(ctx);
    progress('both servers answer alike (authorize URL parameters, exchange body, 404 on reuse, 401 on a wrong secret; a whole login, a replayed callback refused)');
    if (base) return await runCompare(ctx, base);

    const records: RunRecord[] = [];
    for (const endpoint of SETTINGS.endpoints) {
      for (const side of ['bare', 'gateway'] as const) records.push(await runOnce(ctx, endpoint, side, 'warmup', 0));
      // Warm: after the first warm-up of logins on the gateway (compiled code, grown heap, full pool).
      if ((endpoint === 'callback' || endpoint === 'login') && rssWarm === null) {
        rssWarm = { bytes: await rssBytes(servers.gateway.child.pid!), heap: await heapAfterGc(servers.gateway), logins: ctx.gatewayLogins };
      }
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
    // express-openid-connect: its /login (the start) and its whole login, same provider, same rounds.
    const eocRuns: EocRun[] = [];
    if (ctx.eoc) {
      for (const kind of ['start', 'login'] as const) {
        if (!SETTINGS.endpoints.includes(kind)) continue;
        eocRuns.push(await runEoc(ctx, kind, 'warmup', 0));
        for (let round = 1; round <= SETTINGS.rounds; round++) eocRuns.push(await runEoc(ctx, kind, 'measured', round));
      }
    }
    // Memory: the gateway's RSS after boot and now, after every login of the run (and
    // BENCH_MEMORY_LOGINS more, when asked for a long run). The warm reading taken after the first
    // warm-up of logins comes while RSS still climbs to its plateau; when the memory logins reach
    // past BENCH_MEMORY_WARMUP, the verdict's warm reading is the lowest RSS read from there on.
    const rssEarly = rssWarm;
    if (SETTINGS.memoryLogins > 0) {
      progress(`${SETTINGS.memoryLogins} more whole logins on the gateway for its memory (not measured)`);
      // BENCH_MEMORY_SAMPLE: the memory along the run, every that many logins (after a full GC).
      const step = SETTINGS.memorySample > 0 ? SETTINGS.memorySample : SETTINGS.memoryLogins;
      const warmAt = SETTINGS.memoryWarmup > 0 && SETTINGS.memoryWarmup < SETTINGS.memoryLogins ? SETTINGS.memoryWarmup : null;
      for (let done = 0; done < SETTINGS.memoryLogins;) {
        // Stop at the warm-up's end too, so the first warm reading is taken exactly there.
        const until = warmAt !== null && done < warmAt ? Math.min(done + step, warmAt) : done + step;
        const count = Math.min(until, SETTINGS.memoryLogins) - done;
        const extra = await concurrently(SETTINGS.users, { count }, () => wholeLogin(ctx, 'gateway'));
        done += count;
        ctx.gatewayLogins += extra.ok;
        if (extra.failed > 0) progress(`  ${extra.failed} of them failed: ${JSON.stringify(extra.failures)}`);
        let m: Awaited<ReturnType<typeof memoryAfterGc>> | null = null;
        if (SETTINGS.memorySample > 0) {
          m = await memoryAfterGc(servers.gateway, SETTINGS.memorySampleGc);
          progress(`  memory after ${ctx.gatewayLogins} logins${m.afterGc ? ' (after a full GC)' : ''}: RSS ${mb(m.rss)}, heap ${mb(m.heapUsed)} used of ${mb(m.heapTotal)}, external ${mb(m.external)}, arrayBuffers ${mb(m.arrayBuffers)}`);
        }
        // Warm readings: at the warm-up's end and at every sample after it but the last (the end reading).
        if (warmAt !== null && done >= warmAt && done < SETTINGS.memoryLogins) {
          const bytes = m?.rss ?? (await rssBytes(servers.gateway.child.pid!));
          if (rssWarm === rssEarly || (bytes !== null && rssWarm?.bytes != null && bytes < rssWarm.bytes)) {
            rssWarm = { bytes, heap: m?.afterGc ? m.heapUsed : await heapAfterGc(servers.gateway), logins: ctx.gatewayLogins };
          }
        }
      }
    }
    const memory = {
      rssAfterBootBytes: rssAfterBoot,
      rssEarlyBytes: rssEarly?.bytes ?? null,
      loginsWhenEarly: rssEarly?.logins ?? 0,
      rssWarmBytes: rssWarm?.bytes ?? null,
      loginsWhenWarm: rssWarm?.logins ?? 0,
      // BENCH_MEMORY_WARMUP=0: the early reading is the warm one (the driver's earlier verdict).
      warmAfterWarmup: rssWarm !== rssEarly || SETTINGS.memoryWarmup === 0,
      rssAfterLoginsBytes: await rssBytes(servers.gateway.child.pid!),
      logins: ctx.gatewayLogins,
      heapWarmBytes: rssWarm?.heap ?? null,
      heapAfterLoginsBytes: await heapAfterGc(servers.gateway),
    };
    const eocSummary = { start: summariseEoc(eocRuns, 'start'), login: summariseEoc(eocRuns, 'login') };
    const targets = targetsOf(summaries, eocSummary, memory);
    const totalSeconds = (Date.now() - began) / 1000;
    const disturbed = records.some((r) => r.phase === 'measured' && r.foreignCpu !== null && r.foreignCpu > DISTURBED_SHARE);
    const cpus = os.cpus();
    const machine = `${cpus.length} CPUs (${cpus[0]?.model.trim() ?? 'unknown'}), Node ${process.version}, PostgreSQL ${postgresVersion}`;

    process.stdout.write(
      `\nGateway vs bare node:http + pg, same SQL, same run: ${machine}\n` +
        `autocannon ${SETTINGS.connections} connections, ${SETTINGS.rounds} rounds x ${SETTINGS.durationSeconds} s per server (alternating bare, gateway), ` +
        `${SETTINGS.warmupSeconds} s warm-up each, pool ${SETTINGS.poolSize}, gateway LOG_LEVEL ${SETTINGS.logLevel}, ` +
        `prepared statements ${SETTINGS.preparedStatements ? 'on' : 'off'}; callback runs: ${SETTINGS.callbacks} callbacks, login runs: ${SETTINGS.durationSeconds} s, ${SETTINGS.users} browsers at once\n\n` +
        `${table(summaries)}\n\n` +
        `req/s       answers with the expected status (${EXPECTED_STATUS.start} for start and callback, ${EXPECTED_STATUS.exchange} for exchange) per second, all rounds together;\n` +
        `            for the whole login: complete logins (start, provider, callback, exchange) per second, ${SETTINGS.users} browsers at once\n` +
        `p50, p99    latency percentiles (autocannon for start and exchange; this driver for callback, ${SETTINGS.users} browsers at once, and login), mean over the rounds\n` +
        `CPU µs/req  CPU time of the measured server process per answer (per login for the whole login); the provider's is not included\n` +
        `PG µs/req   CPU time of PostgreSQL (postmaster and all its backends) per answer or login: the PostgreSQL time of the work\n` +
        `bad         answers with another status, plus connection errors (a round with more than ${100 * MAX_BAD_SHARE}% is invalid)\n` +
        `others      most CPU that processes outside the benchmark, or the hypervisor, took during a round (share of all ${cpus.length} CPUs)\n` +
        (eocSummary.start || eocSummary.login
          ? `\nexpress-openid-connect (stateless, no database), same provider:` +
            (eocSummary.start ? ` GET /login ${eocSummary.start.perSecond.toFixed(0)} req/s, p50 ${eocSummary.start.p50Ms.toFixed(1)} ms, p99 ${eocSummary.start.p99Ms.toFixed(1)} ms, CPU ${eocSummary.start.cpuUs?.toFixed(0) ?? 'n/a'} µs/req;` : '') +
            (eocSummary.login ? ` whole login (3 requests) ${eocSummary.login.perSecond.toFixed(0)} logins/s, p50 ${eocSummary.login.p50Ms.toFixed(1)} ms, p99 ${eocSummary.login.p99Ms.toFixed(1)} ms, CPU ${eocSummary.login.cpuUs?.toFixed(0) ?? 'n/a'} µs/login` : '') +
            '\n'
          : '') +
        `\nPerformance targets:\n${targets.map((t) => `  ${t.status.padEnd(12)} ${t.name}: ${t.measured}`).join('\n')}\n` +
        `\nGateway memory (RSS): ${mb(memory.rssAfterBootBytes)} after boot, ${mb(memory.rssEarlyBytes)} after the first warm-up (${memory.loginsWhenEarly} logins), ` +
        `${mb(memory.rssWarmBytes)} warm (${SETTINGS.memoryWarmup === 0 ? 'the first warm-up\'s reading, BENCH_MEMORY_WARMUP=0' : memory.warmAfterWarmup ? `lowest from ${SETTINGS.memoryWarmup} memory logins on, at ${memory.loginsWhenWarm} logins` : `${memory.loginsWhenWarm} logins: no warm-up, BENCH_MEMORY_LOGINS <= BENCH_MEMORY_WARMUP`}), ` +
        `${mb(memory.rssAfterLoginsBytes)} after ${memory.logins} logins and every other request of the run; ` +
        `heap after a full GC ${mb(memory.heapWarmBytes)} warm, ${mb(memory.heapAfterLoginsBytes)} at the end\n` +
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
          targets,
          memory,
          expressOpenidConnect: { summary: eocSummary, runs: eocRuns },
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
