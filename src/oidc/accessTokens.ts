// Access-token verification: which tokens are access tokens issued for this service (GUIDE §5,
// "Three credentials": a Bearer token is only one issued for this service, `aud`, by a trusted
// client, `client_id`/`azp`, never an ID token or a refresh token). The same rules serve Bearer
// authentication and the access token the callback receives from the token endpoint.
//
// A JWT (three dot-separated parts) is verified locally, never with a network call beyond the
// cached JWKS (RFC 9068 §4); anything else is asked about by introspection (RFC 7662), behind a
// syntactic pre-check, a cache, single flight and a concurrency bound (see `introspected`).

import { createHash } from 'node:crypto';
import { jwtVerify, type JWTPayload, type JWTVerifyGetKey, type JWTVerifyOptions, type JWSHeaderParameters } from 'jose';
import type { Logger } from 'pino';
import { ApiError } from '../errors/catalogue.ts';
import type { Permission } from '../domain/types.ts';
import type { PermissionReader } from './permissions.ts';
import { BoundedTtlCache, ConcurrencyLimit, ConcurrencyLimitExceeded } from './introspectionCache.ts';
import { accessTokenInvalid, isKeySetUnavailable, isNetworkError, unavailable } from './providerErrors.ts';

/** A verified access token: issued for this service (`aud`) by a trusted client. */
export interface AccessTokenClaims {
  sub: string;
  /** The client the token was issued to: `client_id`, else `azp`. */
  clientId: string;
  /** The gateway permissions the token grants, read as OIDC_PERMISSIONS_FROM says. */
  permissions: Permission[];
  /** Every claim of the token (JWT payload or introspection answer), for rules that need more. */
  claims: Readonly<Record<string, unknown>>;
}

export interface AccessTokenRules {
  /** The issuer from discovery. */
  issuer: string;
  /** OIDC_ACCESS_TOKEN_AUDIENCE: `aud` must contain it (always checked). */
  audience: string;
  /** OIDC_TRUSTED_CLIENT_IDS: `client_id` (else `azp`) must be one of them. */
  trustedClientIds: readonly string[];
  /** OIDC_PERMISSIONS_FROM. */
  readPermissions: PermissionReader;
}

/**
 * Introspection bounds, and why:
 * - maxConcurrent / maxWaiting: at most 8 calls to the provider at once, 64 more waiting (each
 *   for at most the provider timeout); beyond that 503 IDP_UNAVAILABLE at once. A flood of
 *   distinct made-up tokens thus costs the provider 8 calls at a time, and the gateway a
 *   bounded queue, whatever the flood's size.
 * - positive answers are kept until the token's `exp`, at most 60 s (a revoked token stays
 *   usable for at most a minute); 5,000 entries (a claims object each, a few hundred bytes).
 * - negative answers are kept 5 s: long enough to absorb a client retrying a dead token, short
 *   enough that a token the provider did not know yet (Zitadel reads are eventually consistent
 *   after writes) works moments later; 10,000 entries (an expiry and a short message each).
 * - both caches are keyed by the token's SHA-256, never the token itself, and evict their oldest
 *   entry when full, so memory stays bounded under any flood; negatives never evict positives.
 * - minOpaqueTokenLength: RFC 6749 §10.10 wants at most a 2^-128 chance of guessing a token,
 *   which takes at least 22 base64url characters; shorter strings are not tokens.
 */
export const INTROSPECTION_LIMITS = {
  maxConcurrent: 8,
  maxWaiting: 64,
  positiveTtlMs: 60_000,
  positiveEntries: 5_000,
  negativeTtlMs: 5_000,
  negativeEntries: 10_000,
  minOpaqueTokenLength: 22,
  maxOpaqueTokenLength: 4_096,
} as const;

