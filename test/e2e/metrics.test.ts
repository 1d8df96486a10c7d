// Issue 13 §9: Prometheus metrics. A real login through the dev identity provider, a refused
// callback and a handoff exchange over HTTP, then the metrics listener is scraped (its own
// port, as METRICS_PORT runs it) and every counter must have moved by exactly what happened.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import { startHarness, addPlatform, browserLogin, type Harness, type TestPlatform } from '../helpers/flowHarness.ts';
import { OidcBrowser } from '../helpers/oidcBrowser.ts';
import { createTestApp } from '../helpers/app.ts';
import { startMetricsServer, type Metrics } from '../../src/observability/metrics.ts';
import { schedulePurge } from '../../src/services/maintenance/maintenance.ts';
import { loadConfig } from '../../src/config/index.ts';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../src/db/embedded.ts';
import { generateKeyRingSpec } from '../../src/security/crypto.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

const ALICE = { username: 'alice', password: 'alice-password' };

/** One sample of the text exposition: `name{a="x",b="y"} 3` (0 when the series does not exist yet). */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found = Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]));
    const wanted = Object.entries(labels);
    if (wanted.length === Object.keys(found).length && wanted.every(([key, value]) => found[key] === value)) return Number(match[3]);
  }
  return 0;
}

describe('metrics (issue 13 §9)', () => {
  let harness: Harness;
  let platform: TestPlatform;
  let metrics: Metrics;
  let metricsServer: Server;
  let metricsUrl: string;

  beforeAll(async () => {
    harness = await startHarness();
    platform = await addPlatform(harness);
    metrics = harness.gateway.app.locals.metrics as Metrics;
    metricsServer = await startMetricsServer(metrics, 0, '127.0.0.1');
    metricsUrl = `http://127.0.0.1:${(metricsServer.address() as AddressInfo).port}/metrics`;
  });
  afterAll(async () => {
    metricsServer?.closeAllConnections();
    await new Promise((resolve) => metricsServer?.close(resolve));
    await harness?.close();
  });

  const scrape = async () => {
    const res = await fetch(metricsUrl);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    return res.text();
  };

  it('a login, a refused callback and an exchange move each counter by exactly what happened', async () => {
    const before = await scrape();
    const delta = (after: string, name: string, labels: Record<string, string> = {}) => sample(after, name, labels) - sample(before, name, labels);

    // One login to the platform's callback with a handoff code.
    const { location } = await browserLogin(harness, platform.key, ALICE);
    const code = location.searchParams.get('code')!;
    expect(code).toMatch(/^handoff_/);
    // One refused callback: a state no transaction has.
    const refused = await new OidcBrowser().get(`${harness.baseUrl}/v1/auth/callback?state=unknown-state-${Date.now()}&code=x`, { accept: 'application/json' });
    expect(refused.status).toBe(404);
    // One exchange, then the same code again (refused), and a route the contract does not have.
    const exchange = () => request(harness.gateway.app).post('/v1/auth/exchange').set('Authorization', platform.basic).send({ code });
    await exchange().expect(200);
    await exchange().expect(404);
    await request(harness.gateway.app).get('/no/such/route/42').expect(404);

    const after = await scrape();
    expect(delta(after, 'gateway_logins_total', { outcome: 'success' })).toBe(1);
    expect(delta(after, 'gateway_logins_total', { outcome: 'TRANSACTION_NOT_FOUND' })).toBe(1);
    expect(delta(after, 'gateway_handoffs_issued_total')).toBe(1);
    expect(delta(after, 'gateway_handoffs_exchanged_total')).toBe(1);
    expect(delta(after, 'gateway_handoffs_refused_total', { code: 'HANDOFF_CODE_INVALID' })).toBe(1);

    // Requests by operationId and status, with their latency histogram.
    expect(delta(after, 'gateway_http_requests_total', { operation_id: 'startAuthentication', status: '302' })).toBe(1);
    expect(delta(after, 'gateway_http_requests_total', { operation_id: 'handleIdpCallback', status: '302' })).toBe(1);
    expect(delta(after, 'gateway_http_requests_total', { operation_id: 'handleIdpCallback', status: '404' })).toBe(1);
    expect(delta(after, 'gateway_http_requests_total', { operation_id: 'exchangeAuthenticationHandoff', status: '200' })).toBe(1);
    expect(delta(after, 'gateway_http_requests_total', { operation_id: 'exchangeAuthenticationHandoff', status: '404' })).toBe(1);
    expect(delta(after, 'gateway_http_request_duration_seconds_count', { operation_id: 'exchangeAuthenticationHandoff', status: '200' })).toBe(1);
    expect(delta(after, 'gateway_http_request_duration_seconds_bucket', { operation_id: 'exchangeAuthenticationHandoff', status: '200', le: '+Inf' })).toBe(1);
    // An unrouted path is "unknown", never the path itself (bounded cardinality).
    expect(delta(after, 'gateway_http_requests_total', { operation_id: 'unknown', status: '404' })).toBe(1);
    expect(after).not.toContain('/no/such/route');

    // Provider calls: one authorize URL and one code exchange, both successful.
    expect(delta(after, 'gateway_provider_call_duration_seconds_count', { call: 'authorizationUrl', outcome: 'success' })).toBe(1);
    expect(delta(after, 'gateway_provider_call_duration_seconds_count', { call: 'completeLogin', outcome: 'success' })).toBe(1);
    expect(delta(after, 'gateway_provider_call_duration_seconds_count', { call: 'completeLogin', outcome: 'error' })).toBe(0);
  });

  it('exports the database pool use, read at scrape time', async () => {
    const text = await scrape();
    expect(sample(text, 'gateway_db_pool_max')).toBe(10);
    for (const name of ['gateway_db_pool_used', 'gateway_db_pool_free', 'gateway_db_pool_pending_acquires', 'gateway_db_pool_pending_creates']) {
      expect(text).toMatch(new RegExp(`^${name} \\d+$`, 'm'));
    }
    expect(sample(text, 'gateway_db_pool_used') + sample(text, 'gateway_db_pool_free')).toBeLessThanOrEqual(10);
  });

  it('counts purge runs, their duration, and the expired handoff codes they delete', async () => {
    // A handoff code long expired (past the purge's day of grace), exchanged or not.
    const { location } = await browserLogin(harness, platform.key, ALICE);
    const codes = await harness.database.db('handoff_codes').update({ expires_at: harness.database.db.raw(`now() - interval '2 days'`) });
    expect(codes).toBeGreaterThanOrEqual(1);
    expect(location.searchParams.get('code')).toMatch(/^handoff_/);
    const before = await scrape();
    const stop = schedulePurge({ ...harness.gateway.deps, metrics });
    try {
      await expect.poll(async () => sample(await scrape(), 'gateway_purge_runs_total', { outcome: 'success' }), { timeout: 10_000 }).toBe(
        sample(before, 'gateway_purge_runs_total', { outcome: 'success' }) + 1,
      );
    } finally {
      stop();
    }
    const after = await scrape();
    expect(sample(after, 'gateway_handoffs_expired_total') - sample(before, 'gateway_handoffs_expired_total')).toBe(codes);
    expect(sample(after, 'gateway_purged_rows_total', { kind: 'handoffCodes' }) - sample(before, 'gateway_purged_rows_total', { kind: 'handoffCodes' })).toBe(codes);
    expect(sample(after, 'gateway_purge_duration_seconds_count', { outcome: 'success' }) - sample(before, 'gateway_purge_duration_seconds_count', { outcome: 'success' })).toBe(1);
    expect(sample(after, 'gateway_purge_runs_total', { outcome: 'failure' })).toBe(0);
    expect(sample(after, 'gateway_purge_last_success_timestamp_seconds')).toBeGreaterThan(Date.now() / 1000 - 60);
  });

  it('counts rate-limit refusals by limiter', async () => {
    const before = sample(await scrape(), 'gateway_rate_limit_refusals_total', { limiter: 'test_limiter' });
    metrics.rateLimitRefused('test_limiter');
    expect(sample(await scrape(), 'gateway_rate_limit_refusals_total', { limiter: 'test_limiter' }) - before).toBe(1);
  });

  it('the metrics listener is not the public port, and serves nothing but /metrics', async () => {
    expect(new URL(metricsUrl).port).not.toBe(new URL(harness.baseUrl).port);
    expect((await fetch(new URL('/', metricsUrl))).status).toBe(404);
    expect((await fetch(new URL('/v1/me', metricsUrl))).status).toBe(404);
    expect((await fetch(metricsUrl, { method: 'POST' })).status).toBe(405);
    // Each registry is its own: no process metrics unless asked for (main.ts asks).
    expect(await scrape()).not.toContain('process_cpu_user_seconds_total');
  });

  it('the public port has no /metrics without METRICS_TOKEN (the contract 404), and it is not in the contract', async () => {
    const res = await fetch(`${harness.baseUrl}/metrics`, { headers: { accept: 'application/json' } });
    expect(res.status).toBe(404);
    expect(await res.text()).not.toContain('gateway_');
    const contract = await request(harness.gateway.app).get('/openapi.json').expect(200);
    expect(Object.keys(contract.body.paths)).not.toContain('/metrics');
  });

  it('with METRICS_TOKEN the public port serves /metrics to that Bearer token only', async () => {
    const token = 'metrics-token-0123456789abcdefghijklmnopqrstuvwxyz';
    const { app } = await createTestApp({ db: harness.database.db, env: { METRICS_TOKEN: token } });
    const anonymous = await request(app).get('/metrics').expect(401);
    expect(anonymous.headers['www-authenticate']).toMatch(/^Bearer/);
    expect(anonymous.text).not.toContain('gateway_');
    await request(app).get('/metrics').set('Authorization', 'Bearer wrong-token-0123456789abcdefghijklmnopqrstuv').expect(401);
    await request(app).get('/metrics').set('Authorization', `Basic ${Buffer.from(`x:${token}`).toString('base64')}`).expect(401);
    const ok = await request(app).get('/metrics').set('Authorization', `Bearer ${token}`).expect(200);
    expect(ok.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(ok.text).toContain('# TYPE gateway_http_requests_total counter');
    // The refused scrapes were counted as requests outside the contract.
    expect(sample(ok.text, 'gateway_http_requests_total', { operation_id: 'unknown', status: '401' })).toBe(3);
  });

  it('the service (src/main.ts) serves /metrics with the process metrics on METRICS_PORT only, and closes it on SIGTERM', async () => {
    const [port, metricsPort] = [await freePort(), await freePort()];
    const child = spawn(process.execPath, ['src/main.ts'], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        NODE_ENV: 'development',
        LOG_LEVEL: 'info',
        PORT: String(port),
        METRICS_PORT: String(metricsPort),
        DATABASE_URL: harness.database.url,
        ENCRYPTION_KEYS: generateKeyRingSpec('m'),
        OIDC_ISSUER: harness.idp.issuer,
        OIDC_CLIENT_ID: 'metrics-test',
        OIDC_CLIENT_SECRET: 'metrics-test-secret',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const closed = new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.on('close', (code, signal) => resolve([code, signal])));
    const guard = setTimeout(() => child.kill('SIGKILL'), 25_000);
    try {
      await expect.poll(() => output, { timeout: 20_000 }).toContain('auth-gateway is listening');
      await expect.poll(() => output, { timeout: 5_000 }).toContain('metrics listener');
      expect((await fetch(`http://127.0.0.1:${port}/health/live`)).status).toBe(200);
      expect((await fetch(`http://127.0.0.1:${port}/metrics`)).status).toBe(404);
      const scraped = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
      expect(scraped.status).toBe(200);
      const text = await scraped.text();
      expect(text).toContain('process_cpu_user_seconds_total');
      expect(text).toContain('nodejs_eventloop_lag_seconds');
      expect(sample(text, 'gateway_http_requests_total', { operation_id: 'getLiveness', status: '200' })).toBe(1);
      expect(sample(text, 'gateway_http_requests_total', { operation_id: 'unknown', status: '404' })).toBe(1);
      expect(sample(text, 'gateway_db_pool_max')).toBeGreaterThan(0);
      child.kill('SIGTERM');
      // 0 once its shutdown handler is installed (after the last boot step, which logs nothing);
      // killed by the signal itself if it came earlier. Either way the metrics listener is gone.
      const [code, signal] = await closed;
      expect(code === 0 || signal === 'SIGTERM', `exit ${code} ${signal}\n${output}`).toBe(true);
      await expect(fetch(`http://127.0.0.1:${metricsPort}/metrics`)).rejects.toThrow();
    } finally {
      clearTimeout(guard);
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  }, 40_000);

  it('config: METRICS_PORT and METRICS_TOKEN are validated', () => {
    const base = { NODE_ENV: 'test' };
    expect(loadConfig(base).metricsPort).toBeNull();
    expect(loadConfig(base).metricsToken).toBeNull();
    expect(loadConfig({ ...base, METRICS_PORT: '9464' }).metricsPort).toBe(9464);
    expect(() => loadConfig({ ...base, METRICS_PORT: '0' })).toThrow(/METRICS_PORT=0 is refused/);
    expect(() => loadConfig({ ...base, METRICS_PORT: 'abc' })).toThrow(/METRICS_PORT=abc is refused/);
    expect(() => loadConfig({ ...base, PORT: '9464', METRICS_PORT: '9464' })).toThrow(/METRICS_PORT=9464 is refused: the metrics listener needs a port of its own/);
    expect(() => loadConfig({ ...base, METRICS_TOKEN: 'short' })).toThrow(/METRICS_TOKEN is refused: must be 32..256/);
  });
});
