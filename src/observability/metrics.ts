// Prometheus metrics (issue 13 §9) with prom-client. Every Metrics owns its own Registry, never
// prom-client's global one: tests build many apps in one process, and a second registration of
// the same metric name in one registry throws. The service builds one Metrics at boot
// (src/main.ts) and passes it down in AppDeps; an app built without one gets its own (app.ts).
//
// Labels are bounded on purpose: operationIds of the contract (or "unknown"), HTTP statuses,
// ApiError codes of the catalogue, provider call names, limiter names, and the platform keys of
// the registry only where the caller proved it is that platform (its valid credentials), so no
// stranger can add a label value. Never a raw path, a platform key taken from a request, or a user.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createHash, timingSafeEqual } from 'node:crypto';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Db } from '../db/knex.ts';
import { ApiError } from '../errors/catalogue.ts';
import type { RelyingParty } from '../oidc/relyingParty.ts';

/** Seconds: from a 5 ms local answer to a provider call at its 5 s timeout. */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const PURGE_BUCKETS = [0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300];

/**
 * What a refused or failed step is counted as: its ApiError code, else "error" (unexpected).
 * Null for a refusal by a rate limit: the step did not run, and gateway_rate_limit_refusals_total
 * counts it (counted as an outcome, a flood would read as people failing to sign in, or as
 * codes being guessed).
 */
export const outcomeOf = (error: unknown): string | null => (!(error instanceof ApiError) ? 'error' : error.code === 'RATE_LIMITED' ? null : error.code);

export interface MetricsOptions {
  /** The pool whose use is exported (gateway_db_pool_*); none: no pool gauges. */
  db?: Db;
  /** prom-client's default process metrics (CPU, memory, event loop, GC): once per process, in the served registry. */
  processMetrics?: boolean;
}

export class Metrics {
  readonly registry = new Registry();