/** A JWT in an Authorization header: Node's default header limit is 16 KiB in all. */
const MAX_JWT_LENGTH = 16_384;
/** RFC 6750 §2.1 b64token: the only characters a Bearer token may hold. */
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;
/** Asymmetric algorithms only: `none` and HMAC (a shared secret) are never accepted for access tokens. */
export const ACCESS_TOKEN_ALGORITHMS = ['RS256', 'PS256', 'ES256', 'EdDSA'];
/** Clock skew allowed between the gateway and the provider (openid-client's default is 30 s too). */
export const CLOCK_TOLERANCE_SECONDS = 30;
/**
 * `typ` values of an access token, normalised (RFC 7515 §4.1.9: case-insensitive, `application/`
 * may be left out): `at+jwt` (RFC 9068 §2.1) and plain `JWT`, which Zitadel puts on its access
 * tokens (and on its ID and logout tokens, so `JWT` alone proves nothing: see zitadelAccessToken).
 * Typing is positive (RFC 8725 §3.11): a JWT without `typ` is refused, and so is anything else
 * (logout+jwt, secevent+jwt, dpop+jwt…).
 */
const ACCESS_TOKEN_TYPS = new Set(['at+jwt', 'jwt']);
/**
 * Claims only an ID token carries (OIDC Core §2, §3.1.3.6, §3.3.2.11; FAPI 1.0 `s_hash`) and the
 * `events` of a logout token (Back-Channel Logout 1.0 §2.4). Zitadel types its ID tokens `JWT`,
 * like its access tokens, so these are what tells them apart. `auth_time`, `acr` and `amr` are
 * not on the list: RFC 9068 §2.2.1 allows them in access tokens.
 */
const ID_TOKEN_ONLY_CLAIMS = ['nonce', 'at_hash', 'c_hash', 's_hash', 'events'] as const;
/**
 * `token_type` values of an introspected access token (RFC 7662 §2.2 uses RFC 6749 §7.1 token
 * types; RFC 8693 §3 names the token kinds). DPoP-bound tokens need a proof this gateway does not
 * check, so they are not accepted.
 */
const ACCESS_TOKEN_TYPES = new Set(['bearer', 'access_token', 'urn:ietf:params:oauth:token-type:access_token']);

export interface AccessTokenVerifier {
  /** `keys`: the Bearer key set (refetches rate-limited) or the token endpoint's (refetch at once). */
  verify(token: string, keys: 'bearer' | 'token-endpoint'): Promise<AccessTokenClaims>;
}

export interface AccessTokenVerifierInput {
  rules: AccessTokenRules;
  bearerKeys: JWTVerifyGetKey;
  tokenEndpointKeys: JWTVerifyGetKey;
  /** RFC 7662 at the provider; null when it publishes no introspection endpoint. */
  introspect: ((token: string) => Promise<Record<string, unknown>>) | null;
  /** How long a call waits for a free introspection slot. */
  waitTimeoutMs: number;
  logger: Logger;
}

