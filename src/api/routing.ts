// Routing (src/api/backend.ts): the contract's operation at a method and path, 404 and 405 with
// the methods a path supports, and HEAD refused on the GETs that spend a login step.

import type { Operation as OperationOf, OpenAPIBackend, Request as OpenApiRequest } from 'openapi-backend';
import type { OpenAPIV3_1 } from 'openapi-types';
import type { Request, Response } from 'express';
import { ApiError } from '../errors/catalogue.ts';

type Operation = OperationOf<OpenAPIV3_1.Document>;
type Backend = OpenAPIBackend<OpenAPIV3_1.Document>;

/**
 * The operation at the request's method and path. Remembered on the response for the error
 * path (problem pages and response checks depend on the operation), with the route template
 * for traces; a request the contract does not route is a 404, or a 405 at a known path.
 */
export function route(api: Backend, apiRequest: OpenApiRequest, res: Response): Operation {
  let operation: Operation;
  try {
    operation = api.router.matchOperation(apiRequest, true);
  } catch (error) {
    if (error instanceof Error && error.message.startsWith('405')) {
      // RFC 9110 §15.5.6: a 405 lists the methods the resource does support.
      throw new ApiError('METHOD_NOT_ALLOWED', undefined, { headers: { Allow: allowedMethods(api, apiRequest.path).join(', ') } });
    }
    throw new ApiError('NOT_FOUND', 'No operation is published at this path.');
  }
  res.locals.operationId = operation.operationId;
  res.locals.operationPath = operation.path;
  return operation;
}

const ROUTABLE_METHODS = ['GET', 'PUT', 'POST', 'DELETE', 'PATCH'] as const;

/**
 * GETs that create or spend a login: start writes a transaction, the callback and
 * resume consume one. They are GETs only because browsers follow redirects with GET.
 * HEAD must never change state (RFC 9110 §9.2.1, GUIDE §5), and Express would run the
 * GET handler for it, so on these GETs (they start, spend or end a login) HEAD is not a
 * method of the resource at all. Nor on the download of a data export: it spends its link.
 */
const NO_HEAD_OPERATIONS: ReadonlySet<string> = new Set(['startAuthentication', 'handleIdpCallback', 'resumeAuthentication', 'signOutBrowser', 'downloadDataExport']);

/** The methods the contract publishes for a path (HEAD wherever GET is, but for the login steps). */
function allowedMethods(api: Backend, path: string): string[] {
  const allowed: string[] = [];
  for (const method of ROUTABLE_METHODS) {
    const operation = api.router.matchOperation({ method, path, headers: {} }, false);
    if (!operation) continue;
    allowed.push(method);
    if (method === 'GET' && !NO_HEAD_OPERATIONS.has(operation.operationId ?? '')) allowed.push('HEAD');
  }
  return allowed;
}

/** Runs right after routing: before any security handler, so a HEAD never reaches a session lookup either. */
export function refuseHeadOnLoginSteps(operation: Operation, req: Request): void {
  if (req.method === 'HEAD' && NO_HEAD_OPERATIONS.has(operation.operationId ?? '')) {
    // RFC 9110 §15.5.6: the 405 lists the methods the resource does support.
    throw new ApiError('METHOD_NOT_ALLOWED', 'This address spends a single-use step: it is only followed with GET.', { headers: { Allow: 'GET' } });
  }
}