  readonly httpRequests = new Counter({
    name: 'gateway_http_requests_total',
    help: 'HTTP requests answered on the public port, by contract operationId ("unknown" when no operation matched) and status.',
    labelNames: ['operation_id', 'status'] as const,
    registers: [this.registry],
  });
  readonly httpDuration = new Histogram({
    name: 'gateway_http_request_duration_seconds',
    help: 'Time from receiving the request to the end of the response, by operationId and status.',
    labelNames: ['operation_id', 'status'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  readonly logins = new Counter({
    name: 'gateway_logins_total',
    help: 'Callbacks (GET /v1/auth/callback) by outcome: "success", or the ApiError code of the refusal ("error" when unexpected).',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  readonly handoffsIssued = new Counter({
    name: 'gateway_handoffs_issued_total',
    help: 'Handoff codes issued (callback or resume sending the browser to a platform).',
    registers: [this.registry],
  });
  readonly handoffsExchanged = new Counter({
    name: 'gateway_handoffs_exchanged_total',
    help: 'Handoff codes exchanged successfully (POST /v1/auth/exchange).',
    registers: [this.registry],
  });
  readonly handoffsRefused = new Counter({
    name: 'gateway_handoffs_refused_total',
    help: 'Handoff exchanges refused, by ApiError code (HANDOFF_CODE_INVALID, INVALID_CLIENT, ...).',
    labelNames: ['code'] as const,
    registers: [this.registry],
  });
  readonly handoffsInvalid = new Counter({
    name: 'gateway_handoffs_invalid_total',
    help: 'Handoff codes refused (HANDOFF_CODE_INVALID: unknown, expired, already used, another platform\'s, verifier mismatch) to a platform\'s valid credentials, by platform key. Never throttled: replays and junk relayed by a platform\'s back end.',
    labelNames: ['platform'] as const,
    registers: [this.registry],
  });
  readonly handoffsExpired = new Counter({
    name: 'gateway_handoffs_expired_total',
    help: 'Expired handoff codes deleted by the purge (a day after expiry; exchanged or not).',
    registers: [this.registry],
  });
  readonly providerCalls = new Histogram({
    name: 'gateway_provider_call_duration_seconds',
    help: 'Calls to the OpenID provider (discovery and keys included on first use), by call and outcome: success, refused (4xx ApiError), error (unavailable or unexpected).',
    labelNames: ['call', 'outcome'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  readonly purgeRuns = new Counter({
    name: 'gateway_purge_runs_total',
    help: 'Runs of the periodic purge, by outcome (success, failure).',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  readonly purgeDuration = new Histogram({
    name: 'gateway_purge_duration_seconds',
    help: 'Duration of the periodic purge runs, by outcome.',
    labelNames: ['outcome'] as const,
    buckets: PURGE_BUCKETS,
    registers: [this.registry],
  });
  readonly purgeLastSuccess = new Gauge({
    name: 'gateway_purge_last_success_timestamp_seconds',
    help: 'Unix time of the last successful purge run of this instance (0: none yet).',
    registers: [this.registry],
  });
  readonly purgedRows = new Counter({
    name: 'gateway_purged_rows_total',
    help: 'Rows removed or ended by the purge, by kind (handoffCodes, transactions, sessions, sessionsTimedOut, uploadTickets, deactivated, purged, securityEvents, ...).',
    labelNames: ['kind'] as const,
    registers: [this.registry],
  });
  readonly rateLimitRefusals = new Counter({
    name: 'gateway_rate_limit_refusals_total',
    help: 'Requests refused with 429 by a rate limiter, by limiter name.',
    labelNames: ['limiter'] as const,
    registers: [this.registry],
  });

  readonly rateLimitFallbacks = new Counter({
    name: 'gateway_rate_limit_store_fallbacks_total',
    help: 'Rate-limit checks counted in PostgreSQL because Redis (REDIS_URL) did not answer, by limiter name. Above 0: Redis is down or too slow.',
    labelNames: ['limiter'] as const,
    registers: [this.registry],
  });

  // Security Event Tokens to platforms (issue 26): labels are fixed sets (event type URIs of
  // the contract, push/poll, the outcomes below), never a platform key or a person.
  readonly securityEventsRecorded = new Counter({
    name: 'gateway_security_events_recorded_total',
    help: 'Security events recorded for platforms (one per event and platform), by event type.',
    labelNames: ['type'] as const,
    registers: [this.registry],
  });
  readonly securityEventDeliveries = new Counter({
    name: 'gateway_security_event_deliveries_total',
    help: 'Security event delivery outcomes by mode (push, poll) and outcome: delivered (push 202, poll acknowledged), retry (a push attempt failed; it is retried), rejected (push 400, poll setErrs), given_up (the last push attempt failed), address_refused (the receiver URL leads to an address outbound calls never reach).',
    labelNames: ['mode', 'outcome'] as const,
    registers: [this.registry],
  });

  constructor(options: MetricsOptions = {}) {
    if (options.processMetrics) collectDefaultMetrics({ register: this.registry });
    if (options.db) {
      this.observePool(options.db);
      byDb.set(options.db, this);
    }
    if (options.processMetrics) processMetrics = this;
  }

  /** knex's pool (tarn), read at scrape time; a destroyed or not yet created pool reads as 0. */
  private observePool(db: Db): void {
    const pool = () => (db.client as { pool?: TarnPool | null }).pool ?? null;
    const gauge = (name: string, help: string, read: (p: TarnPool) => number) =>
      new Gauge({
        name,
        help,
        registers: [this.registry],
        collect() {
          const p = pool();
          this.set(p ? read(p) : 0);
        },
      });
    gauge('gateway_db_pool_used', 'Database connections in use (checked out of the pool).', (p) => p.numUsed());
    gauge('gateway_db_pool_free', 'Idle database connections in the pool.', (p) => p.numFree());
    gauge('gateway_db_pool_pending_acquires', 'Queries waiting for a pool connection (above 0 for long: the pool or the database is the bottleneck).', (p) => p.numPendingAcquires());
    gauge('gateway_db_pool_pending_creates', 'Connections being opened to the database.', (p) => p.numPendingCreates());
    gauge('gateway_db_pool_max', 'The largest number of connections the pool may open.', (p) => p.max);
  }

  /** One HTTP answer: operationId when the contract router matched one, "unknown" otherwise. */
  observeRequest(operationId: string | undefined, status: number, seconds: number): void {
    const labels = { operation_id: operationId ?? 'unknown', status: String(status) };
    this.httpRequests.inc(labels);
    this.httpDuration.observe(labels, seconds);
  }

  rateLimitRefused(limiter: string): void {
    this.rateLimitRefusals.inc({ limiter });
  }

  /** One purge run: its outcome, duration and what it removed. */
  observePurge(outcome: 'success' | 'failure', seconds: number, counts: Record<string, number> = {}): void {
    this.purgeRuns.inc({ outcome });
    this.purgeDuration.observe({ outcome }, seconds);
    if (outcome === 'success') this.purgeLastSuccess.setToCurrentTime();
    for (const [kind, count] of Object.entries(counts)) if (count > 0) this.purgedRows.inc({ kind }, count);
    if ((counts.handoffCodes ?? 0) > 0) this.handoffsExpired.inc(counts.handoffCodes);
  }

  /** The text exposition (Prometheus 0.0.4 format) and its content type. */
  async scrape(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}

/** The part of tarn's Pool that is read (knex 3 ships tarn 3). */
interface TarnPool {
  max: number;
  numUsed(): number;
  numFree(): number;
  numPendingAcquires(): number;
  numPendingCreates(): number;
}

export function createMetrics(options: MetricsOptions = {}): Metrics {
  return new Metrics(options);
}

/**
 * For code that holds only the database (the rate limiters are built per Db, like their
 * PostgreSQL store), the Metrics bound to that Db; and the process's served Metrics (the one
 * with process metrics, built in main.ts) for code that holds nothing. A module-level lookup
 * rather than a parameter only because those callers have no AppDeps at hand.
 */
const byDb = new WeakMap<Db, Metrics>();
let processMetrics: Metrics | null = null;

/** The Metrics bound to `db` (a transaction is not bound: it finds the process's), else the process's; null in tools and tests without metrics. */
function metricsFor(db: Db | undefined): Metrics | null {
  return (db ? byDb.get(db) : undefined) ?? processMetrics;
}

/**
 * Counts one refusal of a rate limiter (`limiter`: a fixed name such as "password_change",
 * "start_ip"). With `db`, on the Metrics of that database's app; without, on the process's
 * served Metrics. A no-op when there is none (tools, tests without metrics).
 */
export function countRateLimitRefusal(limiter: string, db?: Db): void {
  metricsFor(db)?.rateLimitRefused(limiter);
}

/** Counts one rate-limit check that fell back from Redis to PostgreSQL (see countRateLimitRefusal). */
export function countRateLimitFallback(limiter: string, db?: Db): void {
  metricsFor(db)?.rateLimitFallbacks.inc({ limiter });
}

export type SecurityEventDeliveryOutcome = 'delivered' | 'retry' | 'rejected' | 'given_up' | 'address_refused';

/** Counts recorded security events (on metricsFor(db)). */
export function countSecurityEventsRecorded(type: string, count: number, db?: Db): void {
  if (count <= 0) return;
  metricsFor(db)?.securityEventsRecorded.inc({ type }, count);
}

/** Counts security event delivery outcomes. */
export function countSecurityEventDelivery(mode: 'push' | 'poll', outcome: SecurityEventDeliveryOutcome, count = 1, db?: Db): void {
  if (count <= 0) return;
  metricsFor(db)?.securityEventDeliveries.inc({ mode, outcome }, count);
}

/** Runs `step`, observing its duration and outcome. */
async function timed<T>(histogram: Histogram<'call' | 'outcome'>, call: string, step: () => Promise<T>): Promise<T> {
  const end = histogram.startTimer({ call });
  try {
    const result = await step();
    end({ outcome: 'success' });
    return result;
  } catch (error) {
    end({ outcome: error instanceof ApiError && error.status < 500 ? 'refused' : 'error' });
    throw error;
  }
}

/**
 * The relying party with every call timed (gateway_provider_call_duration_seconds). The first
 * call of each kind includes discovery and the key set fetch; "error" is the provider down or
 * failing (IDP_UNAVAILABLE and other 5xx), "refused" a token or code it or we refused.
 */
export function instrumentRelyingParty(rp: RelyingParty, metrics: Metrics): RelyingParty {
  const h = metrics.providerCalls;
  // A method added to RelyingParty later passes through untimed until it is listed here.
  return {
    ...rp,
    authorizationUrl: (input) => timed(h, 'authorizationUrl', () => rp.authorizationUrl(input)),
    completeLogin: (input) => timed(h, 'completeLogin', () => rp.completeLogin(input)),
    verifyAccessToken: (token) => timed(h, 'verifyAccessToken', () => rp.verifyAccessToken(token)),
    endSessionUrl: (input) => timed(h, 'endSessionUrl', () => rp.endSessionUrl(input)),
    verifyLogoutToken: (token) => timed(h, 'verifyLogoutToken', () => rp.verifyLogoutToken(token)),
  };
}

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();

/**
 * `Authorization: Bearer <METRICS_TOKEN>`, compared in constant time (digests of equal
 * length). Used by the public port's /metrics when METRICS_TOKEN is set.
 */
export function hasMetricsToken(authorization: string | undefined, token: string): boolean {
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(authorization ?? '');
  return match !== null && timingSafeEqual(digest(match[1]!), digest(token));
}

/**
 * The metrics listener (METRICS_PORT): GET or HEAD /metrics, nothing else. A plain node:http
 * server apart from the public app, so it shares none of its middleware, routes or logs.
 */
export function createMetricsServer(metrics: Metrics): Server {
  return createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/metrics') {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('not found\n');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { Allow: 'GET, HEAD', 'Content-Type': 'text/plain; charset=utf-8' }).end('method not allowed\n');
      return;
    }
    metrics.scrape().then(
      ({ contentType, body }) => {
        res.writeHead(200, { 'Content-Type': contentType, 'Cache-Control': 'no-store' });
        res.end(req.method === 'HEAD' ? undefined : body);
      },
      () => {
        res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' }).end('metrics collection failed\n');
      },
    );
  });
}

/** Starts the metrics listener; resolves once it listens (port 0: an ephemeral port). */
export function startMetricsServer(metrics: Metrics, port: number, host?: string): Promise<Server> {
  const server = createMetricsServer(metrics);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}
