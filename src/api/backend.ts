import { OpenAPIBackend, type Context, type Operation as OperationOf, type ParsedRequest, type Request as OpenApiRequest } from 'openapi-backend';
import type { OpenAPIV3_1 } from 'openapi-types';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { ErrorObject } from 'ajv';
import { pipeline } from 'node:stream/promises';
import type { Request, Response } from 'express';
import { ApiError, validationError, type FieldError, type FieldErrorReason } from '../errors/catalogue.ts';
import { sendProblem } from '../errors/problem.ts';
import { contractCopy } from '../contract.ts';
import { isDatabaseUnavailable } from '../db/errors.ts';
import type { AppDeps } from '../deps.ts';
import type { HandlerMap, OperationContext, OperationId, Principal, Reply } from './types.ts';
import { authorize, createSecurityHandlers, unauthorizedError, type BasicCredentials } from './security.ts';
import { limitAdministrativeWrite } from '../services/rateLimits/rateLimits.ts';

/** An operation of the contract (OpenAPI 3.1), with its path and method. */
type Operation = OperationOf<OpenAPIV3_1.Document>;
type Backend = OpenAPIBackend<OpenAPIV3_1.Document>;

export interface BackendOptions {
  /** Check every response against the contract; a mismatch becomes a 500 (on in tests). */
  validateResponses: boolean;
}

/** How openapi-backend reads the contract (also used by scripts/memory/validators.ts). */
export function contractBackendOptions(overrides: { quick?: boolean } = {}) {
  return {
    definition: contractCopy(),
    strict: true,
    validate: true,
    // Validators are compiled per operation at its first request instead of all at boot: the
    // boot compile took ~4 s and ~50 MB for operations an instance may never serve (measured in
    // scripts/memory/validators.ts). The first request of each operation pays 30–60 ms once.
    quick: true,
    // Handlers receive the query as validated (numbers and booleans, not strings).
    // Strings stay strings, so returnTo is checked exactly as it will be used.
    coerceTypes: true,
    customizeAjv: (_original: unknown, ajvOptions: object) => {
      const ajv = new Ajv2020.default({ ...ajvOptions, strict: false, allErrors: true });
      addFormats.default(ajv);
      return ajv as never;
    },
    ...overrides,
  };
}

/**
 * The contract's operations, each behind the same pipeline: route, authenticate, authorise,
 * validate, handle. openapi-backend reads the contract, routes, and compiles each operation's
 * request validator (on Ajv 2020: OpenAPI 3.1 schemas are JSON Schema 2020-12, and its default
 * Ajv speaks draft-07). The pipeline itself is ours (`handle` below): openapi-backend's generic
 * handleRequest parsed every request four times (each time copying the headers and the query
 * with lodash and compiling the path template) for what one parse does here.
 */
