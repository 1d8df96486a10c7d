import express, { type NextFunction, type Request, type Response } from 'express';
import { parse as parseCookieHeader } from 'cookie';
import cors from 'cors';
import helmet from 'helmet';
import { pinoHttp } from 'pino-http';
import type { Logger } from 'pino';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError } from './errors/catalogue.ts';
import { sendProblem } from './errors/problem.ts';
import { createBackend } from './api/backend.ts';
import { docsRouter, isDocsPath } from './api/docs.ts';
import { handlers as defaultHandlers } from './api/handlers.ts';
import type { AppDeps } from './deps.ts';
import type { HandlerMap } from './api/types.ts';
import { refuseIllFormedStrings } from './api/wellFormedBody.ts';
import { ACCESS_LOG_REDACT_PATHS, loggableUrl, REDACT_CENSOR } from './logger.ts';
import { createMetrics, hasMetricsToken, instrumentRelyingParty } from './observability/metrics.ts';

export interface AppOptions {
  /** Check every response against the contract (tests turn this on). */
  validateResponses?: boolean;
  handlers?: HandlerMap;
}

/**
 * A client's X-Request-Id is logged (as `clientRequestId`, to correlate with a proxy's
 * logs) only when it is a harmless token. It is never adopted as the request id: that
 * id is what audit rows record, so only the gateway chooses it.
 */
const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:-]{8,128}$/;

function clientRequestIdOf(header: string | string[] | undefined): string | undefined {
  return typeof header === 'string' && CLIENT_REQUEST_ID.test(header) ? header : undefined;
}

/**
 * One access line per request (pino-http), with the request id the gateway chooses (also the
 * response's X-Request-Id) and `req.log` for the request's own lines.
 */
export function accessLog(logger: Logger, traced: boolean) {
  return pinoHttp({
    // Its own redaction, without the paths under `req` and `res` its serializers below make
    // unreachable (src/logger.ts ACCESS_LOG_REDACT_PATHS); `logger` itself keeps them all.
    logger: logger.child({}, { redact: { paths: ACCESS_LOG_REDACT_PATHS, censor: REDACT_CENSOR } }),
    genReqId: (_req: IncomingMessage, res: ServerResponse) => {
      const id = randomUUID();
      res.setHeader('X-Request-Id', id);
      return id;
    },
    // Our serializers read the request and response themselves: pino-std-serializers' wrappers
    // would first copy every header and the remote address into an object that is thrown away.
    wrapSerializers: false,
    serializers: {
      req: (req: { id: string; method: string; url: string; headers: IncomingMessage['headers'] }) => ({
        id: req.id,
        method: req.method,
        url: loggableUrl(req.url),
        clientRequestId: clientRequestIdOf(req.headers['x-request-id']),
      }),
      res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
    },
    // With tracing, every line of a traced request carries its trace and span ids (src/observability/tracing.ts).
    ...(traced ? { customProps: (_req: IncomingMessage, res: ServerResponse) => (res as Response).locals.traceLogFields as object } : {}),
    // A client's mistake (4xx) or an operation not built yet (501) is the client's news, not an
    // operator's alarm; a dependency down (502..504) is a warning; only the unexpected is an error.
    customLogLevel: (_req, res, error) => (error || res.statusCode === 500 ? 'error' : res.statusCode >= 502 ? 'warn' : 'info'),
    autoLogging: { ignore: (req) => req.url === '/health/live' },
  });
}

/**
 * Security headers (helmet): the Content-Security-Policy of every response, for the HTML
 * problem pages of the flow endpoints in particular (one inline <style>, links, no script; the
 * docs page sets its own); no framing; no Referer, because handoff codes travel in redirect
 * URLs; HSTS when the gateway is served over https (production). Cross-origin resource and
 * opener policies are left out: the account center on another origin shows avatars from here.
 */
export function securityHeaders(hsts: boolean) {
  return helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'none'"],
        styleSrc: ["'unsafe-inline'"],
        imgSrc: ["'self'"],
        frameAncestors: ["'none'"],
        baseUri: ["'none'"],
        formAction: ["'self'"],
      },
    },
    referrerPolicy: { policy: 'no-referrer' },
    frameguard: { action: 'deny' },
    strictTransportSecurity: hsts ? { maxAge: 31_536_000, includeSubDomains: true } : false,
    crossOriginResourcePolicy: false,
    crossOriginOpenerPolicy: false,
    crossOriginEmbedderPolicy: false,
  });
}

