import express, { type NextFunction, type Request, type Response } from 'express';
import { parse as parseCookieHeader } from 'cookie';
import cors from 'cors';
import { pinoHttp } from 'pino-http';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError } from './errors/catalogue.ts';
import { sendProblem } from './errors/problem.ts';
import { createBackend } from './api/backend.ts';
import { docsRouter } from './api/docs.ts';
import { handlers as defaultHandlers } from './api/handlers.ts';
import type { AppDeps } from './deps.ts';
import type { HandlerMap } from './api/types.ts';
import { loggableUrl } from './logger.ts';

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
 * The policy of every response, for the HTML problem pages of the flow endpoints in
 * particular (one inline <style>, links, no script); the docs page sets its own.
 */
const DEFAULT_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "style-src 'unsafe-inline'",
  "img-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join('; ');

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

/** body-parser's error when the client closed the connection before its body arrived. */
const isClientAbort = (error: unknown) => (error as { type?: string } | null)?.type === 'request.aborted';

export async function createApp(deps: AppDeps, options: AppOptions = {}) {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', false);
  // No automatic ETags: the contract documents no 304 answers (a client repeating an
  // ETag in If-None-Match would get one), and hashing every JSON body, token
  // responses included, costs a SHA-1 per request for nothing.
  app.set('etag', false);
  app.set('query parser', 'simple'); // repeated parameters become arrays and fail validation

  app.use(
    pinoHttp({
      logger: deps.logger,
      genReqId: (_req: IncomingMessage, res: ServerResponse) => {
        const id = randomUUID();
        res.setHeader('X-Request-Id', id);
        return id;
      },
      serializers: {
        req: (req: { id: string; method: string; url: string; headers: IncomingMessage['headers'] }) => ({
          id: req.id,
          method: req.method,
          url: loggableUrl(req.url),
          clientRequestId: clientRequestIdOf(req.headers['x-request-id']),
        }),
        res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
      },
      // A client's mistake (4xx) or an operation not built yet (501) is the client's news, not an
      // operator's alarm; a dependency down (502..504) is a warning; only the unexpected is an error.
      customLogLevel: (_req, res, error) => (error || res.statusCode === 500 ? 'error' : res.statusCode >= 502 ? 'warn' : 'info'),
      autoLogging: { ignore: (req) => req.url === '/health/live' },
    }),
  );

  app.use((_req, res, next) => {
    res.set({
      'X-Content-Type-Options': 'nosniff',
      // Handoff codes travel in redirect URLs: never leak them through Referer.
      'Referrer-Policy': 'no-referrer',
      'X-Frame-Options': 'DENY',
      'Content-Security-Policy': DEFAULT_CONTENT_SECURITY_POLICY,
    });
    next();
  });

  app.use(docsRouter(deps.config.publicBaseUrl));

  // Browser clients (the account center) send cookies; answer their exact origin, never '*'.
  app.use(
    cors({
      origin: (origin, callback) => callback(null, origin !== undefined && deps.config.corsOrigins.includes(origin) ? origin : false),
      credentials: true,
      methods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
      allowedHeaders: ['Content-Type', 'Authorization', 'X-Request-Id'],
      exposedHeaders: ['X-Request-Id'],
      maxAge: 600,
    }),
  );
  app.use(plainCookies);
  app.use(express.json({ limit: '64kb', type: ['application/json', 'application/*+json'] }));

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
