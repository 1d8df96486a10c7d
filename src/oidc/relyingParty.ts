import { createHash } from 'node:crypto';
import * as client from 'openid-client';
import { createRemoteJWKSet, jwtVerify, errors as joseErrors, type JWTPayload } from 'jose';
import type { Logger } from 'pino';
import { ApiError } from '../errors/catalogue.ts';
import { oidcClientConfigured, type Config, type PermissionsSource } from '../config/index.ts';
import type { Permission } from '../domain/types.ts';
import { permissionsFromScope } from '../services/permissions.ts';

export interface RelyingPartySettings {
  issuer: string;
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  scopes: readonly string[];
  /** The `aud` every access token must carry (default: the gateway's client id). */
  accessTokenAudience: string;
  /** The clients whose access tokens are accepted: `client_id` (or `azp`) must be one of them. */
  trustedClientIds: readonly string[];
  /** Where permissions are read from: the `scope` claim, or Zitadel's project roles claims. */
  permissionsFrom: PermissionsSource;
  /** http issuers are accepted only outside production (the dev identity provider). */
  allowInsecureIssuer: boolean;
  /** Per request to the identity provider. */
  timeoutMs?: number;
}

export interface IdTokenClaims {
  sub: string;
  email: string | null;
  emailVerified: boolean;
  name: string | null;
  givenName: string | null;
  familyName: string | null;
}

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

export interface VerifiedLogin {
  idToken: IdTokenClaims;
  accessToken: AccessTokenClaims;
  /** The permissions the new gateway session gets. */
  permissions: Permission[];
}

/** The gateway as the single OpenID Connect client of its identity provider. */
export interface RelyingParty {
  readonly issuer: string;
  /** Step 7 of start: the authorize URL with PKCE S256, state and nonce. */
  authorizationUrl(input: { state: string; nonce: string; codeVerifier: string }): Promise<URL>;
  /** Steps 2 to 4 of the callback: code exchange, ID token and access token verification. */
  completeLogin(input: { callbackUrl: URL; state: string; nonce: string; codeVerifier: string }): Promise<VerifiedLogin>;
  /** Bearer tokens on user and admin routes, verified like the callback's access token. */
  verifyAccessToken(token: string): Promise<AccessTokenClaims>;
}

/**
 * The relying party the configuration describes, or null when no OIDC client is
 * configured (the flow endpoints then answer 503 OIDC_NOT_CONFIGURED).
 */
export function relyingPartyFromConfig(
  config: Config,
  logger: Logger,
  options: Partial<Pick<RelyingPartySettings, 'timeoutMs' | 'allowInsecureIssuer'>> = {},
): RelyingParty | null {
  if (!oidcClientConfigured(config)) return null;
  return createRelyingParty(
    {
      issuer: config.oidc.issuer!,
      clientId: config.oidc.clientId!,
      clientSecret: config.oidc.clientSecret!,
      redirectUri: config.authCallbackUrl,
      scopes: config.oidc.scopes,
      accessTokenAudience: config.oidc.accessTokenAudience ?? config.oidc.clientId!,
      trustedClientIds: config.oidc.trustedClientIds ?? [config.oidc.clientId!],
      permissionsFrom: config.oidc.permissionsFrom,
      allowInsecureIssuer: !config.isProduction,
      ...options,
    },
    logger,
  );
}

/** Asymmetric algorithms only: `none` and HMAC (a shared secret) are never accepted for access tokens. */
const ACCESS_TOKEN_ALGORITHMS = ['RS256', 'PS256', 'ES256', 'EdDSA'];
/** Clock skew allowed between the gateway and the provider (openid-client's default is 30 s too). */
const CLOCK_TOLERANCE_SECONDS = 30;
/** An ID token fresh from the token endpoint was just minted: one issued in the future or hours ago is refused. */
const ID_TOKEN_MAX_AGE_SECONDS = 3600;
/** RFC 9068 explicit typing: a JWT that says it is an access token is never accepted as an ID token. */
const ACCESS_TOKEN_TYPES = new Set(['at+jwt', 'application/at+jwt']);