/**
 * Cookies as a plain name → string map (RFC 6265 §5.2 via the `cookie` package).
 * cookie-parser JSON-decodes values that start with `j:` and unsigns `s:` ones, so
 * `gw_session=j:{}` reached the session lookup as an object (GUIDE §9). The map has
 * no prototype: a cookie name such as `constructor` never finds an inherited value.
 */
function plainCookies(req: Request, _res: Response, next: NextFunction): void {
  const cookies: Record<string, string> = Object.create(null);
  const header = req.headers.cookie;
  if (header) {
    for (const [name, value] of Object.entries(parseCookieHeader(header))) {
      if (typeof value === 'string') cookies[name] = value;
    }
  }
  req.cookies = cookies;
  next();
}

const BACKCHANNEL_LOGOUT_PATH = '/v1/auth/backchannel-logout';
/** The form as text, within the limit the error handler below reports (64 KiB). */
/** The routes of createDocumentDraft and updateDocumentDraft (issue 25). */
const DOCUMENT_DRAFT_PATHS = ['/v1/platforms/:platformKey/documents/:documentKey/versions', '/v1/platforms/:platformKey/documents/:documentKey/versions/:version'];
const readBackchannelLogoutForm = express.text({ type: 'application/x-www-form-urlencoded', limit: '64kb' });

/**
 * The form's fields (WHATWG URLSearchParams, linear in the body's size), a repeated field as an
 * array (which the contract then refuses). Not express.urlencoded: its parser (qs) merges repeated
 * fields in quadratic time (3 s of CPU for a 64 KiB form of `a=&a=&…`), and its parameter limit
 * ends in a 500.
 */
function parseBackchannelLogoutForm(req: Request, _res: Response, next: NextFunction): void {
  if (typeof req.body === 'string') {
    const fields: Record<string, string | string[]> = Object.create(null);
    const repeated = new Map<string, string[]>();
    for (const [name, value] of new URLSearchParams(req.body)) {
      const values = repeated.get(name);
      if (values) values.push(value);
      else if (name in fields) repeated.set(name, [fields[name] as string, value]);
      else fields[name] = value;
    }
    for (const [name, values] of repeated) fields[name] = values;
    req.body = fields;
  }
  next();
}

/** body-parser's error when the client closed the connection before its body arrived. */
const isClientAbort = (error: unknown) => (error as { type?: string } | null)?.type === 'request.aborted';