export async function createBackend(handlers: HandlerMap, deps: AppDeps, options: BackendOptions) {
  const api: Backend = new OpenAPIBackend<OpenAPIV3_1.Document>(contractBackendOptions());

  // openapi-backend checks the document against the OpenAPI 3.0 meta-schema only,
  // which refuses valid 3.1 (`$ref` siblings, info.summary, license.identifier).
  // The contract is checked by `redocly lint` in CI and by the contract tests.
  api.validateDefinition = () => api.document;

  await api.init();
  // The contract is fixed once initialised, yet openapi-backend's router rebuilds every
  // operation object on each getOperations() call, and routing calls it per request
  // (34 µs of 48 per routed request, docs/benchmarks.md). Build the list once.
  const operations = api.router.getOperations();
  const operationsById = new Map(operations.map((operation) => [operation.operationId, operation]));
  api.router.getOperations = () => operations;
  api.router.getOperation = (operationId: string) => operationsById.get(operationId);
  const securityHandlers: Record<string, SecurityHandler> = createSecurityHandlers(deps);
  const plans = new Map(operations.map((operation) => [operation.operationId!, planOperation(operation)]));

  /** One request of a routed operation, from authentication to the reply. */
  async function handle(apiRequest: OpenApiRequest, req: Request, res: Response): Promise<void> {
    const operation = route(api, apiRequest, res);
    const plan = plans.get(operation.operationId!)!;
    refuseHeadOnLoginSteps(operation, req);
    dropUnknownQueryParameters(plan, apiRequest.query as Record<string, unknown>);
    const c = { api, operation, request: parseRequest(plan, apiRequest, req) } as Context;
    c.security = await authenticate(plan, c, req, res);
    // The order of answers: 401, then 403 (permission, origin), then 415, then 400.
    if (plan.requirements.length > 0 && !c.security.authorized) throw unauthorizedError(c);
    authorize(c, req, deps.config);
    requireJsonBody(c, req);
    refuseUndecodablePathParameters(c);
    validateRequest(api, plan, c);

    const operationId = operation.operationId as OperationId;
    const handler = handlers[operationId] as ((ctx: OperationContext<OperationId>, deps: AppDeps) => Promise<Reply>) | undefined;
    if (!handler) throw new Error(`${operationId} has no handler`);
    const ctx = {
      operationId,
      query: c.request.query ?? {},
      params: c.request.params ?? {},
      body: c.request.requestBody,
      principal: principalOf(c),
      platformCredentials: (c.security.platformBasicAuth as BasicCredentials | undefined) ?? null,
      requestId: String(req.id),
      log: req.log,
      req,
      res,
    } as OperationContext<OperationId>;
    // Administrative writes count against the caller's limit once authorised and valid.
    await limitAdministrativeWrite(deps, operationId, ctx.principal);
    const reply = await handler(ctx, deps);
    sendReply(api, operationId, reply, res, options);
  }

  /**
   * Every scheme a requirement names, each run once; a handler's refusal (a throw) is kept as
   * `{ error }` for the 401 to explain. One requirement fully satisfied authorises the request
   * (OpenAPI 3.1 §4.8.30: the requirements are alternatives, the schemes of one all apply).
   */
  async function authenticate(plan: OperationPlan, c: Context, req: Request, res: Response): Promise<Context['security']> {
    const results: Record<string, unknown> = {};
    await Promise.all(
      plan.schemes.map(async (scheme) => {
        const securityHandler = securityHandlers[scheme];
        try {
          results[scheme] = securityHandler ? await securityHandler(c, req, res) : undefined;
        } catch (error) {
          results[scheme] = { error: error || new Error('security handler refused') };
        }
      }),
    );
    const satisfied = (scheme: string) => {
      const result = results[scheme] as { error?: unknown } | undefined;
      return Boolean(result) && !(typeof result === 'object' && result.error);
    };
    return { ...results, authorized: plan.requirements.some((schemes) => schemes.every(satisfied)) };
  }

  /** Express middleware: every request that reaches it is a contract operation or a 404/405. */
  return async function dispatch(req: Request, res: Response): Promise<void> {
    // A plain copy for the pipeline: the routing step trims its query of unknown parameters,
    // and validation coerces the query's types in place. HEAD is GET without a body
    // (RFC 9110 §9.3.2); Node drops the body.
    const apiRequest = {
      method: req.method === 'HEAD' ? 'GET' : req.method,
      path: req.path,
      headers: req.headers,
      query: copyQuery(req.query as Record<string, string | string[]>),
      body: req.body,
    } as OpenApiRequest;
    try {
      await handle(apiRequest, req, res);
    } catch (error) {
      const operationId = res.locals.operationId as string | undefined;
      const apiError = asApiError(error, req);
      if (options.validateResponses && operationId) {
        assertDocumented(api, operationId, apiError.status, undefined);
      }
      sendProblem(req, res, apiError, operationId);
    }
  };
}

