import type { Context } from 'openapi-backend';
import type { Request } from 'express';
import type { Config } from '../config/index.ts';
import { ApiError, invalidClientCredentials } from '../errors/catalogue.ts';
import { sha256 } from '../security/crypto.ts';
import { findPlatformCredentialByDigest, findSessionByTokenDigest, touchSession } from '../services/sessions/index.ts';
import { PLATFORM_CREDENTIAL_PREFIX, SESSION_TOKEN_PREFIX } from '../services/sessions/create.ts';
import { HANDOFF_PREFIX } from '../services/login/handoff.ts';
import { CLIENT_SECRET_PREFIX } from '../services/registry/index.ts';
import { accessTokenInvalid } from '../oidc/providerErrors.ts';
import { readSessionCookie } from './cookies.ts';
import { findUserBySub } from '../services/account/index.ts';
import type { AppDeps } from '../deps.ts';
import type { Permission, Principal } from './types.ts';
import { NOT_IMPLIED_BY_ADMIN } from '../domain/types.ts';
import { supportSessionForbidden } from '../services/supportAccess/rules.ts';

export interface BasicCredentials {
  clientId: string;
  clientSecret: string;
}

/**
 * The browser session a request's gateway cookie carries, outside the security handlers: for
 * the one operation that reads it only sometimes (a support sign-in at the start, issue 35),
 * so that ordinary starts never look a session up. A platform's credential is not a browser
 * session here: undefined.
 */
export async function browserSessionOf(deps: AppDeps, req: Request): Promise<Principal | undefined> {
  const token = readSessionCookie(req, deps.config);
  if (!token || !token.startsWith(SESSION_TOKEN_PREFIX)) return undefined;
  return browserSessionPrincipal(deps, token);
}

/**
 * openapi-backend security handlers, one per scheme of the contract. A handler
 * returns the resolved caller, returns undefined when its credential is absent,
 * or throws an ApiError saying why a present credential is refused.
 */
export function createSecurityHandlers(deps: AppDeps) {
  const centralClientIds = new Set(deps.config.oidc.centralClientIds ?? [deps.config.oidc.clientId ?? '']);
  return {
    async gatewayCookieAuth(c: Context, req: Request): Promise<Principal | undefined> {
      const token = readSessionCookie(req, deps.config);
      if (!token) return undefined;
      return token.startsWith(PLATFORM_CREDENTIAL_PREFIX) ? platformCredentialPrincipal(deps, token) : browserSessionPrincipal(deps, token);
    },

    async bearerAuth(c: Context, req: Request): Promise<Principal | undefined> {
      const header = req.headers.authorization;
      if (!header || !/^Bearer /i.test(header)) return undefined;
      if (!deps.oidc) throw new ApiError('OIDC_NOT_CONFIGURED');
      const bearer = header.slice(7).trim();
      refuseGatewayCredentialAsBearer(bearer);
      const claims = await deps.oidc.verifyAccessToken(bearer);
      const user = await findUserBySub(deps.db, claims.sub);
      if (user?.deletedAt) throw new ApiError('ACCOUNT_DELETED', 'This account was deleted.');
      return {
        via: 'bearer',
        userId: user?.id ?? null,
        sub: claims.sub,
        permissions: claims.permissions,
        heldPermissions: claims.permissions,
        session: null,
        platform: null,
        clientId: claims.clientId,
        central: centralClientIds.has(claims.clientId),
        platformClaims: platformClaimsOf(claims.claims[deps.config.oidc.platformClaim]),
        permissionsReadAt: typeof claims.claims.iat === 'number' ? new Date(claims.claims.iat * 1000) : null,
      };
    },

    /**
     * Only parses: every operation with this scheme (exchangeAuthenticationHandoff,
     * pollSecurityEvents) checks the credentials with withPlatformClient
     * (services/registry/platformClient.ts), inside its own SQL statement.
     */
    platformBasicAuth(c: Context, req: Request): BasicCredentials | undefined {
      return parseBasic(req.headers.authorization);
    },
  };
}

