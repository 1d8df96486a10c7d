// Issue 13 §9: OpenTelemetry traces over OTLP/HTTP when OTEL_EXPORTER_OTLP_ENDPOINT is set. A
// small OTLP/HTTP receiver (JSON, as @opentelemetry/exporter-trace-otlp-http sends) stands in
// for the collector; the gateway runs for real on real PostgreSQL with the dev identity provider,
// and a whole login (start, provider login page, callback, exchange) is driven through it. The
// spans arrive named by operationId, with provider and database spans as their children, and no
// code, state, token, secret, cookie or query string anywhere in what was exported.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import { createServer, type Server } from 'node:http';
import { once } from 'node:events';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';

import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { addPlatform, browserLogin, type Harness } from '../helpers/flowHarness.ts';
import { basicAuth } from '../helpers/oidcBrowser.ts';
import { startDevIdp, PERMISSION_SCOPES, type DevIdp } from '../../src/devidp/index.ts';
import { freePort } from '../../src/db/embedded.ts';
import { loadConfig } from '../../src/config/index.ts';
import { createLogger } from '../../src/logger.ts';
import { createApp } from '../../src/app.ts';
import { generateKeyRingSpec, parseKeyRing } from '../../src/security/crypto.ts';
import { relyingPartyFromConfig } from '../../src/oidc/relyingParty.ts';
import { providerCallKind, startTracing, summarizeSql, type Tracing } from '../../src/observability/tracing.ts';
import type { AppDeps } from '../../src/deps.ts';

const ALICE = { username: 'alice', password: 'alice-password' };

interface OtlpValue {
  stringValue?: string;
  intValue?: number | string;
  boolValue?: boolean;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: { key: string; value: OtlpValue }[];
  status?: { code?: number };
}
interface ExportRequest {
  resourceSpans: { resource: { attributes: { key: string; value: OtlpValue }[] }; scopeSpans: { spans: OtlpSpan[] }[] }[];
}

const SERVER = 2; // OTLP SpanKind
const CLIENT = 3;

const attr = (span: OtlpSpan, key: string) => {
  const value = span.attributes?.find((a) => a.key === key)?.value;
  return value?.stringValue ?? (value?.intValue !== undefined ? Number(value.intValue) : value?.boolValue);
};

