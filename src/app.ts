import express, { type NextFunction, type Request, type Response } from 'express';
import cookieParser from 'cookie-parser';
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

/** An incoming X-Request-Id is kept only when it is a harmless token (it reaches logs and bodies). */
const REQUEST_ID = /^[A-Za-z0-9._:-]{8,128}$/;

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
      genReqId: (req: IncomingMessage, res: ServerResponse) => {
        const incoming = req.headers['x-request-id'];
        const id = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
        res.setHeader('X-Request-Id', id);
        return id;
      },
      serializers: {
        req: (req: { id: string; method: string; url: string }) => ({ id: req.id, method: req.method, url: loggableUrl(req.url) }),
        res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
      },
      customLogLevel: (_req, res, error) => (error || res.statusCode >= 500 ? 'error' : 'info'),
      autoLogging: { ignore: (req) => req.url === '/health/live' },
    }),
  );

  app.use((_req, res, next) => {
    res.set({
      'X-Content-Type-Options': 'nosniff',
      // Handoff codes travel in redirect URLs: never leak them through Referer.
      'Referrer-Policy': 'no-referrer',
      'X-Frame-Options': 'DENY',
    });
    next();
  });

  app.use(docsRouter());

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
  app.use(cookieParser());
  app.use(express.json({ limit: '64kb', type: ['application/json', 'application/*+json'] }));

  const dispatch = await createBackend(options.handlers ?? defaultHandlers, deps, {
    validateResponses: options.validateResponses ?? false,
  });
  app.use((req, res, next) => {
    dispatch(req, res).catch(next);
  });

  // Body-parser failures and anything that escaped the dispatcher.
  app.use((error: unknown, req: Request, res: Response, next: NextFunction) => {
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