/**
 * The gateway's own credentials (session tokens, platform credentials, handoff codes, client
 * secrets) are never access tokens of the identity provider: refused here, so a credential sent
 * as Bearer by mistake never leaves the gateway for the provider's introspection endpoint.
 */
const GATEWAY_CREDENTIAL_PREFIXES = [SESSION_TOKEN_PREFIX, PLATFORM_CREDENTIAL_PREFIX, HANDOFF_PREFIX, CLIENT_SECRET_PREFIX];

function refuseGatewayCredentialAsBearer(token: string): void {
  if (GATEWAY_CREDENTIAL_PREFIXES.some((prefix) => token.startsWith(prefix))) {
    throw accessTokenInvalid("This is the gateway's own credential, not an access token: send a session or platform credential in the gateway cookie, a client secret with HTTP Basic.");
  }
}

/** The browser session set by the callback: the person's own browser, with the user's full permissions. */
async function browserSessionPrincipal(deps: AppDeps, token: string): Promise<Principal> {
  const session = await findSessionByTokenDigest(deps.db, sha256(token));
  if (!session) throw new ApiError('UNAUTHENTICATED', 'The gateway session is not valid. Sign in again.');
  requireLive(deps, session, 'Sign in again.');
  return {
    via: 'session',
    userId: session.userId,
    sub: session.sub,
    permissions: session.permissions,
    heldPermissions: session.permissions,
    session: { id: session.id, expiresAt: session.expiresAt },
    platform: null,
    clientId: null,
    central: true,
    platformClaims: [],
    permissionsReadAt: session.createdAt,
    supportAccessId: session.supportAccessId,
  };
}

/**
 * A platform's own credential from the exchange, sent by its back end as the gateway
 * cookie. It acts for the user, bound to its session and its platform, and never
 * exercises `platforms:admin`: a platform back end that an administrator signed in to
 * must not be able to administer the registry as that administrator.
 */
async function platformCredentialPrincipal(deps: AppDeps, token: string): Promise<Principal> {
  const row = await findPlatformCredentialByDigest(deps.db, sha256(token));
  if (!row) throw new ApiError('UNAUTHENTICATED', 'The platform credential is not valid. Sign the user in again.');
  requireLive(deps, row, 'Sign the user in again.');
  return {
    via: 'platform',
    userId: row.userId,
    sub: row.sub,
    // Nor support:access (issue 35): a platform never acts as an operator of the person it serves.
    permissions: row.permissions.filter((permission) => permission !== 'platforms:admin' && permission !== 'support:access'),
    heldPermissions: row.permissions,
    session: { id: row.id, expiresAt: row.expiresAt },
    platform: { id: row.platformId, key: row.platformKey },
    clientId: null,
    central: false,
    platformClaims: [row.platformKey],
    permissionsReadAt: row.createdAt,
    supportAccessId: row.supportAccessId,
  };
}

/**
 * A session ends at its absolute expiry, or after GATEWAY_SESSION_IDLE_SECONDS unused. The
 * check reads only; the use is recorded at most once a minute, after the answer is decided.
 */
function requireLive(deps: AppDeps, session: { id: string; expiresAt: Date; lastUsedAt: Date; createdAt: Date }, again: string): void {
  const now = Date.now();
  if (session.expiresAt.getTime() <= now) throw new ApiError('SESSION_EXPIRED', `The gateway session has expired. ${again}`);
  if (session.lastUsedAt.getTime() + deps.config.gatewaySessionIdleSeconds * 1000 <= now) {
    throw new ApiError('SESSION_EXPIRED', `The gateway session ended after a time without use. ${again}`);
  }
  // The first use after the login is recorded at once: the purge ends never-used sessions whose
  // login reached no platform (sessions/ending.ts), and a browser's own session must not look so.
  const firstUse = session.lastUsedAt.getTime() === session.createdAt.getTime();
  if (firstUse || now - session.lastUsedAt.getTime() >= 60_000) {
    touchSession(deps.db, session.id).catch((error: unknown) => deps.logger.warn({ err: error }, 'recording a session use failed'));
  }
}