describe('OpenTelemetry traces over OTLP/HTTP', { timeout: 120_000 }, () => {
  let receiver: Server;
  const bodies: string[] = [];
  const contentTypes = new Set<string>();
  const paths = new Set<string>();
  let database: TestDatabase;
  let idp: DevIdp;
  let tracing: Tracing;
  let server: Server;
  let harness: Harness;
  const clientSecret = randomBytes(24).toString('base64url');
  const RAW = Symbol('raw line');
  type LogLine = Record<string, unknown> & { req?: { id?: string }; trace_id?: string; span_id?: string; trace_flags?: string; [RAW]?: string };
  const logLines: LogLine[] = [];

  const spans = () =>
    bodies.flatMap((body) => (JSON.parse(body) as ExportRequest).resourceSpans.flatMap((rs) => rs.scopeSpans.flatMap((ss) => ss.spans)));
  const childrenOf = (parent: OtlpSpan) => spans().filter((span) => span.parentSpanId === parent.spanId && span.traceId === parent.traceId);
  /** Every span below `root`, at any depth. */
  const descendantsOf = (root: OtlpSpan): OtlpSpan[] => childrenOf(root).flatMap((child) => [child, ...descendantsOf(child)]);

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        paths.add(`${req.method} ${req.url}`);
        contentTypes.add(String(req.headers['content-type']));
        bodies.push(Buffer.concat(chunks).toString('utf8'));
        res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
      });
    });
    receiver.listen(0, '127.0.0.1');
    await once(receiver, 'listening');
    const collector = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;

    database = await createTestDatabase();
    const port = await freePort();
    const baseUrl = `http://127.0.0.1:${port}`;
    const clientId = 'gateway-tracing';
    idp = await startDevIdp({ port: 0, clients: [{ clientId, clientSecret, redirectUris: [`${baseUrl}/v1/auth/callback`], postLogoutRedirectUris: [`${baseUrl}/v1/auth/logged-out`] }] });
    const config = loadConfig({
      NODE_ENV: 'test',
      PUBLIC_BASE_URL: baseUrl,
      ACCOUNT_CENTER_URL: 'http://account.test',
      ENCRYPTION_KEYS: generateKeyRingSpec('test'),
      OIDC_ISSUER: idp.issuer,
      OIDC_CLIENT_ID: clientId,
      OIDC_CLIENT_SECRET: clientSecret,
      OIDC_SCOPES: ['openid', 'profile', 'email', ...PERMISSION_SCOPES].join(' '),
      OTEL_EXPORTER_OTLP_ENDPOINT: `${collector}/`,
      OTEL_SERVICE_NAME: 'gateway-under-test',
    });
    expect(config.tracing).toEqual({ tracesUrl: `${collector}/v1/traces`, serviceName: 'gateway-under-test' });
    tracing = startTracing(config.tracing!, { scheduledDelayMillis: 100 });
    // Every line at info, kept here (the trace ids in log lines are checked).
    const logger = createLogger('info', { write: (line: string) => void logLines.push(Object.assign(JSON.parse(line) as LogLine, { [RAW]: line })) });
    const deps: AppDeps = {
      config,
      db: database.db,
      logger,
      keyRing: parseKeyRing(config.encryptionKeys!),
      oidc: relyingPartyFromConfig(config, logger, { timeoutMs: 2000 }),
      idpAccounts: null,
      tracing,
    };
    const app = await createApp(deps, { validateResponses: true });
    server = app.listen(port, '127.0.0.1');
    await once(server, 'listening');
    harness = { database, idp, gateway: { app, deps, config }, baseUrl, close: async () => {} };
  }, 120_000);

  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
    await tracing?.shutdown();
    await idp?.close();
    await database?.drop();
    receiver?.closeAllConnections();
    await new Promise((resolve) => receiver.close(resolve));
  });

  it('the configuration follows the OpenTelemetry variables; unset, there is no tracing', () => {
    const base = { NODE_ENV: 'test' };
    expect(loadConfig(base).tracing).toBeNull();
    expect(loadConfig({ ...base, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }).tracing).toEqual({ tracesUrl: 'http://collector:4318/v1/traces', serviceName: 'auth-gateway' });
    expect(loadConfig({ ...base, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/custom' }).tracing?.tracesUrl).toBe('http://collector:4318/custom');
    expect(() => loadConfig({ ...base, OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' })).toThrow(/OTEL_EXPORTER_OTLP_ENDPOINT/);
  });

  it('a request is one SERVER span named by its operationId, with its SQL as CLIENT children', async () => {
    const res = await request(server).get('/health/ready?probe=secret-looking-value');
    expect(res.status).toBe(200);
    await tracing.flush();
    await expect.poll(() => spans().some((span) => span.name === 'getReadiness'), { timeout: 10_000 }).toBe(true);
    expect([...paths]).toContain('POST /v1/traces');
    expect([...contentTypes].every((type) => type.startsWith('application/json'))).toBe(true);
    const resource = (JSON.parse(bodies[0]!) as ExportRequest).resourceSpans[0]!.resource;
    expect(resource.attributes).toContainEqual({ key: 'service.name', value: { stringValue: 'gateway-under-test' } });

    const readiness = spans().find((span) => span.name === 'getReadiness');
    expect(readiness).toBeDefined();
    expect(readiness!.kind).toBe(SERVER);
    expect(readiness!.parentSpanId ?? '').toBe('');
    expect(attr(readiness!, 'http.route')).toBe('/health/ready');
    expect(attr(readiness!, 'http.request.method')).toBe('GET');
    expect(attr(readiness!, 'http.response.status_code')).toBe(200);
    const sql = childrenOf(readiness!);
    expect(sql.map((span) => span.name)).toContain('SELECT');
    expect(sql.find((span) => span.name === 'SELECT')!.kind).toBe(CLIENT);
    expect(attr(sql[0]!, 'db.system.name')).toBe('postgresql');
    expect(bodies.join('\n')).not.toContain('secret-looking-value');
  });

  it('a whole login: provider and database spans under start, callback and exchange; no secret exported', async () => {
    const platform = await addPlatform(harness);
    const { location, browser } = await browserLogin(harness, platform.key, ALICE);
    const handoffCode = location.searchParams.get('code')!;
    expect(handoffCode).toMatch(/^handoff_/);
    const exchanged = await request(server).post('/v1/auth/exchange').set('Authorization', basicAuth(platform.clientId, platform.clientSecret)).send({ code: handoffCode });
    expect(exchanged.status).toBe(200);
    await tracing.flush();
    // flush() sends what is queued, but a scheduled export already under way may still be on
    // its way to the receiver: wait for the three requests' spans.
    const operations = ['startAuthentication', 'handleIdpCallback', 'exchangeAuthenticationHandoff'];
    await expect.poll(() => operations.filter((name) => !spans().some((span) => span.name === name)), { timeout: 10_000 }).toEqual([]);

    const named = (name: string) => {
      const found = spans().filter((span) => span.name === name);
      expect(found.length, `span ${name}`).toBeGreaterThan(0);
      return found.at(-1)!;
    };
    const start = named('startAuthentication');
    expect(attr(start, 'http.route')).toBe('/v1/auth/start');
    expect(attr(start, 'http.response.status_code')).toBe(302);
    const callback = named('handleIdpCallback');
    expect(attr(callback, 'http.route')).toBe('/v1/auth/callback');
    const exchange = named('exchangeAuthenticationHandoff');
    expect(attr(exchange, 'http.response.status_code')).toBe(200);
    for (const server of [start, callback, exchange]) expect(server.kind).toBe(SERVER);

    // The provider: the relying party's call, and the HTTP calls it made, as descendants of the request.
    const underStart = descendantsOf(start).map((span) => span.name);
    expect(underStart).toContain('oidc authorizationUrl');
    expect(underStart).toContain('INSERT auth_transactions');
    const limit = descendantsOf(start).find((span) => span.name === 'ratelimit auth_start');
    expect(limit && attr(limit, 'gateway.rate_limit.store')).toBe('postgresql');
    const underCallback = descendantsOf(callback);
    const completeLogin = underCallback.find((span) => span.name === 'oidc completeLogin');
    expect(completeLogin).toBeDefined();
    const providerCalls = descendantsOf(completeLogin!);
    expect(providerCalls.map((span) => span.name)).toContain('provider token');
    const token = providerCalls.find((span) => span.name === 'provider token')!;
    expect(token.kind).toBe(CLIENT);
    expect(attr(token, 'http.request.method')).toBe('POST');
    expect(attr(token, 'http.response.status_code')).toBe(200);
    expect(String(attr(token, 'url.full'))).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/[^?]*token$/);
    // Discovery and the key set: fetched on first use, by whichever request came first.
    const allNames = spans().map((span) => span.name);
    expect(allNames).toContain('provider discovery');
    expect(allNames).toContain('provider jwks');
    expect(underCallback.some((span) => /^(UPDATE|INSERT|SELECT|WITH) /.test(span.name))).toBe(true);
    expect(descendantsOf(exchange).some((span) => span.kind === CLIENT && attr(span, 'db.system.name') === 'postgresql')).toBe(true);

    // Nothing secret, and no query string, anywhere in what was exported.
    const exported = bodies.join('\n');
    const cookies = Object.values(browser.cookiesFor(`${harness.baseUrl}/`));
    const secrets = [handoffCode, platform.clientSecret, clientSecret, ALICE.password, exchanged.body.session.gatewayToken, ...cookies];
    for (const secret of secrets) {
      expect(secret.length).toBeGreaterThan(8);
      expect(exported).not.toContain(secret);
    }
    for (const span of spans()) {
      for (const { key, value } of span.attributes ?? []) {
        expect(String(value.stringValue ?? ''), `${span.name} ${key}`).not.toMatch(/[?&](code|state|session_state|iss)=|Bearer |Basic |eyJ[A-Za-z0-9_-]+\./);
      }
    }
    expect(exported).not.toMatch(/"url\.full","value":\{"stringValue":"[^"]*\?/);
  });

  it("a caller's traceparent is continued, but its not-sampled flag cannot hide the request", async () => {
    const traceId = randomBytes(16).toString('hex');
    const res = await request(server).get('/health/ready').set('traceparent', `00-${traceId}-${randomBytes(8).toString('hex')}-00`);
    expect(res.status).toBe(200);
    await tracing.flush();
    const continued = spans().find((span) => span.name === 'getReadiness' && span.traceId === traceId);
    expect(continued).toBeDefined();
    expect(childrenOf(continued!).length).toBeGreaterThan(0);
  });

  it("a request's log lines carry the trace and span ids of its SERVER span", async () => {
    const res = await request(server).get('/v1/auth/start?platformKey=NO_SUCH_PLATFORM&returnTo=https%3A%2F%2Fexample.test%2F');
    const requestId = String(res.headers['x-request-id']);
    await tracing.flush();
    await expect.poll(() => logLines.some((line) => line.req?.id === requestId), { timeout: 10_000 }).toBe(true);
    const access = logLines.find((line) => line.req?.id === requestId)!;
    expect(access).toMatchObject({ trace_id: expect.stringMatching(/^[0-9a-f]{32}$/), span_id: expect.stringMatching(/^[0-9a-f]{16}$/), trace_flags: '01' });
    await expect.poll(() => spans().some((span) => span.spanId === access.span_id), { timeout: 10_000 }).toBe(true);
    const span = spans().find((candidate) => candidate.spanId === access.span_id)!;
    expect({ name: span.name, kind: span.kind, traceId: span.traceId }).toEqual({ name: 'startAuthentication', kind: SERVER, traceId: access.trace_id });
    // Once per line (pino would write a key given twice twice).
    expect(access[RAW]!.split('"trace_id"').length).toBe(2);
  });

  it('summarizes SQL by operation and table, never its text', () => {
    expect(summarizeSql('select "id" from "handoff_codes" where "code_digest" = $1')).toEqual({ operation: 'SELECT', table: 'handoff_codes' });
    expect(summarizeSql('UPDATE auth_transactions SET consumed_at = now() WHERE id = ?')).toEqual({ operation: 'UPDATE', table: 'auth_transactions' });
    expect(summarizeSql('insert into "public"."users" ("sub") values ($1)')).toEqual({ operation: 'INSERT', table: 'users' });
    expect(summarizeSql('SELECT 1')).toEqual({ operation: 'SELECT', table: null });
  });

  it('names provider calls by endpoint, for the dev provider and Zitadel alike', () => {
    expect(providerCallKind('GET', '/.well-known/openid-configuration')).toBe('discovery');
    expect(providerCallKind('POST', '/token')).toBe('token');
    expect(providerCallKind('POST', '/oauth/v2/token')).toBe('token');
    expect(providerCallKind('GET', '/jwks')).toBe('jwks');
    expect(providerCallKind('GET', '/oauth/v2/keys')).toBe('jwks');
    expect(providerCallKind('GET', '/oidc/v1/userinfo')).toBe('userinfo');
    expect(providerCallKind('POST', '/oauth/v2/introspect')).toBe('introspection');
    expect(providerCallKind('POST', '/token/introspection')).toBe('introspection');
    expect(providerCallKind('POST', '/v2/users/123/password')).toBe('http');
  });
});
