// The answer side of the pipeline (src/api/backend.ts): a handler's reply written to the response,
// checked against the contract when response validation is on (tests), and a thrown error turned
// into the ApiError its problem+json answer is written from.

import { pipeline } from 'node:stream/promises';
import type { OpenAPIBackend } from 'openapi-backend';
import type { OpenAPIV3_1 } from 'openapi-types';
import type { Request, Response } from 'express';
import { ApiError } from '../errors/catalogue.ts';
import { isDatabaseUnavailable } from '../db/errors.ts';
import type { Reply } from './types.ts';

type Backend = OpenAPIBackend<OpenAPIV3_1.Document>;

/** What sendReply needs of the backend's options. */
interface ReplyOptions {
  validateResponses: boolean;
}

export function sendReply(api: Backend, operationId: string, reply: Reply, res: Response, options: ReplyOptions): void {
  if (options.validateResponses) {
    assertDocumented(api, operationId, reply.status, 'body' in reply ? reply.body : undefined);
    if ('bytes' in reply || 'stream' in reply) assertDocumentedMediaType(api, operationId, reply.status, reply.contentType);
  }
  if (reply.headers) res.set(reply.headers);
  res.status(reply.status);
  if ('location' in reply) {
    // Always the serialization of a parsed, checked URL: never raw input (see GUIDE §9).
    res.set('Location', reply.location.href).end();
  } else if ('bytes' in reply) {
    res.type(reply.contentType).send(reply.bytes);
  } else if ('stream' in reply) {
    // A failure half-way (the database gone) cuts the response short: the client sees a broken
    // transfer, never a document that looks complete.
    res.type(reply.contentType);
    pipeline(reply.stream, res).catch((error: unknown) => res.req.log.warn({ err: error }, 'streamed response failed'));
  } else if ('body' in reply) {
    res.json(reply.body);
  } else {
    res.end();
  }
}

/**
 * Response validation (tests): the status must be documented for the operation
 * and a JSON body must match its schema. Problem bodies are checked by status only
 * because they are built by one serializer whose shape a contract test pins.
 */
export function assertDocumented(api: Backend, operationId: string, status: number, body: unknown): void {
  const operation = api.getOperation(operationId);
  const responses = (operation?.responses ?? {}) as Record<string, unknown>;
  if (!(String(status) in responses) && !('default' in responses)) {
    throw new ResponseContractError(`${operationId} answered ${status}, which the contract does not document`);
  }
  if (body !== undefined) {
    const result = api.validateResponse(body, operationId, status);
    if (result.errors) {
      throw new ResponseContractError(`${operationId} ${status} body breaks the contract: ${JSON.stringify(result.errors)}`);
    }
  }
}

/** A non-JSON body (an image) must be of a media type the contract lists for the status. */
function assertDocumentedMediaType(api: Backend, operationId: string, status: number, mediaType: string): void {
  const responses = (api.getOperation(operationId)?.responses ?? {}) as Record<string, { content?: Record<string, unknown> }>;
  if (!responses[String(status)]?.content?.[mediaType]) {
    throw new ResponseContractError(`${operationId} answered ${status} as ${mediaType}, which the contract does not document`);
  }
}

export class ResponseContractError extends Error {
  override name = 'ResponseContractError';
}

export function asApiError(error: unknown, req: Request): ApiError {
  if (error instanceof ApiError) {
    if (error.status >= 500) req.log.warn({ code: error.code, err: error.cause ?? undefined }, error.message);
    return error;
  }
  if (error instanceof ResponseContractError) throw error;
  if (isDatabaseUnavailable(error)) {
    req.log.warn({ err: error }, 'database unavailable');
    return new ApiError('DATABASE_UNAVAILABLE');
  }
  // Unexpected: log everything for the operator, tell the client nothing internal.
  req.log.error({ err: error }, 'unhandled error');
  return new ApiError('INTERNAL_ERROR');
}