export function createAccessTokenVerifier(input: AccessTokenVerifierInput): AccessTokenVerifier {
  const { rules, logger } = input;
  const trusted = new Set(rules.trustedClientIds);
  // Built once, not per request: options, key getters, the trusted set, caches.
  const jwtOptions: JWTVerifyOptions = {
    issuer: rules.issuer,
    audience: rules.audience,
    algorithms: ACCESS_TOKEN_ALGORITHMS,
    requiredClaims: ['sub', 'exp', 'aud'],
    clockTolerance: CLOCK_TOLERANCE_SECONDS,
  };
  /**
   * A JWT typed plain `JWT` is an access token only with Zitadel's access-token shape: a
   * `client_id` (RFC 9068 §2.2) and no `azp`. Zitadel puts `azp` (and `client_id`) on every ID
   * token and never on an access token (shared/research/zitadel-api.md §5), and an ID token
   * need not carry a nonce or at_hash, so the ID-token claims alone cannot tell them apart.
   */
  function zitadelAccessToken(payload: JWTPayload): void {
    if (typeof payload.client_id !== 'string' || payload.azp !== undefined) {
      throw accessTokenInvalid('A token typed "JWT" is accepted only as an access token naming its client in client_id, without azp (an ID token names it in azp).');
    }
  }
  // The header is checked before a key is looked up, so a token of the wrong type never makes
  // the gateway refetch the provider's keys.
  const bearerKeys: JWTVerifyGetKey = (header, token) => (assertAccessTokenType(header), input.bearerKeys(header, token));
  const tokenEndpointKeys: JWTVerifyGetKey = (header, token) => (assertAccessTokenType(header), input.tokenEndpointKeys(header, token));
  const positives = new BoundedTtlCache<AccessTokenClaims>(INTROSPECTION_LIMITS.positiveEntries);
  const negatives = new BoundedTtlCache<string>(INTROSPECTION_LIMITS.negativeEntries);
  const inFlight = new Map<string, Promise<AccessTokenClaims>>();
  const limit = new ConcurrencyLimit(INTROSPECTION_LIMITS.maxConcurrent, INTROSPECTION_LIMITS.maxWaiting);

  /** Checks shared by both paths: not an ID token, a trusted client, a subject. */
  function accessTokenClaims(claims: Record<string, unknown>): AccessTokenClaims {
    for (const claim of ID_TOKEN_ONLY_CLAIMS) {
      if (claims[claim] !== undefined) throw accessTokenInvalid(`An ID token or logout token (it carries "${claim}") is not an access token.`);
    }
    const clientId = clientOf(claims);
    if (clientId === undefined || !trusted.has(clientId)) throw accessTokenInvalid('The access token was not issued to a trusted client.');
    if (typeof claims.sub !== 'string' || !claims.sub) throw accessTokenInvalid('The access token names no subject.');
    return { sub: claims.sub, clientId, permissions: rules.readPermissions(claims), claims };
  }

  /** RFC 9068 §4: signature against the issuer's JWKS, asymmetric alg, typ, iss, aud, exp. */
  async function verifyJwt(token: string, keys: JWTVerifyGetKey): Promise<AccessTokenClaims> {
    let payload: JWTPayload;
    let header: JWSHeaderParameters;
    try {
      ({ payload, protectedHeader: header } = await jwtVerify(token, keys, jwtOptions));
    } catch (error) {
      if (error instanceof ApiError) throw error;
      if (isNetworkError(error) || isKeySetUnavailable(error)) throw unavailable(error);
      throw accessTokenInvalid('The access token could not be verified.', error);
    }
    if (normalisedTyp(header) === 'jwt') zitadelAccessToken(payload);
    return accessTokenClaims(payload);
  }

  /** RFC 7662 §2.2: what an introspection answer must say for the token to be ours. */
  function checkIntrospectionAnswer(answer: Record<string, unknown>, nowSeconds: number): AccessTokenClaims {
    if (answer.active !== true) throw accessTokenInvalid('The access token is not active.');
    // Positive typing: RFC 7662 §2.2 makes token_type optional, so an answer without it does not
    // say the token is an access token. Zitadel and oidc-provider answer `Bearer` for theirs.
    const tokenType = answer.token_type;
    if (typeof tokenType !== 'string' || !ACCESS_TOKEN_TYPES.has(tokenType.toLowerCase())) {
      throw accessTokenInvalid(tokenType === undefined ? 'The introspection answer does not say the token is an access token (no token_type).' : 'The token is not an access token.');
    }
    if (answer.iss !== undefined && answer.iss !== rules.issuer) throw accessTokenInvalid('The access token comes from another issuer.');
    if (answer.exp !== undefined && (typeof answer.exp !== 'number' || answer.exp <= nowSeconds - CLOCK_TOLERANCE_SECONDS)) {
      throw accessTokenInvalid('The access token has expired.');
    }
    if (answer.nbf !== undefined && (typeof answer.nbf !== 'number' || answer.nbf > nowSeconds + CLOCK_TOLERANCE_SECONDS)) {
      throw accessTokenInvalid('The access token is not valid yet.');
    }
    if (!audiences(answer.aud).includes(rules.audience)) throw accessTokenInvalid('The access token is not meant for this service.');
    return accessTokenClaims(answer);
  }

  /** One call to the provider, within the concurrency bound; the answer is cached either way. */
  async function lookUp(key: string, token: string): Promise<AccessTokenClaims> {
    const introspect = input.introspect!;
    let answer: Record<string, unknown>;
    try {
      answer = await limit.run(() => introspect(token), input.waitTimeoutMs);
    } catch (error) {
      throw introspectionFailure(error, logger); // never cached: the next request asks again
    }
    const now = Date.now();
    try {
      const claims = checkIntrospectionAnswer(answer, Math.floor(now / 1000));
      // Shared by every request that hits the cache: frozen, so no caller can change another's.
      Object.freeze(claims.permissions);
      Object.freeze(claims.claims);
      const exp = typeof answer.exp === 'number' ? answer.exp * 1000 : Number.POSITIVE_INFINITY;
      positives.set(key, claims, Math.min(exp, now + INTROSPECTION_LIMITS.positiveTtlMs), now);
      return claims;
    } catch (error) {
      if (error instanceof ApiError) negatives.set(key, error.detail ?? error.message, now + INTROSPECTION_LIMITS.negativeTtlMs, now);
      throw error;
    }
  }

  /** An opaque token: cached answer, else the call already in flight for it, else a new call. */
  function introspected(token: string): Promise<AccessTokenClaims> {
    if (!input.introspect) return Promise.reject(accessTokenInvalid('The identity provider offers no introspection: only JWT access tokens are accepted.'));
    const key = createHash('sha256').update(token).digest('base64url');
    const now = Date.now();
    const known = positives.get(key, now);
    if (known) return Promise.resolve(known);
    const refused = negatives.get(key, now);
    if (refused !== undefined) return Promise.reject(accessTokenInvalid(refused));
    let flight = inFlight.get(key);
    if (!flight) {
      flight = lookUp(key, token).finally(() => inFlight.delete(key));
      inFlight.set(key, flight);
    }
    return flight;
  }

  return {
    verify(token, keys) {
      switch (tokenForm(token)) {
        case 'jwt':
          return verifyJwt(token, keys === 'bearer' ? bearerKeys : tokenEndpointKeys);
        case 'opaque':
          return introspected(token);
        default:
          // Cheap syntactic refusal, before any network call or cache entry.
          return Promise.reject(accessTokenInvalid('The access token is malformed.'));
      }
    },
  };
}