/** OIDC_PLATFORM_CLAIM: a string or an array of strings; anything else claims nothing. */
function platformClaimsOf(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.filter((item): item is string => typeof item === 'string');
  return [];
}

/** RFC 7617 Basic credentials; client id and secret are form-urlencoded per RFC 6749 §2.3.1. */
export function parseBasic(header: string | undefined): BasicCredentials | undefined {
  if (!header || !/^Basic /i.test(header)) return undefined;
  const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) return undefined;
  try {
    const clientId = decodeURIComponent(decoded.slice(0, colon).replaceAll('+', ' '));
    const clientSecret = decodeURIComponent(decoded.slice(colon + 1).replaceAll('+', ' '));
    if (!clientId || !clientSecret || clientId.length > 200 || clientSecret.length > 200) return undefined;
    return { clientId, clientSecret };
  } catch {
    return undefined;
  }
}

/** The 401 for a request that satisfied none of its operation's security requirements. */
export function unauthorizedError(c: Context): ApiError {
  const schemes = (c.operation.security ?? []).flatMap((requirement) => Object.keys(requirement));
  if (schemes.includes('platformBasicAuth')) {
    return invalidClientCredentials();
  }
  // RFC 9110 §11.6.1: a 401 carries a challenge; RFC 6750 §3 says how for Bearer.
  const results = (c.security ?? {}) as Record<string, { error?: unknown } | undefined>;
  const bearerRefused = results.bearerAuth?.error instanceof ApiError;
  const headers: Record<string, string> | undefined = schemes.includes('bearerAuth')
    ? { 'WWW-Authenticate': `Bearer realm="auth-gateway"${bearerRefused ? ', error="invalid_token"' : ''}` }
    : undefined;
  // A presented but refused credential explains itself better than "missing".
  for (const scheme of schemes) {
    const error = results[scheme]?.error;
    if (error instanceof ApiError) {
      if (error.status !== 401) return error; // e.g. 503 while the provider is down
      return new ApiError(error.code, error.detail, { cause: error.cause, ...(headers ? { headers } : {}) });
    }
    if (error) throw error;
  }
  return new ApiError('UNAUTHENTICATED', 'Sign in first: send the gateway session cookie or a Bearer access token.', headers ? { headers } : {});
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Authorisation after authentication:
 * - the permissions an operation declares in `x-required-permissions`;
 * - for operations marked `x-platform-claim` (the onboarding schema): a caller that is not
 *   central must carry a platform claim equal to the path's `platformKey`, unless it holds
 *   `platforms:admin`;
 * - what a platform's own credential may reach: not operations marked
 *   `x-platform-credential: false` (the person acts for themselves there; a non-central
 *   Bearer token, a platform's own app, is refused there too), and no operation on another
 *   platform (a `platformKey` path parameter other than its own);
 * - the allowed-origin check the spec requires for cookie-authenticated writes (a CSRF
 *   defence; SameSite=Lax alone still lets a sibling subdomain post).
 */
export function authorize(c: Context, req: Request, config: Config): void {
  const principal = [c.security?.gatewayCookieAuth, c.security?.bearerAuth].find(
    (result): result is Principal => Boolean(result) && !(result as { error?: unknown }).error,
  );
  if (!principal) {
    // A cookie-authenticated write is origin-checked with or without a credential: a sign-out
    // posted cross-site arrives without the SameSite=Lax cookie, and must still not clear it.
    if (isCookieOperation(c) && !SAFE_METHODS.has(req.method) && !originAllowed(req, config)) throw originNotAllowed();
    return;
  }
  const operation = c.operation as { 'x-required-permissions'?: Permission[]; 'x-platform-credential'?: boolean; 'x-platform-claim'?: boolean; 'x-support-session'?: boolean };
  // A support session (issue 35) is an operator seeing a platform as the person: the person's
  // own account operations are never theirs to do.
  if (principal.supportAccessId && operation['x-support-session'] === false) throw supportSessionForbidden();
  const platformKey = (c.request.params as Record<string, unknown> | undefined)?.platformKey;
  // A Bearer token of a client that is not central is a platform's own app (issue 36 review):
  // the person's own operations (the data export holds what they gave every platform) are no
  // more its to call than the platform credential's.
  if (operation['x-platform-credential'] === false && principal.via === 'bearer' && !principal.central) {
    throw new ApiError('FORBIDDEN', "Only the person's own browser session or a central client's Bearer token (OIDC_CENTRAL_CLIENT_IDS) can do this.");
  }
  if (principal.via === 'platform') {
    if (operation['x-platform-credential'] === false) {
      throw new ApiError('FORBIDDEN', "A platform's credential cannot do this: it needs the person's own browser session or a central client's Bearer access token.");
    }
    if (platformKey !== undefined && platformKey !== principal.platform?.key) {
      throw new ApiError('FORBIDDEN', "A platform's credential acts only on its own platform.");
    }
  }
  const required = operation['x-required-permissions'] ?? [];
  if (!hasPermissions(principal.permissions, required)) {
    throw new ApiError('FORBIDDEN', `This operation needs the permission ${required.join(' and ')}.`);
  }
  if (operation['x-platform-claim'] && !principal.central && !principal.permissions.includes('platforms:admin')
      && (typeof platformKey !== 'string' || !principal.platformClaims.includes(platformKey))) {
    // The path is not validated yet (authorisation comes first): never echoed.
    throw new ApiError('FORBIDDEN', 'This caller acts for another platform than the one in the path: it needs a platform claim naming it.');
  }
  if (principal.via !== 'bearer' && !SAFE_METHODS.has(req.method) && !originAllowed(req, config)) throw originNotAllowed();
}

const originNotAllowed = () => new ApiError('ORIGIN_NOT_ALLOWED', 'Requests authenticated by the gateway cookie must come from an allowed origin.');

/** An operation the gateway cookie may authenticate (its security names gatewayCookieAuth). */
function isCookieOperation(c: Context): boolean {
  return (c.operation.security ?? []).some((requirement) => 'gatewayCookieAuth' in requirement);
}

/** platforms:admin covers every registry and schema operation, never support access (NOT_IMPLIED_BY_ADMIN). */
export function hasPermissions(held: readonly Permission[], required: readonly Permission[]): boolean {
  if (required.length === 0) return true;
  const admin = held.includes('platforms:admin');
  return required.every((permission) => held.includes(permission) || (admin && !NOT_IMPLIED_BY_ADMIN.includes(permission)));
}

/**
 * Where a write comes from: the gateway's own origin or one of CORS_ORIGINS.
 * - `Origin` names an origin: it decides.
 * - `Origin: null`: a browser that hides the origin (its page's Referrer-Policy is no-referrer,
 *   Fetch §3.1 "append a request Origin header", as on the gateway's own pages; or a sandboxed
 *   frame). Allowed only when the browser's own Sec-Fetch-Site says same-origin, which no page
 *   can forge.
 * - no `Origin`: a server-side client (a platform BFF forwarding its credential), unless the
 *   browser's Sec-Fetch-Site or a Referer says the request came from another site.
 */
function originAllowed(req: Request, config: Config): boolean {
  const allowed = (origin: string) => config.corsOrigins.includes(origin) || origin === new URL(config.publicBaseUrl).origin;
  const origin = req.headers.origin;
  const site = req.headers['sec-fetch-site'];
  if (origin === 'null') return site === 'same-origin';
  if (origin !== undefined) return allowed(origin);
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return false;
  const referer = req.headers.referer;
  if (referer === undefined) return true;
  return URL.canParse(referer) && allowed(new URL(referer).origin);
}
