// The gateway as the single OpenID Connect client of its identity provider (openid-client v6):
// discovery, the authorize URL (PKCE S256, state, nonce), and the callback's code exchange with
// ID token and access token verification. Which tokens count as access tokens for this service,
// for the callback and for Bearer authentication alike, is decided in accessTokens.ts.

import { createHash } from 'node:crypto';
import * as client from 'openid-client';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import type { Logger } from 'pino';
import { ApiError } from '../errors/catalogue.ts';
import { oidcClientConfigured, type Config, type PermissionsSource } from '../config/index.ts';
import type { Permission } from '../domain/types.ts';
import { createPermissionReader, unionPermissions, type PermissionReader } from './permissions.ts';
import { CLOCK_TOLERANCE_SECONDS, createAccessTokenVerifier, type AccessTokenClaims, type AccessTokenVerifier } from './accessTokens.ts';
import { classifyCodeExchangeError, isNetworkError, unavailable } from './providerErrors.ts';
import { coarseTimeout } from './timeouts.ts';
import { verifyLogoutToken, type VerifiedLogoutToken } from './logoutTokens.ts';

export type { AccessTokenClaims } from './accessTokens.ts';

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
  /** The `acr_values` of a second factor, sent only when discovery lists it (OIDC_SECOND_FACTOR_ACR). */
  secondFactorAcr?: string;
}

export interface IdTokenClaims {
  sub: string;
  /** The provider's session (OIDC Front/Back-Channel Logout `sid`), when it names one. */
  sid: string | null;
  /** The ID token itself: kept sealed as the `id_token_hint` of RP-initiated logout. */
  raw: string;
  email: string | null;
  emailVerified: boolean;
  name: string | null;
  givenName: string | null;
  familyName: string | null;
  /** When the person authenticated (`auth_time`, seconds since the epoch), when the token says (OIDC Core §2). */
  authTime: number | null;
  /** How (`amr`, RFC 8176), when the token says. */
  amr: string[] | null;
  /** The authentication context class (`acr`), when the token says. */
  acr: string | null;
}

/** What a platform asked of the provider for one login (freshSignIn.ts). */
export interface AuthorizationOptions {
  /** OIDC Core §3.1.2.1 `max_age`. */
  maxAgeSeconds: number | null;
  /** `prompt=login`. */
  forceLogin: boolean;
  /** `acr_values` of a second factor, when the provider lists it. */
  secondFactor: boolean;
}

export interface VerifiedLogin {
  idToken: IdTokenClaims;
  accessToken: AccessTokenClaims;
  /**
   * The permissions the new gateway session gets. `scope`: the access token's. `zitadel-roles`:
   * those the access token (JWT claims or introspection answer) or the ID token grants. Zitadel
   * puts roles into the ID token only with idTokenRoleAssertion and into a JWT access token only
   * with accessTokenRoleAssertion, so either may be the one that carries them; both were issued
   * to this client for the same subject in the same token response, and both are verified.
   */
  permissions: Permission[];
}

/** The gateway as the single OpenID Connect client of its identity provider. */
export interface RelyingParty {
  readonly issuer: string;
  /** Step 7 of start: the authorize URL with PKCE S256, state and nonce. */
  authorizationUrl(input: { state: string; nonce: string; codeVerifier: string; authentication?: AuthorizationOptions }): Promise<URL>;
  /** Steps 2 to 4 of the callback: code exchange, ID token and access token verification. */
  completeLogin(input: { callbackUrl: URL; state: string; nonce: string; codeVerifier: string }): Promise<VerifiedLogin>;
  /**
   * Bearer tokens on user and admin routes, verified like the callback's access token: only an
   * access token issued for OIDC_ACCESS_TOKEN_AUDIENCE to one of OIDC_TRUSTED_CLIENT_IDS
   * (accessTokens.ts).
   */
  verifyAccessToken(token: string): Promise<AccessTokenClaims>;
  /**
   * RP-Initiated Logout 1.0: the provider's end-session URL for a session's ID token, or null
   * when the provider publishes no `end_session_endpoint`.
   */
  endSessionUrl(input: { idTokenHint: string | null; postLogoutRedirectUri: string; state: string }): Promise<URL | null>;
  /**
   * Back-Channel Logout 1.0 §2.6: a logout token posted by the provider, verified against its
   * published keys (logoutTokens.ts); the replay check is the caller's. Throws LogoutTokenRefused
   * (400) or ApiError IDP_UNAVAILABLE (discovery or keys unreachable: 503).
   */
  verifyLogoutToken(token: string): Promise<VerifiedLogoutToken>;
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
      secondFactorAcr: config.oidc.secondFactorAcr,
      ...options,
    },
    logger,
  );
}

