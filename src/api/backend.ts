import { OpenAPIBackend, type Context, type Operation as OperationOf, type Request as OpenApiRequest } from 'openapi-backend';
import type { OpenAPIV3_1 } from 'openapi-types';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { Request, Response } from 'express';
import { sendProblem } from '../errors/problem.ts';
import { contractCopy } from '../contract.ts';
import type { AppDeps } from '../deps.ts';
import type { HandlerMap, OperationContext, OperationId, Principal, Reply } from './types.ts';
import { authorize, createSecurityHandlers, unauthorizedError, type BasicCredentials } from './security.ts';
import { limitAdministrativeWrite } from '../services/rateLimits/rateLimits.ts';
import { copyQuery, dropUnknownQueryParameters, parseRequest, planOperation, refuseUndecodablePathParameters, requireJsonBody, validateRequest, type OperationPlan } from './requestParsing.ts';
import { refuseHeadOnLoginSteps, route } from './routing.ts';
import { asApiError, assertDocumented, sendReply } from './replies.ts';

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

function principalOf(c: Context): Principal | null {
  const security = c.security as Record<string, unknown> | undefined;
  if (!security) return null;
  for (const scheme of ['gatewayCookieAuth', 'bearerAuth']) {
    const result = security[scheme] as Principal | { error: unknown } | undefined;
    if (result && !('error' in result)) return result;
  }
  return null;
}
