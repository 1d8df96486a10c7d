// OpenTelemetry traces over OTLP/HTTP (JSON), only when OTEL_EXPORTER_OTLP_ENDPOINT (or
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) is set: main.ts imports this module dynamically then, so a
// gateway without it loads no OpenTelemetry package, and every hook point is one falsy check on
// `deps.tracing`.
//
// Spans are made by hand at the points the metrics already measure (require-hook
// auto-instrumentation is unreliable under ESM):
//   - one SERVER span per HTTP request, named by its contract operationId (`http.route` the
//     path template), with the status; `/health/live` is not traced;
//   - one span per relying-party call (`oidc <call>`, as timed in gateway_provider_call_*), and
//     a CLIENT span per HTTP request it makes to the provider (`provider discovery`, `provider
//     token`, `provider jwks`, `provider userinfo`, `provider introspection`), from Node's fetch
//     diagnostics channels;
//   - one span per rate-limit check (`ratelimit <limiter>`, with its store: redis or postgresql;
//     a refusal is `error.type` RATE_LIMITED);
//   - one CLIENT span per SQL statement (knex's query events), named by its operation and first
//     table (`SELECT handoff_codes`).
// Child spans are made only inside a traced request: the purge and the outbox worker do not
// flood the collector.
//
// What never goes into a span: query strings, cookies, headers, bodies, SQL text or values,
// error messages (only codes). URLs are origin and path; a request is named by its route template.
// Every request is recorded: a client's `traceparent` is continued (same trace id) but its
// sampled flag is not obeyed, so a caller cannot keep its own requests out of the traces.

