// The typed client over the gateway's contract (openapi-fetch with the contract's generated
// types, gateway.ts): every path, parameter and answer of the gateway is checked by the
// compiler. Two credentials: the platform's own client id and secret (HTTP Basic, for the
// exchange), and a person's platform credential from the exchange (`gwp_…`), which the gateway
// reads as its session cookie, sent server to server only.
import createClient, { type Client } from 'openapi-fetch';
import type { components, paths } from './gateway.ts';

export type { components, paths };
export type GatewayClient = Client<paths>;
/** What the exchange answers (POST /v1/auth/exchange, 200). */
export type Exchanged = paths['/v1/auth/exchange']['post']['responses'][200]['content']['application/json'];
/** The onboarding fields of a platform with the person's values (GET /v1/onboarding/{platformKey}/requirements, 200). */
export type OnboardingRequirements = paths['/v1/onboarding/{platformKey}/requirements']['get']['responses'][200]['content']['application/json'];
/** The gateway's error answer (problem+json). */
export type Problem = components['schemas']['Problem'];

export interface ClientOptions {
  gatewayUrl: string;
  /** The gateway's cookie name (its GATEWAY_COOKIE_NAME); default gw_session. */
  cookieName?: string;
  /** Per request (default 10 s): a gateway that does not answer fails the call instead of holding it. */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

function baseOptions(options: ClientOptions) {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const fetchImpl = options.fetch ?? fetch;
  return {
    baseUrl: options.gatewayUrl.replace(/\/+$/, ''),
    fetch: (request: Request) => fetchImpl(request, { signal: AbortSignal.any([request.signal, AbortSignal.timeout(timeoutMs)]) }),
  };
}

/** Calls on behalf of a signed-in person: the platform credential as the gateway cookie. */
export function clientWithCredential(options: ClientOptions, platformCredential: string): GatewayClient {
  if (!/^[\x21-\x7e]+$/.test(platformCredential) || /[;,]/.test(platformCredential)) throw new TypeError('not a platform credential');
  return createClient<paths>({ ...baseOptions(options), headers: { Cookie: `${options.cookieName ?? 'gw_session'}=${platformCredential}` } });
}

/** Calls as the platform itself (the exchange): HTTP Basic with its client id and secret (RFC 7617, each part form-encoded as RFC 6749 §2.3.1 asks). */
export function clientWithPlatformSecret(options: ClientOptions, credentials: { clientId: string; clientSecret: string }): GatewayClient {
  const basic = Buffer.from(`${encodeURIComponent(credentials.clientId)}:${encodeURIComponent(credentials.clientSecret)}`).toString('base64');
  return createClient<paths>({ ...baseOptions(options), headers: { Authorization: `Basic ${basic}` } });
}

/** The typed client with no credential (public operations: the JWKS, health). */
export function anonymousClient(options: ClientOptions): GatewayClient {
  return createClient<paths>(baseOptions(options));
}