export function createRelyingParty(settings: RelyingPartySettings, logger: Logger): RelyingParty {
  const timeoutMs = settings.timeoutMs ?? 5000;
  const fetchWithTimeout: client.CustomFetch = (url, options) =>
    fetch(url, { ...options, signal: AbortSignal.timeout(timeoutMs) } as RequestInit);

  let configuration: Promise<client.Configuration> | undefined;
  /** Keys for Bearer tokens, which anyone can send: an unknown `kid` refetches at most every 5 s. */
  let jwks: ReturnType<typeof createRemoteJWKSet> | undefined;
  /**
   * Keys for the tokens of the callback, which come straight from the token endpoint (back
   * channel, client authentication), so no caller can choose their `kid`: an unknown `kid`
   * means the provider rotated its keys, and the set is refetched at once, once per token.
   */
  let tokenEndpointJwks: ReturnType<typeof createRemoteJWKSet> | undefined;

  /**
   * Discovery happens on first use and is retried after a failure, so the
   * service starts (and reports ready) while the provider is still down.
   */
  function discover(): Promise<client.Configuration> {
    configuration ??= (async () => {
      const config = await client.discovery(
        new URL(settings.issuer),
        settings.clientId,
        {
          // The spec requires RS256 ID tokens; pinning stops discovery from widening it.
          id_token_signed_response_alg: 'RS256',
          redirect_uris: [settings.redirectUri],
          response_types: ['code'],
        },
        client.ClientSecretBasic(settings.clientSecret),
        {
          [client.customFetch]: fetchWithTimeout,
          execute: settings.allowInsecureIssuer && settings.issuer.startsWith('http:') ? [client.allowInsecureRequests] : [],
        },
      );
      config[client.customFetch] = fetchWithTimeout;
      // openid-client skips the ID token signature check for tokens from the
      // token endpoint (OIDC Core 3.1.3.7 allows it over TLS); the spec does not.
      // The check is done below (verifyIdTokenSignature) rather than with
      // client.enableNonRepudiationChecks: openid-client refetches its key set on an
      // unknown `kid` only when its copy is at least 60 s old, so every login in the
      // first minute after a provider key rotation would fail with 401.
      const metadata = config.serverMetadata();
      if (!metadata.jwks_uri) throw new Error('the identity provider publishes no jwks_uri');
      const jwksUri = new URL(metadata.jwks_uri);
      jwks = createRemoteJWKSet(jwksUri, { timeoutDuration: timeoutMs, cooldownDuration: 5000 });
      tokenEndpointJwks = createRemoteJWKSet(jwksUri, { timeoutDuration: timeoutMs, cooldownDuration: 0 });
      logger.info({ issuer: metadata.issuer }, 'OpenID provider discovered');
      return config;
    })().catch((error: unknown) => {
      configuration = undefined;
      logger.warn({ err: error, issuer: settings.issuer }, 'OpenID provider discovery failed');
      throw new ApiError('IDP_UNAVAILABLE', 'The identity provider could not be reached. Try again shortly.', { cause: error });
    });
    return configuration;
  }

  async function verifyAccessToken(token: string, keys?: ReturnType<typeof createRemoteJWKSet>): Promise<AccessTokenClaims> {
    const config = await discover();
    if (token.split('.').length === 3) return verifyJwtAccessToken(token, config, keys ?? jwks!);
    return introspect(token, config);
  }

  /** RFC 9068: signature against the issuer's JWKS, `iss`, `exp`, and `aud` when configured. */
  async function verifyJwtAccessToken(token: string, config: client.Configuration, keys: ReturnType<typeof createRemoteJWKSet>): Promise<AccessTokenClaims> {
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, keys, {
        issuer: config.serverMetadata().issuer,
        algorithms: ACCESS_TOKEN_ALGORITHMS,
        ...(settings.accessTokenAudience ? { audience: settings.accessTokenAudience } : {}),
        requiredClaims: ['sub', 'exp'],
      }));
    } catch (error) {
      if (isNetworkError(error)) throw unavailable(error);
      throw new ApiError('ACCESS_TOKEN_INVALID', 'The access token could not be verified.', { cause: error });
    }
    return accessTokenClaims(payload);
  }

  /** RFC 7662 for opaque access tokens. */
  async function introspect(token: string, config: client.Configuration): Promise<AccessTokenClaims> {
    let result: client.IntrospectionResponse;
    try {
      result = await client.tokenIntrospection(config, token);
    } catch (error) {
      throw classify(error, 'ACCESS_TOKEN_INVALID');
    }
    if (!result.active || typeof result.sub !== 'string' || !result.sub) {
      throw new ApiError('ACCESS_TOKEN_INVALID', 'The access token is not active.');
    }
    if (settings.accessTokenAudience && !audiences(result.aud).includes(settings.accessTokenAudience)) {
      throw new ApiError('ACCESS_TOKEN_INVALID', 'The access token is not meant for this service.');
    }
    return accessTokenClaims(result as Record<string, unknown>);
  }

  /**
   * The ID token's RS256 signature against the provider's published keys (openid-client has
   * already checked alg, iss, aud, azp, exp, sub and nonce), and its `iat`: not in the future,
   * not older than an hour. A JWT typed as an access token is not an ID token.
   */
  async function verifyIdTokenSignature(idToken: string, config: client.Configuration): Promise<void> {
    let typ: string | undefined;
    try {
      ({ protectedHeader: { typ } } = await jwtVerify(idToken, tokenEndpointJwks!, {
        algorithms: ['RS256'],
        issuer: config.serverMetadata().issuer,
        audience: settings.clientId,
        requiredClaims: ['sub', 'exp', 'iat'],
        maxTokenAge: ID_TOKEN_MAX_AGE_SECONDS,
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
      }));
    } catch (error) {
      if (isNetworkError(error)) throw unavailable(error);
      throw new ApiError('ID_TOKEN_INVALID', 'The ID token could not be verified.', { cause: error });
    }
    if (typ !== undefined && ACCESS_TOKEN_TYPES.has(typ.toLowerCase())) {
      throw new ApiError('ID_TOKEN_INVALID', 'The ID token is typed as an access token.');
    }
  }

  return {
    issuer: settings.issuer,

    async authorizationUrl({ state, nonce, codeVerifier }) {
      const config = await discover();
      return client.buildAuthorizationUrl(config, {
        redirect_uri: settings.redirectUri,
        response_type: 'code',
        scope: settings.scopes.join(' '),
        state,
        nonce,
        // RFC 7636 §4.2, S256: BASE64URL(SHA256(ASCII(code_verifier))). Computed with
        // node:crypto: openid-client's helper awaits WebCrypto, a libuv round trip per
        // request that cost start 15% of its throughput (docs/benchmarks.md).
        code_challenge: createHash('sha256').update(codeVerifier, 'ascii').digest('base64url'),
        code_challenge_method: 'S256',
      });
    },

    async completeLogin({ callbackUrl, state, nonce, codeVerifier }) {
      const config = await discover();
      // RFC 9207: an `iss` in the authorization response must name our issuer
      // (mix-up defence). openid-client checks it too; this gives a clear error.
      const iss = callbackUrl.searchParams.get('iss');
      if (iss !== null && iss !== config.serverMetadata().issuer) {
        throw new ApiError('IDP_ERROR', 'The authorization response came from an unexpected issuer.');
      }
      if (iss === null && config.serverMetadata().authorization_response_iss_parameter_supported === true) {
        throw new ApiError('IDP_ERROR', 'The authorization response does not name its issuer.');
      }
      let tokens: Awaited<ReturnType<typeof client.authorizationCodeGrant>>;
      try {
        tokens = await client.authorizationCodeGrant(config, callbackUrl, {
          pkceCodeVerifier: codeVerifier,
          expectedState: state,
          expectedNonce: nonce,
          idTokenExpected: true,
        });
      } catch (error) {
        throw classify(error, 'ID_TOKEN_INVALID');
      }
      const claims = tokens.claims();
      if (!claims || !tokens.id_token || typeof claims.sub !== 'string' || !claims.sub) {
        throw new ApiError('ID_TOKEN_INVALID', 'The ID token carries no subject.');
      }
      await verifyIdTokenSignature(tokens.id_token, config);
      const accessToken = await verifyAccessToken(tokens.access_token, tokenEndpointJwks);
      if (accessToken.sub !== claims.sub) {
        throw new ApiError('TOKEN_SUBJECT_MISMATCH', 'The access token was issued for another subject than the ID token.');
      }
      return {
        idToken: {
          sub: claims.sub,
          email: typeof claims.email === 'string' ? claims.email : null,
          emailVerified: claims.email_verified === true,
          name: typeof claims.name === 'string' ? claims.name : null,
          givenName: typeof claims.given_name === 'string' ? claims.given_name : null,
          familyName: typeof claims.family_name === 'string' ? claims.family_name : null,
        },
        accessToken,
        permissions: accessToken.permissions,
      };
    },

    verifyAccessToken: (token: string) => verifyAccessToken(token),
  };
}

