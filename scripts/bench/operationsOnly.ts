// BENCH_GATEWAY_LAYER=operations: the gateway's three login operations served without its HTTP
// layer, to measure how much of the gateway's CPU per request that layer costs.
//
// The operations (src/operations/*), their services, repositories, pool, provider calls and
// cookies run exactly as in the app, with the app's dependencies. What is left out is everything
// src/app.ts and src/api/backend.ts put around them: Express's router and middleware (request id,
// access log, metrics, security headers, cors, body parser), openapi-backend's routing, contract
// validation and security handlers, and the problem+json answers. Those are replaced here by the
// least an HTTP server must do: split the URL, read a JSON body, parse Basic credentials and
// cookies, and write the reply. The answers are the app's (the equivalence check still passes);
// nothing here is validated, so it is a measuring instrument, never a server.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseCookieHeader } from 'cookie';
import type { Express } from 'express';
import { handlers } from '../../src/api/handlers.ts';
import { parseBasic } from '../../src/api/security.ts';
import { ApiError } from '../../src/errors/catalogue.ts';
import type { AppDeps } from '../../src/deps.ts';
import type { Reply } from '../../src/api/types.ts';

const OPERATIONS = {
  '/v1/auth/start': 'startAuthentication',
  '/v1/auth/callback': 'handleIdpCallback',
  '/v1/auth/exchange': 'exchangeAuthenticationHandoff',
} as const;

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return chunks.length > 0 ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
}

function write(res: ServerResponse, reply: Reply): void {
  if (reply.headers) for (const [name, value] of Object.entries(reply.headers)) res.setHeader(name, value);
  res.statusCode = reply.status;
  if (reply.status === 302) {
    res.setHeader('Location', reply.location.href);
    res.end();
  } else if ('body' in reply) {
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.end(JSON.stringify(reply.body));
  } else {
    res.end();
  }
}

/** A request listener: the three login steps straight to their operations, anything else to the app. */
export function operationsOnly(app: Express, deps: AppDeps) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    const url = new URL(req.url ?? '/', 'http://gateway');
    const operationId = OPERATIONS[url.pathname as keyof typeof OPERATIONS];
    if (!operationId) return void app(req as never, res as never);
    // The operations use Express's request and response helpers (res.cookie, req.get).
    Object.setPrototypeOf(req, app.request);
    Object.setPrototypeOf(res, app.response);
    Object.assign(req, { res, originalUrl: req.url, cookies: req.headers.cookie ? parseCookieHeader(req.headers.cookie) : {} });
    Object.assign(res, { req, locals: {} });
    const handler = handlers[operationId] as (ctx: never, deps: AppDeps) => Promise<Reply>;
    (async () => {
      const body = req.method === 'POST' ? await readJson(req) : undefined;
      const ctx = {
        operationId,
        query: Object.fromEntries(url.searchParams),
        params: {},
        body,
        principal: null,
        platformCredentials: parseBasic(req.headers.authorization) ?? null,
        requestId: '',
        log: deps.logger,
        req,
        res,
      };
      write(res, await handler(ctx as never, deps));
    })().catch((error: unknown) => {
      res.statusCode = error instanceof ApiError ? error.status : 500;
      res.end();
    });
  };
}
