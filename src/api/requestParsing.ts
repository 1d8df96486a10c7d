// The request side of the pipeline (src/api/backend.ts): what each operation needs per request,
// worked out once from the contract (OperationPlan), the request parsed into openapi-backend's
// shape (path parameters decoded, unknown query parameters dropped) and validated against the
// operation's compiled schema.

import type { Context, Operation as OperationOf, OpenAPIBackend, ParsedRequest, Request as OpenApiRequest } from 'openapi-backend';
import type { OpenAPIV3_1 } from 'openapi-types';
import type { ErrorObject } from 'ajv';
import type { Request } from 'express';
import { ApiError, validationError } from '../errors/catalogue.ts';
import { escapePointer, toFieldErrors } from './fieldErrors.ts';

type Operation = OperationOf<OpenAPIV3_1.Document>;
type Backend = OpenAPIBackend<OpenAPIV3_1.Document>;

/** What each operation needs per request, worked out once from the contract. */
export interface OperationPlan {
  /** Each security requirement as the names of its schemes. */
  requirements: string[][];
  /** Every scheme the requirements name, once. */
  schemes: string[];
  /** The query parameters the contract declares. */
  knownQuery: ReadonlySet<string>;
  /** Query parameters whose schema is an array: one value is validated as a one-element array. */
  arrayQuery: string[];
  /** The route template's parameters and the path segment each one is. */
  pathParameters: { name: string; index: number }[];
}

/**
 * The contract uses path and query parameters only, a path parameter always a whole segment,
 * and plain query values (no `content`, no `explode: false`). Anything else would need parsing
 * this pipeline does not do, so a contract that uses it stops the boot instead of going unchecked.
 */
export function planOperation(operation: Operation): OperationPlan {
  const requirements = (operation.security ?? []).map((requirement) => Object.keys(requirement));
  type Parameter = { in: string; name: string; schema?: { type?: unknown }; content?: unknown; explode?: boolean };
  const parameters = (operation.parameters ?? []) as Parameter[];
  const unsupported = parameters.find((parameter) => !['path', 'query'].includes(parameter.in) || parameter.content || parameter.explode === false);
  if (unsupported) throw new Error(`${operation.operationId}: parameter ${unsupported.name} (in ${unsupported.in}) is not supported by src/api/backend.ts`);
  const query = parameters.filter((parameter) => parameter.in === 'query');
  const pathParameters = operation.path.split('/').flatMap((segment, index) => {
    const name = /^\{([^}]+)\}$/.exec(segment)?.[1];
    if (name === undefined && segment.includes('{')) throw new Error(`${operation.operationId}: a path parameter must be a whole segment (${operation.path})`);
    return name === undefined ? [] : [{ name, index }];
  });
  return {
    requirements,
    schemes: [...new Set(requirements.flat())],
    knownQuery: new Set(query.map((parameter) => parameter.name)),
    arrayQuery: query.filter((parameter) => parameter.schema?.type === 'array').map((parameter) => parameter.name),
    pathParameters,
  };
}

/** A copy of Express's simple query (strings and arrays of strings), arrays included. */
export function copyQuery(query: Record<string, string | string[]>): Record<string, string | string[]> {
  const copy: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(query)) copy[name] = Array.isArray(value) ? [...value] : value;
  return copy;
}

/**
 * The request as an operation reads it, in openapi-backend's shape: path parameters decoded by
 * the route template, the query (already a copy), headers, the cookies plainCookies parsed, the
 * parsed body. A path segment whose escapes are not UTF-8 (`%ff`, `%zz`, a lone `%`) makes
 * decodeURIComponent throw: it is kept as the client sent it and remembered, so that the
 * operation answers 400 at /path/<name> once the caller is authenticated (401 and 403 first).
 */
export function parseRequest(plan: OperationPlan, apiRequest: OpenApiRequest, req: Request): ParsedRequest & PathDecoding {
  const segments = apiRequest.path.split('/');
  const params: Record<string, string> = {};
  const undecodable: string[] = [];
  for (const { name, index } of plan.pathParameters) {
    const segment = segments[index] ?? '';
    const decoded = decodeSegment(segment);
    params[name] = decoded ?? segment;
    if (decoded === undefined) undecodable.push(name);
  }
  return {
    method: apiRequest.method.toLowerCase(),
    path: apiRequest.path,
    headers: apiRequest.headers,
    query: apiRequest.query as ParsedRequest['query'],
    cookies: req.cookies as Record<string, string>,
    params,
    requestBody: apiRequest.body,
    ...(undecodable.length > 0 ? { undecodablePathParameters: undecodable } : {}),
  };
}

/** What the path-decoding step remembers on the parsed request. */
interface PathDecoding {
  undecodablePathParameters?: string[];
}

/** A path segment decoded, or undefined when its percent escapes are not UTF-8 octets (RFC 3986 §2.1, RFC 3987 §3.2). */
function decodeSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

export function refuseUndecodablePathParameters(c: Context): void {
  const names = (c.request as PathDecoding).undecodablePathParameters ?? [];
  if (names.length === 0) return;
  throw validationError(names.map((name) => ({ pointer: `/path/${escapePointer(name)}`, message: 'is not valid percent-encoded UTF-8', reason: 'ILL_FORMED_UNICODE' })));
}

/**
 * Unknown query parameters are ignored rather than refused: identity providers add
 * their own (session_state, …), and a client flag such as `completed=true` must
 * simply have no effect (spec: resume). Known ones are still validated strictly.
 */
export function dropUnknownQueryParameters(plan: OperationPlan, query: Record<string, unknown>): void {
  for (const name of Object.keys(query)) if (!plan.knownQuery.has(name)) delete query[name];
}

export function requireJsonBody(c: Context, req: Request): void {
  const operation = c.operation as { requestBody?: { content?: Record<string, unknown> } };
  // An operation taking another media type (the avatar upload's images) checks its own.
  if (!operation.requestBody?.content?.['application/json']) return;
  const hasBody = Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
  if (hasBody && !req.is(['application/json', 'application/*+json'])) {
    throw new ApiError('UNSUPPORTED_MEDIA_TYPE', 'Send the body as application/json.');
  }
}

/**
 * The request against the operation's compiled schema (parameters and body), as openapi-backend
 * builds it: `path`, `query`, `header`, `cookie` and `requestBody`. Ajv coerces the query's
 * types in place (numbers and booleans for the handler).
 */
export function validateRequest(api: Backend, plan: OperationPlan, c: Context): void {
  const { params, query, headers, cookies, requestBody } = c.request;
  for (const name of plan.arrayQuery) if (typeof query[name] === 'string') query[name] = [query[name]];
  const parameters: Record<string, unknown> = { path: params, query, header: headers, cookie: cookies };
  const errors: ErrorObject[] = [];
  const contentType = String(headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (typeof requestBody === 'object' || contentType === 'application/json') parameters.requestBody = requestBody;
  for (const validate of api.validator.getRequestValidatorsForOperation(c.operation.operationId!) ?? []) {
    if (!validate(parameters)) errors.push(...(validate.errors ?? []));
  }
  if (errors.length > 0) throw validationError(toFieldErrors(errors));
}