// TODO(issue 8 §1-2, in progress): client and typ rules, permissions from Zitadel roles.
function accessTokenClaims(claims: Record<string, unknown>): AccessTokenClaims {
  const clientId = typeof claims.client_id === 'string' ? claims.client_id : typeof claims.azp === 'string' ? claims.azp : '';
  return { sub: String(claims.sub), clientId, permissions: permissionsFromScope(scopeOf(claims.scope ?? claims.scp)), claims };
}

function scopeOf(value: unknown): string {
  if (Array.isArray(value)) return value.filter((item) => typeof item === 'string').join(' ');
  return typeof value === 'string' ? value : '';
}

function audiences(value: unknown): string[] {
  if (Array.isArray(value)) return value.filter((item): item is string => typeof item === 'string');
  return typeof value === 'string' ? [value] : [];
}

function isNetworkError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error.name === 'TimeoutError' || error.name === 'AbortError') return true;
  if (error instanceof joseErrors.JWKSTimeout) return true;
  // undici: TypeError('fetch failed') with the socket error as cause.
  return error instanceof TypeError && error.message === 'fetch failed';
}

function unavailable(cause: unknown): ApiError {
  return new ApiError('IDP_UNAVAILABLE', 'The identity provider could not be reached. Try again shortly.', { cause });
}