/** An ID token fresh from the token endpoint was just minted: one issued in the future or hours ago is refused. */
const ID_TOKEN_MAX_AGE_SECONDS = 3600;
/** RFC 9068 explicit typing: a JWT that says it is an access token is never accepted as an ID token. */
const ACCESS_TOKEN_TYPS = new Set(['at+jwt', 'application/at+jwt']);

/** What discovery yields, built once per provider. */
interface Discovered {
  config: client.Configuration;
  issuer: string;
  /** The provider says it sends `iss` with every authorization response (RFC 9207). */
  issParameterRequired: boolean;
  endSessionEndpoint: string | null;
  /** The provider lists OIDC_SECOND_FACTOR_ACR in `acr_values_supported`: it is sent with a second-factor request. */
  secondFactorAcrSupported: boolean;
  /** Keys for the tokens of the callback (see discover()). */
  tokenEndpointJwks: ReturnType<typeof createRemoteJWKSet>;
  /** Keys for tokens anyone can send (Bearer tokens, logout tokens): an unknown `kid` refetches at most every 5 s. */
  publicEndpointJwks: ReturnType<typeof createRemoteJWKSet>;
  accessTokens: AccessTokenVerifier;
}

export function createRelyingParty(settings: RelyingPartySettings, logger: Logger): RelyingParty {
  const timeoutMs = settings.timeoutMs ?? 5000;
  // The provider's answer within timeoutMs (a little more: timeouts.ts), for every call.
  const timeoutSignal = coarseTimeout(timeoutMs);
  const fetchWithTimeout: client.CustomFetch = (url, options) => fetch(url, { ...options, signal: timeoutSignal() } as RequestInit);
  if (!settings.accessTokenAudience) throw new Error('createRelyingParty: accessTokenAudience is required (default: the client id)');
  if (settings.trustedClientIds.length === 0) throw new Error('createRelyingParty: trustedClientIds must name at least one client');
  // OIDC_PERMISSIONS_FROM. In zitadel-roles mode the roles claim of the project named by the
  // audience is read too (when OIDC_ACCESS_TOKEN_AUDIENCE is the Zitadel project id).
  const readPermissions: PermissionReader = createPermissionReader(settings.permissionsFrom, { projectIds: [settings.accessTokenAudience] });

  let discovered: Promise<Discovered> | undefined;

  /**
   * Discovery happens on first use and is retried after a failure, so the
   * service starts (and reports ready) while the provider is still down.
   */
  function discover(): Promise<Discovered> {
    discovered ??= (async () => {
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
      // openid-client's own timeout (30 s) builds an AbortSignal.timeout per call, which
      // fetchWithTimeout then replaces with its own: 0 turns that unused one off.
      config.timeout = 0;
      // openid-client skips the ID token signature check for tokens from the
      // token endpoint (OIDC Core 3.1.3.7 allows it over TLS); the spec does not.
      // The check is done below (verifyIdTokenSignature) rather than with
      // client.enableNonRepudiationChecks: openid-client refetches its key set on an
      // unknown `kid` only when its copy is at least 60 s old, so every login in the
      // first minute after a provider key rotation would fail with 401.
      const metadata = config.serverMetadata();
      if (!metadata.jwks_uri) throw new Error('the identity provider publishes no jwks_uri');
      const jwksUri = new URL(metadata.jwks_uri);
      // Keys for the tokens of the callback, which come straight from the token endpoint (back
      // channel, client authentication), so no caller can choose their `kid`: an unknown `kid`
      // means the provider rotated its keys, and the set is refetched at once, once per token.
      const tokenEndpointJwks = createRemoteJWKSet(jwksUri, { timeoutDuration: timeoutMs, cooldownDuration: 0 });
      // Keys for the tokens anyone can send (Bearer tokens, logout tokens posted to the
      // back-channel endpoint): an unknown `kid` refetches at most every 5 s.
      const publicEndpointJwks = createRemoteJWKSet(jwksUri, { timeoutDuration: timeoutMs, cooldownDuration: 5000 });
      const accessTokens = createAccessTokenVerifier({
        rules: {
          issuer: metadata.issuer,
          audience: settings.accessTokenAudience,
          trustedClientIds: settings.trustedClientIds,
          readPermissions,
        },
        bearerKeys: publicEndpointJwks,
        tokenEndpointKeys: tokenEndpointJwks,
        introspect: metadata.introspection_endpoint
          ? async (token) => (await client.tokenIntrospection(config, token)) as Record<string, unknown>
          : null,
        waitTimeoutMs: timeoutMs,
        logger,
      });
      logger.info({ issuer: metadata.issuer }, 'OpenID provider discovered');
      return {
        config,
        issuer: metadata.issuer,
        // Read here once: serverMetadata() deep-copies the metadata on every call.
        issParameterRequired: metadata.authorization_response_iss_parameter_supported === true,
        endSessionEndpoint: metadata.end_session_endpoint ?? null,
        secondFactorAcrSupported: settings.secondFactorAcr !== undefined && Array.isArray(metadata.acr_values_supported)
          && metadata.acr_values_supported.includes(settings.secondFactorAcr),
        tokenEndpointJwks,
        publicEndpointJwks,
        accessTokens,
      };
    })().catch((error: unknown) => {
      discovered = undefined;
      logger.warn({ err: error, issuer: settings.issuer }, 'OpenID provider discovery failed');
      throw new ApiError('IDP_UNAVAILABLE', 'The identity provider could not be reached. Try again shortly.', { cause: error });
    });
    return discovered;
  }

  /**
   * The ID token's RS256 signature against the provider's published keys (openid-client has
   * already checked alg, iss, aud, azp, exp, sub and nonce), and its `iat`: not in the future,
   * not older than an hour. A JWT typed as an access token is not an ID token.
   */
  async function verifyIdTokenSignature(idToken: string, { issuer, tokenEndpointJwks }: Discovered): Promise<void> {
    let typ: string | undefined;
    try {
      ({ protectedHeader: { typ } } = await jwtVerify(idToken, tokenEndpointJwks, {
        algorithms: ['RS256'],
        issuer,
        audience: settings.clientId,
        requiredClaims: ['sub', 'exp', 'iat'],
        maxTokenAge: ID_TOKEN_MAX_AGE_SECONDS,
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
      }));
    } catch (error) {
      if (isNetworkError(error)) throw unavailable(error);
      throw new ApiError('ID_TOKEN_INVALID', 'The ID token could not be verified.', { cause: error });
    }
    if (typ !== undefined && ACCESS_TOKEN_TYPS.has(typ.toLowerCase())) {
      throw new ApiError('ID_TOKEN_INVALID', 'The ID token is typed as an access token.');
    }
  }

  return {
    issuer: settings.issuer,

    async authorizationUrl({ state, nonce, codeVerifier, authentication }) {
      const { config, secondFactorAcrSupported } = await discover();
      return client.buildAuthorizationUrl(config, {
        // OIDC Core §3.1.2.1, what the platform asked; the callback checks the outcome itself
        // (freshSignIn.ts), since a provider may ignore `acr_values` or lack support for it.
        ...(authentication?.maxAgeSeconds != null ? { max_age: String(authentication.maxAgeSeconds) } : {}),
        ...(authentication?.forceLogin ? { prompt: 'login' } : {}),
        ...(authentication?.secondFactor && secondFactorAcrSupported ? { acr_values: settings.secondFactorAcr! } : {}),
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
      const discovery = await discover();
      const { config } = discovery;
      // RFC 9207: an `iss` in the authorization response must name our issuer
      // (mix-up defence). openid-client checks it too; this gives a clear error.
      const iss = callbackUrl.searchParams.get('iss');
      if (iss !== null && iss !== discovery.issuer) {
        throw new ApiError('IDP_ERROR', 'The authorization response came from an unexpected issuer.');
      }
      if (iss === null && discovery.issParameterRequired) {
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
        throw classifyCodeExchangeError(error);
      }
      const claims = tokens.claims();
      if (!claims || !tokens.id_token || typeof claims.sub !== 'string' || !claims.sub) {
        throw new ApiError('ID_TOKEN_INVALID', 'The ID token carries no subject.');
      }
      await verifyIdTokenSignature(tokens.id_token, discovery);
      // The same rules as a Bearer token (audience, trusted client, not an ID token): this one
      // comes from the token endpoint for our own client, so a conformant provider's passes.
      const accessToken = await discovery.accessTokens.verify(tokens.access_token, 'token-endpoint');
      if (accessToken.sub !== claims.sub) {
        throw new ApiError('TOKEN_SUBJECT_MISMATCH', 'The access token was issued for another subject than the ID token.');
      }
      // zitadel-roles: what either token grants (see VerifiedLogin.permissions); scope: the
      // access token's alone (an ID token carries no scope).
      const permissions = settings.permissionsFrom === 'zitadel-roles'
        ? unionPermissions(accessToken.permissions, readPermissions(claims))
        : accessToken.permissions;
      return {
        idToken: {
          sub: claims.sub,
          sid: typeof claims.sid === 'string' && claims.sid !== '' ? claims.sid : null,
          raw: tokens.id_token,
          email: typeof claims.email === 'string' ? claims.email : null,
          emailVerified: claims.email_verified === true,
          name: typeof claims.name === 'string' ? claims.name : null,
          givenName: typeof claims.given_name === 'string' ? claims.given_name : null,
          familyName: typeof claims.family_name === 'string' ? claims.family_name : null,
          authTime: typeof claims.auth_time === 'number' && Number.isFinite(claims.auth_time) ? claims.auth_time : null,
          amr: Array.isArray(claims.amr) ? claims.amr.filter((value): value is string => typeof value === 'string') : null,
          acr: typeof claims.acr === 'string' ? claims.acr : null,
        },
        accessToken,
        permissions,
      };
    },

    async verifyAccessToken(token: string) {
      return (await discover()).accessTokens.verify(token, 'bearer');
    },

    async endSessionUrl({ idTokenHint, postLogoutRedirectUri, state }) {
      const { config, endSessionEndpoint } = await discover();
      if (!endSessionEndpoint) return null;
      return client.buildEndSessionUrl(config, {
        post_logout_redirect_uri: postLogoutRedirectUri,
        state,
        // With the hint the provider ends that very session; without it, the client id lets
        // it check the redirect (OIDC RP-Initiated Logout 1.0 §2).
        ...(idTokenHint ? { id_token_hint: idTokenHint } : { client_id: settings.clientId }),
      });
    },

    async verifyLogoutToken(token: string) {
      const { issuer, publicEndpointJwks } = await discover();
      return verifyLogoutToken(token, publicEndpointJwks, { issuer, clientId: settings.clientId });
    },
  };
}