type SecurityHandler = (c: Context, req: Request, res: Response) => unknown;

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
function copyQuery(query: Record<string, string | string[]>): Record<string, string | string[]> {
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
function parseRequest(plan: OperationPlan, apiRequest: OpenApiRequest, req: Request): ParsedRequest & PathDecoding {
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

/**
 * The operation at the request's method and path. Remembered on the response for the error
 * path (problem pages and response checks depend on the operation), with the route template
 * for traces; a request the contract does not route is a 404, or a 405 at a known path.
 */
function route(api: Backend, apiRequest: OpenApiRequest, res: Response): Operation {
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

/**
 * The request against the operation's compiled schema (parameters and body), as openapi-backend
 * builds it: `path`, `query`, `header`, `cookie` and `requestBody`. Ajv coerces the query's
 * types in place (numbers and booleans for the handler).
 */
function validateRequest(api: Backend, plan: OperationPlan, c: Context): void {
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
function refuseHeadOnLoginSteps(operation: Operation, req: Request): void {
  if (req.method === 'HEAD' && NO_HEAD_OPERATIONS.has(operation.operationId ?? '')) {
    // RFC 9110 §15.5.6: the 405 lists the methods the resource does support.
    throw new ApiError('METHOD_NOT_ALLOWED', 'This address spends a single-use step: it is only followed with GET.', { headers: { Allow: 'GET' } });
  }
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

function refuseUndecodablePathParameters(c: Context): void {
  const names = (c.request as PathDecoding).undecodablePathParameters ?? [];
  if (names.length === 0) return;
  throw validationError(names.map((name) => ({ pointer: `/path/${escapePointer(name)}`, message: 'is not valid percent-encoded UTF-8', reason: 'ILL_FORMED_UNICODE' })));
}

/**
 * Unknown query parameters are ignored rather than refused: identity providers add
 * their own (session_state, …), and a client flag such as `completed=true` must
 * simply have no effect (spec: resume). Known ones are still validated strictly.
 */
function dropUnknownQueryParameters(plan: OperationPlan, query: Record<string, unknown>): void {
  for (const name of Object.keys(query)) if (!plan.knownQuery.has(name)) delete query[name];
}

function principalOf(c: Context): Principal | null {
  const security = c.security as Record<string, unknown> | undefined;
  if (!security) return null;
  for (const scheme of ['gatewayCookieAuth', 'bearerAuth']) {
    const result = security[scheme] as Principal | { error: unknown } | undefined;
    if (result && !('error' in result)) return result;
  }
  return null;
}

function requireJsonBody(c: Context, req: Request): void {
  const operation = c.operation as { requestBody?: { content?: Record<string, unknown> } };
  // An operation taking another media type (the avatar upload's images) checks its own.
  if (!operation.requestBody?.content?.['application/json']) return;
  const hasBody = Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
  if (hasBody && !req.is(['application/json', 'application/*+json'])) {
    throw new ApiError('UNSUPPORTED_MEDIA_TYPE', 'Send the body as application/json.');
  }
}

function sendReply(api: Backend, operationId: string, reply: Reply, res: Response, options: BackendOptions): void {
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
function assertDocumented(api: Backend, operationId: string, status: number, body: unknown): void {
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

function asApiError(error: unknown, req: Request): ApiError {
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

/** Ajv errors as JSON pointers into the request: `/query/returnTo`, `/body/code`. */
export function toFieldErrors(errors: ErrorObject[]): FieldError[] {
  const seen = new Set<string>();
  const out: FieldError[] = [];
  for (const error of errors) {
    let pointer = error.instancePath.replace(/^\/requestBody/, '/body');
    if (pointer === '' && error.instancePath === '' && error.keyword === 'required' && error.schemaPath.includes('requestBody')) pointer = '/body';
    if (error.keyword === 'required') pointer += `/${escapePointer(String(error.params.missingProperty))}`;
    if (error.keyword === 'additionalProperties') pointer += `/${escapePointer(String(error.params.additionalProperty))}`;
    // anyOf/oneOf report every branch; keep one message per pointer.
    if (['anyOf', 'oneOf', 'if'].includes(error.keyword)) continue;
    const message = error.keyword === 'additionalProperties' ? 'is not a known property' : (error.message ?? 'is invalid');
    const key = `${pointer}\u0000${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ pointer: pointer || '/', message, reason: reasonOf(error) });
  }
  return out.length > 0 ? out : [{ pointer: '/', message: 'is invalid', reason: 'INVALID' }];
}

/**
 * The contract promises a `reason` (FieldErrorReason) with every field error: each Ajv keyword
 * (JSON Schema 2020-12 validation vocabulary) maps to one. Keep in sync with the contract's list.
 */
const REASON_OF_KEYWORD: Readonly<Record<string, FieldErrorReason>> = {
  type: 'WRONG_TYPE',
  maxLength: 'TOO_LONG',
  minLength: 'TOO_SHORT',
  maximum: 'ABOVE_MAX',
  exclusiveMaximum: 'ABOVE_MAX',
  minimum: 'BELOW_MIN',
  exclusiveMinimum: 'BELOW_MIN',
  enum: 'NOT_AN_OPTION',
  const: 'NOT_AN_OPTION',
  pattern: 'PATTERN',
  format: 'INVALID_FORMAT',
  required: 'MISSING',
  dependentRequired: 'MISSING',
  additionalProperties: 'UNKNOWN_PROPERTY',
  unevaluatedProperties: 'UNKNOWN_PROPERTY',
  propertyNames: 'UNKNOWN_PROPERTY',
  minItems: 'TOO_FEW',
  minProperties: 'TOO_FEW',
  minContains: 'TOO_FEW',
  maxItems: 'TOO_MANY',
  maxProperties: 'TOO_MANY',
  maxContains: 'TOO_MANY',
  unevaluatedItems: 'TOO_MANY',
  uniqueItems: 'DUPLICATE_ITEM',
};

function reasonOf(error: ErrorObject): FieldErrorReason {
  return REASON_OF_KEYWORD[error.keyword] ?? 'INVALID';
}

const escapePointer = (segment: string) => segment.replaceAll('~', '~0').replaceAll('/', '~1');