/**
 * Maps openid-client failures onto the spec's answers: the provider refusing
 * (an OAuth error body) is 401, the provider down or failing (network, 5xx) is
 * 503, and a response that fails validation is the given code.
 */
function classify(error: unknown, validationCode: 'ID_TOKEN_INVALID' | 'ACCESS_TOKEN_INVALID'): ApiError {
  if (error instanceof ApiError) return error;
  if (isNetworkError(error) || (error instanceof Error && isNetworkError(error.cause))) return unavailable(error);
  if (error instanceof client.ResponseBodyError) {
    if (error.status >= 500) return unavailable(error);
    return new ApiError('IDP_CODE_EXCHANGE_FAILED', 'The identity provider refused the authorization code.', { cause: error });
  }
  if (error instanceof client.AuthorizationResponseError) {
    return new ApiError('IDP_ERROR', 'The identity provider refused the login.', { cause: error });
  }
  const status = (error as { cause?: { status?: unknown } })?.cause?.status;
  if (typeof status === 'number' && status >= 500) return unavailable(error);
  if (typeof status === 'number' && status >= 400) {
    return new ApiError('IDP_CODE_EXCHANGE_FAILED', 'The identity provider refused the authorization code.', { cause: error });
  }
  return new ApiError(validationCode, validationCode === 'ID_TOKEN_INVALID' ? 'The ID token could not be verified.' : 'The access token could not be verified.', { cause: error });
}