export async function createApp(deps: AppDeps, options: AppOptions = {}) {
  if (deps.config.redisUrl && !deps.redis) throw new Error('REDIS_URL is set: pass its client as deps.redis (openRateLimitRedis)');
  // The served metrics from main.ts, or this app's own (tests build many apps in one process).
  // Every provider call is timed; operations and services count through deps.metrics.
  const metrics = deps.metrics ?? createMetrics({ db: deps.db });
  // Traces (OTEL_EXPORTER_OTLP_ENDPOINT): spans around the timed provider calls and every statement.
  const tracing = deps.tracing ?? null;
  const oidc = deps.oidc && instrumentRelyingParty(deps.oidc, metrics);
  deps = { ...deps, metrics, oidc: oidc && tracing ? tracing.traceRelyingParty(oidc) : oidc };
  tracing?.traceDatabase(deps.db);
  const app = express();
  if (tracing) app.use(tracing.middleware);
  app.locals.metrics = metrics;
  app.disable('x-powered-by');
  app.set('trust proxy', false);
  // No automatic ETags: the contract documents no 304 answers (a client repeating an
  // ETag in If-None-Match would get one), and hashing every JSON body, token
  // responses included, costs a SHA-1 per request for nothing.
  app.set('etag', false);
  app.set('query parser', 'simple'); // repeated parameters become arrays and fail validation

  app.use(accessLog(deps.logger, tracing !== null));

  // Requests by operationId (set when the request is routed, src/api/backend.ts) and
  // status; anything the contract does not route is "unknown", never its path (bounded labels).
  app.use((_req, res, next) => {
    const started = process.hrtime.bigint();
    let observed = false;
    // 'finish': the response was handed to the socket; 'close' alone: the client left first.
    const observe = () => {
      if (observed) return;
      observed = true;
      metrics.observeRequest(res.locals.operationId as string | undefined, res.statusCode, Number(process.hrtime.bigint() - started) / 1e9);
    };
    res.once('finish', observe).once('close', observe);
    next();
  });

  const lifecycle = deps.lifecycle;
  if (lifecycle) {
    app.use((_req, res, next) => {
      // Shutting down: this connection ends after this answer, so the client opens its next
      // request elsewhere rather than on a connection about to be closed. Decided when the
      // head is written, so a request that was in flight when the drain began is covered too.
      const writeHead = res.writeHead;
      res.writeHead = function (this: Response, ...args: Parameters<Response['writeHead']>) {
        if (lifecycle.draining && !this.headersSent) this.setHeader('Connection', 'close');
        return writeHead.apply(this, args);
      } as Response['writeHead'];
      next();
    });
  }

  app.use(securityHeaders(deps.config.publicBaseUrl.startsWith('https:')));

  // Only the requests it serves enter the docs router: an Express router matches each of its
  // routes against every request that reaches it. (Small: two A/B pairs of the bench gave the
  // start x2.03–2.08 of bare's CPU before, x1.90–2.00 after; the exchange did not move.)
  const docs = docsRouter(deps.config.publicBaseUrl);
  app.use((req, res, next) => (isDocsPath(req.path) ? docs(req, res, next) : next()));

  // /metrics on the public port only with METRICS_TOKEN (otherwise the contract's 404): outside
  // the contract on purpose, so it is answered here and never reaches openapi-backend.
  const metricsToken = deps.config.metricsToken;
  if (metricsToken) {
    app.get('/metrics', (req, res, next) => {
      if (!hasMetricsToken(req.headers.authorization, metricsToken)) {
        res.set('WWW-Authenticate', 'Bearer realm="metrics"');
        return sendProblem(req, res, new ApiError('UNAUTHENTICATED', 'The metrics need the METRICS_TOKEN as a Bearer token.'));
      }
      metrics.scrape().then(({ contentType, body }) => {
        res.set({ 'Content-Type': contentType, 'Cache-Control': 'no-store' }).send(body);
      }, next);
    });
  }

  // Browser clients (the account center) send cookies; answer their exact origin, never '*'.
  app.use(
    cors({
      origin: (origin, callback) => callback(null, origin !== undefined && deps.config.corsOrigins.includes(origin) ? origin : false),
      credentials: true,
      methods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
      allowedHeaders: ['Content-Type', 'Authorization', 'X-Request-Id'],
      exposedHeaders: ['X-Request-Id', 'Retry-After'], // Retry-After: the account center says how long to wait after a 429
      maxAge: 600,
    }),
  );
  app.use(plainCookies);
  // Document drafts carry whole texts (up to 100,000 characters per language in the contract):
  // their two routes read bodies up to 1 MiB; every other body stays within 64 KiB.
  app.use(DOCUMENT_DRAFT_PATHS, express.json({ limit: '1mb', type: ['application/json', 'application/*+json'] }));
  app.use(express.json({ limit: '64kb', type: ['application/json', 'application/*+json'] }));
  app.use(refuseIllFormedStrings);
  // OpenID Connect Back-Channel Logout 1.0 §2.5: the identity provider posts a form with one
  // field, `logout_token` (at most 16 KiB in the contract). Forms are read on that route only.
  app.post(BACKCHANNEL_LOGOUT_PATH, readBackchannelLogoutForm, parseBackchannelLogoutForm);

  const dispatch = await createBackend(options.handlers ?? defaultHandlers, deps, {
    validateResponses: options.validateResponses ?? false,
  });
  app.use((req, res, next) => {
    dispatch(req, res).catch(next);
  });

  // Body-parser failures and anything that escaped the dispatcher.
  app.use((error: unknown, req: Request, res: Response, next: NextFunction) => {
    if (isClientAbort(error)) {
      // Not our failure and nobody is left to answer: an info line, no 500 (the client,
      // or a proxy's timeout, hung up mid-body). pino-http logs the request on 'close'.
      req.log.info({ received: (error as { received?: number }).received }, 'client closed the request');
      if (!req.socket.destroyed && !res.headersSent) sendProblem(req, res, new ApiError('MALFORMED_REQUEST', 'The request body ended early.'));
      return;
    }
    if (res.headersSent) return next(error);
    const type = (error as { type?: string })?.type;
    if (type === 'entity.too.large') return sendProblem(req, res, new ApiError('PAYLOAD_TOO_LARGE', 'The body may be at most 64 KiB.'));
    if (type === 'entity.parse.failed') return sendProblem(req, res, new ApiError('MALFORMED_REQUEST', 'The body is not valid JSON.'));
    if (type === 'encoding.unsupported' || type === 'charset.unsupported') {
      return sendProblem(req, res, new ApiError('UNSUPPORTED_MEDIA_TYPE', 'Send the body as UTF-8 application/json.'));
    }
    req.log.error({ err: error }, 'unhandled error');
    return sendProblem(req, res, new ApiError('INTERNAL_ERROR'));
  });

  return app;
}