import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Span, type Tracer } from '@opentelemetry/api';
import { AlwaysOnSampler, BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';

import type { TracingConfig } from '../config/index.ts';
import type { Db } from '../db/knex.ts';
import type { RelyingParty } from '../oidc/relyingParty.ts';
import { ApiError } from '../errors/catalogue.ts';

export interface Tracing {
  /**
   * Express middleware: the request's SERVER span, active for everything the request does; its
   * ids for the request's log lines in `res.locals.traceLogFields`.
   */
  readonly middleware: RequestHandler;
  /** The relying party with one span per call (outermost, around the metrics' timing). */
  traceRelyingParty(rp: RelyingParty): RelyingParty;
  /** Runs `step` in an INTERNAL child span of the active one (none outside a traced request). */
  span<T>(name: string, attributes: Record<string, string>, step: () => Promise<T>): Promise<T>;
  /** Spans for the statements of this knex instance (once per instance). */
  traceDatabase(db: Db): void;
  /** Exports what is buffered now. */
  flush(): Promise<void>;
  /** Exports what is buffered, then stops (shutdown). */
  shutdown(): Promise<void>;
}

export interface TracingOptions {
  /** How long spans wait in the batch before export (default 2 s). */
  scheduledDelayMillis?: number;
}

/** One knex query event's fields that are read (knex 3). */
interface KnexQuery {
  __knexQueryUid?: string;
  sql?: string;
}

const SQL_OPERATION = /^\s*(?:\/\*.*?\*\/\s*)?([a-z]+)/i;
const SQL_TABLE = /\b(?:from|into|update|join|table)\s+(?:only\s+)?"?([a-z_][a-z0-9_]*)"?(?:\."?([a-z_][a-z0-9_]*)"?)?/i;

/** `SELECT handoff_codes`: the operation and the first table, never the statement or its values. */
export function summarizeSql(sql: string): { operation: string; table: string | null } {
  const operation = (SQL_OPERATION.exec(sql)?.[1] ?? 'SQL').toUpperCase();
  const match = SQL_TABLE.exec(sql);
  const table = match ? (match[2] ?? match[1]!).toLowerCase() : null;
  return { operation, table };
}

/** What an outgoing call to the provider is, from its path (Zitadel's and oidc-provider's endpoint names). */
export function providerCallKind(method: string, path: string): string {
  if (path.endsWith('/.well-known/openid-configuration')) return 'discovery';
  if (/introspect/i.test(path)) return 'introspection';
  if (/userinfo$|\/me$/i.test(path)) return 'userinfo';
  if (/revoke|revocation/i.test(path)) return 'revocation';
  if (/\/token$/i.test(path)) return 'token';
  if (method === 'GET' && /jwks|\/keys$|\/certs$/i.test(path)) return 'jwks';
  return 'http';
}

export function startTracing(config: TracingConfig, options: TracingOptions = {}): Tracing {
  const exporter = new OTLPTraceExporter({ url: config.tracesUrl, timeoutMillis: 5000 });
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: config.serviceName }),
    sampler: new AlwaysOnSampler(),
    spanProcessors: [new BatchSpanProcessor(exporter, { scheduledDelayMillis: options.scheduledDelayMillis ?? 2000, maxQueueSize: 4096 })],
  });
  // The AsyncLocalStorage context manager (a request's span stays active across its awaits)
  // and the W3C trace-context propagator.
  provider.register();
  const tracer: Tracer = provider.getTracer('auth-gateway');

  const middleware: RequestHandler = (req: Request, res: Response, next: NextFunction) => {
    if (req.path === '/health/live') return next();
    const parent = propagation.extract(ROOT_CONTEXT, req.headers);
    const span = tracer.startSpan(
      req.method,
      { kind: SpanKind.SERVER, attributes: { 'http.request.method': req.method, 'network.protocol.version': req.httpVersion } },
      parent,
    );
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      const operationId = res.locals.operationId as string | undefined;
      const route = res.locals.operationPath as string | undefined;
      span.updateName(operationId ?? `${req.method} unrouted`);
      if (operationId) span.setAttribute('gateway.operation_id', operationId);
      if (route) span.setAttribute('http.route', route);
      span.setAttribute('http.response.status_code', res.statusCode);
      if (!res.writableFinished) span.setAttribute('gateway.client_aborted', true);
      if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    };
    res.once('finish', end).once('close', end);
    // For the request's log lines (src/app.ts): the names of OpenTelemetry's log data model, so
    // that a log store links each line to its trace.
    const { traceId, spanId, traceFlags } = span.spanContext();
    res.locals.traceLogFields = { trace_id: traceId, span_id: spanId, trace_flags: traceFlags.toString(16).padStart(2, '0') };
    context.with(trace.setSpan(parent, span), next);
  };

  /** A child span of the active one, or none outside a traced request. */
  const childSpan = (name: string, kind: SpanKind, attributes: Record<string, string | number>): Span | null => {
    const active = context.active();
    if (!trace.getSpan(active)) return null;
    return tracer.startSpan(name, { kind, attributes }, active);
  };

  const withSpan = async <T>(name: string, step: () => Promise<T>, attributes: Record<string, string> = {}): Promise<T> => {
    const span = childSpan(name, SpanKind.INTERNAL, attributes);
    if (!span) return step();
    try {
      return await context.with(trace.setSpan(context.active(), span), step);
    } catch (error) {
      // The error's code only (a catalogue code), never its message.
      span.setAttribute('error.type', error instanceof ApiError ? error.code : 'error');
      if (!(error instanceof ApiError) || error.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      throw error;
    } finally {
      span.end();
    }
  };

  const traceRelyingParty = (rp: RelyingParty): RelyingParty => ({
    ...rp,
    authorizationUrl: (input) => withSpan('oidc authorizationUrl', () => rp.authorizationUrl(input)),
    completeLogin: (input) => withSpan('oidc completeLogin', () => rp.completeLogin(input)),
    verifyAccessToken: (token) => withSpan('oidc verifyAccessToken', () => rp.verifyAccessToken(token)),
    endSessionUrl: (input) => withSpan('oidc endSessionUrl', () => rp.endSessionUrl(input)),
    verifyLogoutToken: (token) => withSpan('oidc verifyLogoutToken', () => rp.verifyLogoutToken(token)),
  });

  // Outgoing HTTP (Node's fetch, undici): a CLIENT span per request made inside a traced
  // request. Ended when the response head arrives (a body never read cannot leave it open).
  const outgoing = new WeakMap<object, Span>();
  interface UndiciRequest {
    method: string;
    origin: string | URL;
    path: string;
  }
  const onCreate = (message: unknown) => {
    const request = (message as { request: UndiciRequest }).request;
    const path = request.path.split('?')[0]!;
    const kind = providerCallKind(request.method, path);
    const origin = String(request.origin);
    // The provider's endpoint paths are fixed; another service's path may carry identifiers, so only its origin.
    const span = childSpan(kind === 'http' ? `HTTP ${request.method}` : `provider ${kind}`, SpanKind.CLIENT, {
      'http.request.method': request.method,
      'url.full': kind === 'http' ? origin : `${origin}${path}`,
      'server.address': new URL(origin).hostname,
    });
    if (span) outgoing.set(request, span);
  };
  const onHeaders = (message: unknown) => {
    const { request, response } = message as { request: object; response: { statusCode: number } };
    const span = outgoing.get(request);
    if (!span) return;
    outgoing.delete(request);
    span.setAttribute('http.response.status_code', response.statusCode);
    if (response.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
  };
  const onError = (message: unknown) => {
    const { request, error } = message as { request: object; error: { code?: unknown; name?: string } };
    const span = outgoing.get(request);
    if (!span) return;
    outgoing.delete(request);
    span.setAttribute('error.type', typeof error?.code === 'string' ? error.code : (error?.name ?? 'error'));
    span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
  };
  subscribe('undici:request:create', onCreate);
  subscribe('undici:request:headers', onHeaders);
  subscribe('undici:request:error', onError);

  // SQL statements: knex emits query (sent), query-response and query-error with one uid.
  const tracedDbs = new WeakSet<Db>();
  const traceDatabase = (db: Db) => {
    if (tracedDbs.has(db)) return;
    tracedDbs.add(db);
    const open = new Map<string, Span>();
    db.on('query', (query: KnexQuery) => {
      if (!query.__knexQueryUid) return;
      const { operation, table } = summarizeSql(query.sql ?? '');
      const span = childSpan(table ? `${operation} ${table}` : operation, SpanKind.CLIENT, {
        'db.system.name': 'postgresql',
        'db.operation.name': operation,
        ...(table ? { 'db.collection.name': table } : {}),
      });
      if (span) open.set(query.__knexQueryUid, span);
    });
    db.on('query-response', (_response: unknown, query: KnexQuery) => {
      const span = query.__knexQueryUid ? open.get(query.__knexQueryUid) : undefined;
      if (!span) return;
      open.delete(query.__knexQueryUid!);
      span.end();
    });
    db.on('query-error', (error: { code?: unknown }, query: KnexQuery) => {
      const span = query.__knexQueryUid ? open.get(query.__knexQueryUid) : undefined;
      if (!span) return;
      open.delete(query.__knexQueryUid!);
      // SQLSTATE only: PostgreSQL's messages and details may quote values.
      span.setAttribute('db.response.status_code', typeof error?.code === 'string' ? error.code : 'error');
      span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    });
  };

  return {
    middleware,
    traceRelyingParty,
    traceDatabase,
    span: (name, attributes, step) => withSpan(name, step, attributes),
    flush: () => provider.forceFlush(),
    shutdown: async () => {
      unsubscribe('undici:request:create', onCreate);
      unsubscribe('undici:request:headers', onHeaders);
      unsubscribe('undici:request:error', onError);
      await provider.shutdown();
    },
  };
}
