import createClient, { type Client } from 'openapi-fetch';
import type { components, paths } from '../../generated/gateway.ts';
import { gatewayBaseUrl, type AccountCenterConfig } from './config.ts';

export type Api = Client<paths>;
export type Schemas = components['schemas'];
export type Problem = Schemas['Problem'];

/**
 * The gateway, typed from its contract. Every call sends the gateway cookie (credentials:
 * include): the account center holds no token of its own, in memory or in storage.
 */
export function createApi(config: AccountCenterConfig, fetchImpl: typeof fetch = (...args) => fetch(...args)): Api {
  return createClient<paths>({ baseUrl: gatewayBaseUrl(config), credentials: 'include', fetch: fetchImpl });
}

/** A problem+json answer, or a network failure turned into one, so every page shows errors one way. */
export class ApiProblem extends Error {
  readonly status: number;
  readonly problem: Problem | null;

  constructor(status: number, problem: Problem | null, message?: string) {
    super(message ?? problem?.detail ?? problem?.title ?? `The request failed (${status}).`);
    this.name = 'ApiProblem';
    this.status = status;
    this.problem = problem;
  }

  /** The session is missing or over: the person must sign in (again). */
  get needsSignIn(): boolean {
    return this.status === 401;
  }

  /** Field errors by JSON pointer below /body (e.g. `values/company`), for showing beside inputs. */
  fieldErrors(prefix = '/body/'): Map<string, string> {
    const errors = new Map<string, string>();
    for (const error of this.problem?.errors ?? []) {
      if (error.pointer.startsWith(prefix) && !errors.has(error.pointer.slice(prefix.length))) {
        errors.set(error.pointer.slice(prefix.length), error.message);
      }
    }
    return errors;
  }
}

/**
 * Unwraps an openapi-fetch result: the data, or an ApiProblem. A request that never got an
 * answer is a problem with status 0, so a failed request is never mistaken for success.
 */
export async function call<T>(request: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  let result: { data?: T; error?: unknown; response: Response };
  try {
    result = await request;
  } catch {
    throw new ApiProblem(0, null, 'The gateway could not be reached. Check your connection and try again.');
  }
  if (result.response.ok) return result.data as T;
  const problem = isProblem(result.error) ? result.error : null;
  throw new ApiProblem(result.response.status, problem);
}

function isProblem(value: unknown): value is Problem {
  return typeof value === 'object' && value !== null && 'code' in value && 'status' in value;
}

/** Any failure of a call as an ApiProblem (a thrown non-problem is "the gateway could not be reached"). */
export function problemOf(failure: unknown): ApiProblem {
  return failure instanceof ApiProblem ? failure : new ApiProblem(0, null);
}