/** A JWS compact serialisation (RFC 7515 §7.1) is verified locally; other tokens are introspected. */
function tokenForm(token: string): 'jwt' | 'opaque' | 'junk' {
  if (token.length > MAX_JWT_LENGTH || !B64TOKEN.test(token)) return 'junk';
  const first = token.indexOf('.');
  const second = first < 0 ? -1 : token.indexOf('.', first + 1);
  if (second > 0 && token.indexOf('.', second + 1) < 0) return 'jwt';
  if (token.length < INTROSPECTION_LIMITS.minOpaqueTokenLength || token.length > INTROSPECTION_LIMITS.maxOpaqueTokenLength) return 'junk';
  return 'opaque';
}

function normalisedTyp(header: JWSHeaderParameters): string {
  return typeof header.typ === 'string' ? header.typ.toLowerCase().replace(/^application\//, '') : '';
}

function assertAccessTokenType(header: JWSHeaderParameters): void {
  if (!ACCESS_TOKEN_TYPS.has(normalisedTyp(header))) throw accessTokenInvalid('The token is not typed as an access token (typ at+jwt, or JWT).');
}

/** RFC 9068 §2.2 `client_id`; `azp` (OIDC Core §2) for providers that name the client so. */
function clientOf(claims: Record<string, unknown>): string | undefined {
  const clientId = claims.client_id ?? claims.azp;
  return typeof clientId === 'string' && clientId ? clientId : undefined;
}

function audiences(value: unknown): string[] {
  if (Array.isArray(value)) return value.filter((item): item is string => typeof item === 'string');
  return typeof value === 'string' ? [value] : [];
}

/**
 * The provider could not answer: 503 IDP_UNAVAILABLE, whatever the cause, since the token itself
 * was never judged. The provider refusing the gateway's own client credentials is a configuration
 * fault, logged as an error.
 */
function introspectionFailure(error: unknown, logger: Logger): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof ConcurrencyLimitExceeded) {
    return unavailable(error, 'Too many access tokens are being checked with the identity provider. Try again shortly.');
  }
  if (!isNetworkError(error) && !(error instanceof Error && isNetworkError(error.cause))) {
    logger.error({ err: error }, 'token introspection failed: check OIDC_CLIENT_ID and OIDC_CLIENT_SECRET, and the provider');
  }
  return unavailable(error);
}
