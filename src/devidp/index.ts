// The development identity provider ("dev IdP").
//
// A real, certified OpenID Provider (oidc-provider, OpenID Connect Core 1.0) run in-process on
// its own HTTP port, so that the gateway (an OIDC relying party) can be developed, demoed and
// tested without an external IdP. GUIDE §3: it starts only when no OIDC_ISSUER is configured and
// never when NODE_ENV=production; startDevIdp() enforces the latter itself.
//
// What it provides, and why:
// - RS256 ID tokens with a `kid` (the spec requires RS256 with aud = the central OIDC client).
// - PKCE (RFC 7636) required for every authorization request, S256 only.
// - JWT access tokens (RFC 9068) for a default resource (RFC 8707 resource indicators), so an
//   authorization-code flow without a `resource` parameter yields a JWT whose `scope` lists only
//   the scopes the user is entitled to (permission scopes are filtered per user).
// - Token introspection (RFC 7662), including for those JWT access tokens (see introspection shim).
// - A plain HTML login page; consent is implicit (first-party dev clients).

import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';

import { calculateJwkThumbprint, exportJWK, generateKeyPair, jwtVerify, type CryptoKey, type JWTPayload } from 'jose';
import Provider, {
  errors,
  type Account,
  type ClientMetadata,
  type Configuration,
  type ErrorOut,
  type Grant,
  type KoaContextWithOIDC,
  type ResourceServerInfo,
} from 'oidc-provider';

import { createMemoryAdapterFactory, JWT_ACCESS_TOKEN_INDEX } from './memoryAdapter.ts';
import { renderErrorPage, renderLoggedOutPage, renderLoginPage, renderLogoutPage } from './pages.ts';

export interface DevIdpClient {
  clientId: string;
  clientSecret: string;
  redirectUris: string[];
  postLogoutRedirectUris?: string[];
}

export interface DevIdpUser {
  sub: string;
  username: string;
  password: string;
  email: string;
  givenName: string;
  familyName: string;
  permissions: string[];
}

export interface DevIdpLogger {
  info(obj: object, msg?: string): void;
}

export interface DevIdpOptions {
  /** 0 = random free port */
  port?: number;
  /** default 127.0.0.1 */
  host?: string;
  clients: DevIdpClient[];
  /** default DEV_USERS */
  users?: DevIdpUser[];
  /** `aud` of the JWT access tokens; default the first client's id */
  accessTokenAudience?: string;
  /** default 900 */
  accessTokenTtlSeconds?: number;
  logger?: DevIdpLogger;
}

export interface DevIdp {
  issuer: string;
  port: number;
  users: DevIdpUser[];
  close(): Promise<void>;
}

/** Permission scopes the gateway understands (spec: "Permissions"). */
export const PERMISSION_SCOPES = ['platforms:admin', 'onboarding:schema:read', 'onboarding:schema:write'] as const;
export type PermissionScope = (typeof PERMISSION_SCOPES)[number];

/** Seeded users. `sub` values are stable so that local data keyed by subject survives restarts. */
export const DEV_USERS: DevIdpUser[] = [
  {
    sub: 'dev-user-alice',
    username: 'alice',
    password: 'alice-password',
    email: 'alice@example.test',
    givenName: 'Alice',
    familyName: 'Example',
    permissions: [],
  },
  {
    sub: 'dev-user-admin',
    username: 'admin',
    password: 'admin-password',
    email: 'admin@example.test',
    givenName: 'Ada',
    familyName: 'Admin',
    permissions: ['platforms:admin', 'onboarding:schema:read', 'onboarding:schema:write'],
  },
];

/** The resource indicator (RFC 8707) of the gateway's API at the dev IdP. */
export const DEFAULT_RESOURCE_INDICATOR = 'urn:auth-gateway';
const DEFAULT_ACCESS_TOKEN_TTL_SECONDS = 900;

/** OIDC scopes whose claims the IdP releases (OIDC Core §5.4); they also appear in the JWT `scope`. */
const OIDC_SCOPES = ['openid', 'profile', 'email'] as const;

const FORM_BODY_LIMIT = 16 * 1024;
const INTERACTION_PATH = /^\/interaction\/([A-Za-z0-9_-]+)$/;

/** Error events oidc-provider emits (docs/events.md); all are routed to the optional logger. */
const PROVIDER_ERROR_EVENTS = [
  'server_error',
  'authorization.error',
  'backchannel.error',
  'discovery.error',
  'end_session.error',
  'grant.error',
  'introspection.error',
  'jwks.error',
  'pushed_authorization_request.error',
  'revocation.error',
  'userinfo.error',
];

function userMayUseScope(user: DevIdpUser | undefined, scope: string): boolean {
  if (!user) return false;
  if ((OIDC_SCOPES as readonly string[]).includes(scope)) return true;
  return user.permissions.includes(scope);
}

/** Constant-time secret check: compare fixed-length digests so the length is not leaked either. */
function secretMatches(expected: string, given: string): boolean {
  const a = createHash('sha256').update(expected, 'utf8').digest();
  const b = createHash('sha256').update(given, 'utf8').digest();
  return timingSafeEqual(a, b);
}

async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string);
    size += buf.length;
    if (size > limit) throw new Error('request body too large');
    chunks.push(buf);
  }
  return Buffer.concat(chunks, size);
}

function isFormPost(req: IncomingMessage): boolean {
  return (req.headers['content-type'] ?? '').toLowerCase().startsWith('application/x-www-form-urlencoded');
}

/**
 * A stand-in for an already-consumed request, carrying a (possibly rewritten) body, so that it can
 * still be handed to the provider's Koa app. Koa and oidc-provider read only the fields set here.
 */
function replayRequest(original: IncomingMessage, body: Buffer): IncomingMessage {
  const replay = Readable.from([body], { objectMode: false });
  Object.assign(replay, {
    method: original.method,
    url: original.url,
    headers: { ...original.headers, 'content-length': String(body.length) },
    rawHeaders: original.rawHeaders,
    httpVersion: original.httpVersion,
    httpVersionMajor: original.httpVersionMajor,
    httpVersionMinor: original.httpVersionMinor,
    socket: original.socket,
    connection: original.socket,
  });
  return replay as unknown as IncomingMessage;
}

function sendHtml(res: ServerResponse, status: number, html: string): void {
  res.statusCode = status;
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  // The login page must never be cached (it is per-transaction) nor framed (clickjacking).
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('X-Frame-Options', 'DENY');
  // No form-action directive: after the POST the browser is redirected to the client's
  // redirect_uri, and some browsers apply form-action to that redirect chain.
  res.setHeader('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'");
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.end(html);
}

function redirect(res: ServerResponse, location: string): void {
  // 303 See Other: the follow-up request is a GET whatever the method was (RFC 9110 §15.4.4).
  res.statusCode = 303;
  res.setHeader('Location', location);
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Content-Length', '0');
  res.end();
}

function describeError(err: unknown): { error: string; description?: string } {
  if (err && typeof err === 'object') {
    const e = err as { error?: unknown; error_description?: unknown; name?: unknown; message?: unknown };
    return {
      error: typeof e.error === 'string' ? e.error : typeof e.name === 'string' ? e.name : 'error',
      description: typeof e.error_description === 'string'
        ? e.error_description
        : typeof e.message === 'string' ? e.message : undefined,
    };
  }
  return { error: String(err) };
}

export async function startDevIdp(options: DevIdpOptions): Promise<DevIdp> {
  if (process.env.NODE_ENV === 'production') {
    throw new Error('The dev identity provider refuses to start when NODE_ENV=production; configure OIDC_ISSUER to use a real identity provider.');
  }
  if (!options.clients.length) {
    throw new Error('startDevIdp: at least one client is required');
  }

  // The one resource server (RFC 8707 §2: its indicator is an absolute URI without a
  // fragment) and the `aud` its access tokens carry: by default the first client's id,
  // as Zitadel puts the client ids of the project into `aud`.
  const resourceIndicator = DEFAULT_RESOURCE_INDICATOR;
  const audience = options.accessTokenAudience ?? options.clients[0]!.clientId;
  const logger = options.logger;
  const host = options.host ?? '127.0.0.1';
  const accessTokenTtl = options.accessTokenTtlSeconds ?? DEFAULT_ACCESS_TOKEN_TTL_SECONDS;
  const usingSeededUsers = options.users === undefined;
  const users = (options.users ?? DEV_USERS).map((u) => ({ ...u, permissions: [...u.permissions] }));
  const usersBySub = new Map(users.map((u) => [u.sub, u]));
  const usersByName = new Map(users.map((u) => [u.username, u]));

  // Signing key, fresh per start (nothing persists across restarts in dev anyway).
  const { publicKey, privateKey } = await generateKeyPair('RS256', { modulusLength: 2048, extractable: true });
  const privateJwk = await exportJWK(privateKey);
  const kid = await calculateJwkThumbprint(privateJwk); // RFC 7638 thumbprint as kid: derived from the key, so unique per key
  const signingJwk = { ...privateJwk, kid, alg: 'RS256', use: 'sig' };

  // Listen first: with port 0 the issuer is only known once the OS has picked the port.
  let handler: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
  const server: Server = createServer((req, res) => {
    if (!handler) {
      res.statusCode = 503;
      res.end();
      return;
    }
    handler(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const issuerHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  const issuer = `http://${issuerHost}:${port}`;

  /**
   * Skip the consent prompt (first-party dev clients; oidc-provider recipe "skip_consent") by
   * bringing the grant up to date with what was requested: the requested OIDC scopes and claims,
   * and for each resource server the requested scopes the user is entitled to. Scopes the user
   * is not entitled to are recorded as *rejected*, which also satisfies the consent checks, so a
   * non-admin asking for platforms:admin is simply issued a token without it (RFC 6749 §3.3:
   * the server may issue a narrower scope than requested and says so in the `scope` response).
   */
  async function reconcileGrant(ctx: KoaContextWithOIDC): Promise<Grant | undefined> {
    const { oidc } = ctx;
    const client = oidc.client;
    const accountId = oidc.account?.accountId ?? oidc.session?.accountId;
    if (!client || !accountId) return undefined;

    const grantId = oidc.result?.consent?.grantId ?? oidc.session?.grantIdFor(client.clientId);
    let grant = grantId ? await oidc.provider.Grant.find(grantId) : undefined;
    if (!grant || grant.accountId !== accountId || grant.clientId !== client.clientId) {
      grant = new oidc.provider.Grant({ accountId, clientId: client.clientId });
    }

    const oidcScopes = [...oidc.requestParamOIDCScopes];
    if (oidcScopes.length) grant.addOIDCScope(oidcScopes.join(' '));
    const claims = [...oidc.requestParamClaims];
    if (claims.length) grant.addOIDCClaims(claims);

    const user = usersBySub.get(accountId);
    for (const [indicator, resourceServer] of Object.entries(oidc.resourceServers)) {
      const allowed: string[] = [];
      const denied: string[] = [];
      for (const scope of oidc.requestParamScopes) {
        if (!resourceServer.scopes.has(scope)) continue;
        (userMayUseScope(user, scope) ? allowed : denied).push(scope);
      }
      if (allowed.length) grant.addResourceScope(indicator, allowed.join(' '));
      if (denied.length) grant.rejectResourceScope(indicator, denied.join(' '));
    }

    await grant.save();
    return grant;
  }

  const adapterFactory = createMemoryAdapterFactory(15);

  const secretsByClientId = new Map(options.clients.map((c) => [c.clientId, c.clientSecret]));
  /** client_secret_basic (RFC 6749 §2.3.1: id and secret are form-urlencoded, then Basic-encoded). */
  function authenticateClient(authorization: string | undefined): string | undefined {
    const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(authorization ?? '');
    if (!match?.[1]) return undefined;
    const decoded = Buffer.from(match[1], 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) return undefined;
    let clientId: string;
    let secret: string;
    try {
      const formDecode = (v: string) => decodeURIComponent(v.replace(/\+/g, ' '));
      clientId = formDecode(decoded.slice(0, colon));
      secret = formDecode(decoded.slice(colon + 1));
    } catch {
      return undefined;
    }
    const expected = secretsByClientId.get(clientId);
    // Compare even for unknown clients, so the timing does not reveal which client ids exist.
    const ok = secretMatches(expected ?? randomBytes(16).toString('hex'), secret);
    return ok && expected !== undefined ? clientId : undefined;
  }

  const clients: ClientMetadata[] = options.clients.map((c) => ({
    client_id: c.clientId,
    client_secret: c.clientSecret,
    redirect_uris: [...c.redirectUris],
    ...(c.postLogoutRedirectUris ? { post_logout_redirect_uris: [...c.postLogoutRedirectUris] } : {}),
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'client_secret_basic',
    id_token_signed_response_alg: 'RS256',
  }));

  const resourceScope = [...OIDC_SCOPES, ...PERMISSION_SCOPES].join(' ');

  const configuration: Configuration = {
    adapter: adapterFactory,
    clients,
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
      id_token_signed_response_alg: 'RS256',
    },
    // Only client_secret_basic (RFC 6749 §2.3.1): the one method our clients are registered with.
    clientAuthMethods: ['client_secret_basic'],
    responseTypes: ['code'],
    jwks: { keys: [signingJwk] },
    enabledJWA: {
      idTokenSigningAlgValues: ['RS256'],
      userinfoSigningAlgValues: ['RS256'],
      introspectionSigningAlgValues: ['RS256'],
      authorizationSigningAlgValues: ['RS256'],
      requestObjectSigningAlgValues: ['RS256'],
      clientAuthSigningAlgValues: ['RS256'],
    },
    cookies: {
      // Random per start: cookies of a previous run are simply ignored.
      keys: [randomBytes(32).toString('base64url')],
    },
    claims: {
      openid: ['sub'],
      profile: ['given_name', 'family_name', 'name', 'preferred_username'],
      email: ['email', 'email_verified'],
    },
    scopes: ['openid', 'offline_access'],
    pkce: {
      // RFC 7636 for every client, not only public ones (OAuth 2.0 Security BCP, RFC 9700 §2.1.1).
      required: () => true,
    },
    features: {
      devInteractions: { enabled: false },
      introspection: {
        enabled: true,
        // RFC 7662 §2.1: the caller must be an authenticated, registered confidential client.
        allowedPolicy: async (_ctx: KoaContextWithOIDC, client: { clientAuthMethod: string }) =>
          client.clientAuthMethod !== 'none',
      },
      revocation: {
        enabled: true,
        // RFC 7009 §2.1: a client may only revoke tokens that were issued to it.
        allowedPolicy: async (_ctx: KoaContextWithOIDC, client: { clientId: string }, token: { clientId?: string }) => {
          if (token.clientId !== client.clientId) {
            throw new errors.InvalidRequest('client is not authorized to revoke the presented token');
          }
          return true;
        },
      },
      // The access tokens carry an `aud` (the default resource), and oidc-provider refuses such
      // tokens at the userinfo endpoint; all profile/email claims are therefore put in the ID
      // token instead (OIDC Core §5.4 allows this), and the endpoint is not advertised.
      userinfo: { enabled: false },
      dPoP: { enabled: false },
      rpInitiatedLogout: {
        enabled: true,
        logoutSource: async (ctx: KoaContextWithOIDC, form: string) => {
          ctx.type = 'html';
          ctx.body = renderLogoutPage(ctx.host, form);
        },
        postLogoutSuccessSource: async (ctx: KoaContextWithOIDC) => {
          ctx.type = 'html';
          ctx.body = renderLoggedOutPage();
        },
      },
      resourceIndicators: {
        enabled: true,
        // RFC 8707: without a `resource` parameter the request is for our single API.
        defaultResource: async () => resourceIndicator,
        // Also use it at the token endpoint even though `openid` was requested (by default
        // oidc-provider would then issue an opaque userinfo-only token).
        useGrantedResource: async () => true,
        getResourceServerInfo: async (_ctx: KoaContextWithOIDC, indicator: string): Promise<ResourceServerInfo> => {
          if (indicator !== resourceIndicator) throw new errors.InvalidTarget();
          return {
            scope: resourceScope,
            audience,
            accessTokenTTL: accessTokenTtl,
            accessTokenFormat: 'jwt', // RFC 9068 JWT profile, typ at+jwt
            jwt: { sign: { alg: 'RS256' } },
          };
        },
      },
    },
    loadExistingGrant: reconcileGrant,
    findAccount: async (_ctx: KoaContextWithOIDC, sub: string): Promise<Account | undefined> => {
      const user = usersBySub.get(sub);
      if (!user) return undefined;
      return {
        accountId: user.sub,
        // oidc-provider filters these by the granted scopes/claims before releasing them.
        claims: () => ({
          sub: user.sub,
          given_name: user.givenName,
          family_name: user.familyName,
          name: `${user.givenName} ${user.familyName}`,
          preferred_username: user.username,
          email: user.email,
          email_verified: true,
        }),
      };
    },
    // Same-origin browser calls only; nothing in the dev stack needs CORS at the IdP.
    clientBasedCORS: () => false,
    ttl: {
      AccessToken: accessTokenTtl,
      AuthorizationCode: 60,
      ClientCredentials: accessTokenTtl,
      IdToken: 3600,
      Interaction: 600,
      Session: 8 * 3600,
      Grant: 8 * 3600,
      RefreshToken: 24 * 3600,
    },
    renderError: async (ctx: KoaContextWithOIDC, out: ErrorOut, error: unknown) => {
      logger?.info({ component: 'dev-idp', ...describeError(error) }, 'dev IdP rendered an error page');
      ctx.type = 'html';
      ctx.body = renderErrorPage(out);
    },
  };

  let provider: Provider;
  try {
    provider = new Provider(issuer, configuration);
  } catch (err) {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    throw err;
  }

  // Koa prints unhandled errors to stderr unless an 'error' listener exists.
  provider.on('error', (err: unknown) => {
    logger?.info({ component: 'dev-idp', event: 'error', ...describeError(err) }, 'dev IdP error');
  });
  for (const event of PROVIDER_ERROR_EVENTS) {
    provider.on(event, (_ctx: unknown, err: unknown) => {
      logger?.info({ component: 'dev-idp', event, ...describeError(err) }, 'dev IdP request failed');
    });
  }

  // Index of issued JWT access tokens: jti -> grant, kept until the token expires and dropped
  // with its grant (the adapter's revokeByGrantId covers this model too).
  const jwtAccessTokens = adapterFactory(JWT_ACCESS_TOKEN_INDEX);
  provider.on('access_token.issued', (token: { jti?: string; grantId?: string; clientId?: string; accountId?: string }) => {
    if (!token.jti || !token.grantId) return;
    void jwtAccessTokens.upsert(token.jti, {
      grantId: token.grantId,
      clientId: token.clientId,
      accountId: token.accountId,
    }, accessTokenTtl);
  });

  const providerCallback = provider.callback();
  const introspectionPath = new URL(provider.urlFor('introspection')).pathname;

  /**
   * Token introspection (RFC 7662). oidc-provider answers it for opaque tokens, but refuses
   * structured (JWT) tokens outright (lib/shared/reject_structured_tokens.js: a resource server
   * is expected to validate those itself), and it keeps no server-side record of them.
   * The gateway may still want a server-side, revocation-aware check of the JWT access tokens
   * issued here, so for a JWT this handler answers itself:
   *   1. authenticate the caller with client_secret_basic (RFC 7662 §2.1, RFC 6749 §2.3.1);
   *   2. verify the JWT's signature, issuer, type and expiry (RFC 9068 §4);
   *   3. require the token to be one we issued and its grant to still exist, so that tokens of
   *      revoked grants come back inactive, as opaque ones do (jwtAccessTokens, above, is our
   *      own record of the JWTs issued and their grants);
   *   4. answer with the RFC 7662 §2.2 members.
   * Anything that fails after step 1 is {"active": false}, which reveals nothing (§2.2).
   * Other tokens go to oidc-provider untouched (the body is replayed, since it was read here).
   */
  async function handleIntrospection(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req, FORM_BODY_LIMIT);
    const params = isFormPost(req) ? new URLSearchParams(raw.toString('utf8')) : undefined;
    const token = params?.get('token');
    if (!token || token.split('.').length !== 3) {
      await providerCallback(replayRequest(req, raw), res);
      return;
    }

    const sendJson = (status: number, body: object, extraHeaders: Record<string, string> = {}) => {
      res.statusCode = status;
      res.setHeader('Content-Type', 'application/json; charset=utf-8');
      res.setHeader('Cache-Control', 'no-store');
      for (const [k, v] of Object.entries(extraHeaders)) res.setHeader(k, v);
      res.end(JSON.stringify(body));
    };

    const caller = authenticateClient(req.headers.authorization);
    if (!caller) {
      logger?.info({ component: 'dev-idp', event: 'introspection.error', error: 'invalid_client' }, 'dev IdP request failed');
      // RFC 6749 §5.2: invalid_client with 401 and a challenge for the scheme the client used.
      sendJson(401, { error: 'invalid_client', error_description: 'client authentication failed' }, {
        'WWW-Authenticate': 'Basic realm="dev-idp"',
      });
      return;
    }

    let claims: JWTPayload;
    try {
      ({ payload: claims } = await jwtVerify(token, publicKey as CryptoKey, {
        issuer,
        algorithms: ['RS256'],
        typ: 'at+jwt',
      }));
    } catch {
      sendJson(200, { active: false });
      return;
    }
    const stored = typeof claims.jti === 'string' ? await jwtAccessTokens.find(claims.jti) : undefined;
    const grantId = typeof stored?.grantId === 'string' ? stored.grantId : undefined;
    const grant = grantId ? await provider.Grant.find(grantId) : undefined;
    if (
      !stored
      || !grant
      || stored.clientId !== claims.client_id
      || grant.clientId !== claims.client_id
      || grant.accountId !== claims.sub
    ) {
      sendJson(200, { active: false });
      return;
    }
    sendJson(200, {
      active: true,
      sub: claims.sub,
      client_id: claims.client_id,
      scope: claims.scope,
      exp: claims.exp,
      iat: claims.iat,
      iss: claims.iss,
      aud: claims.aud,
      jti: claims.jti,
      token_type: 'Bearer',
    });
  }

  async function handleInteraction(req: IncomingMessage, res: ServerResponse, uid: string): Promise<void> {
    let interaction;
    try {
      interaction = await provider.interactionDetails(req, res);
    } catch (err) {
      logger?.info({ component: 'dev-idp', ...describeError(err) }, 'dev IdP interaction not found');
      sendHtml(res, 400, renderErrorPage({
        error: 'invalid_request',
        error_description: 'This sign-in request has expired or is unknown. Start again from the application.',
      }));
      return;
    }
    if (interaction.uid !== uid) {
      sendHtml(res, 400, renderErrorPage({ error: 'invalid_request', error_description: 'interaction mismatch' }));
      return;
    }

    const clientId = interaction.params.client_id ?? '';
    const scope = interaction.params.scope;
    const action = `/interaction/${encodeURIComponent(uid)}`;
    const hintAccounts = usingSeededUsers ? users.map((u) => ({ username: u.username, password: u.password })) : undefined;

    if (interaction.prompt.name === 'consent') {
      // Normally unreachable (reconcileGrant pre-approves everything), but if the provider does
      // ask, approve on the user's behalf: first-party dev clients, no consent screen.
      const accountId = interaction.session?.accountId;
      if (!accountId) {
        sendHtml(res, 400, renderErrorPage({ error: 'invalid_request', error_description: 'no signed-in user' }));
        return;
      }
      const grant = interaction.grantId
        ? (await provider.Grant.find(interaction.grantId)) ?? new provider.Grant({ accountId, clientId })
        : new provider.Grant({ accountId, clientId });
      const { missingOIDCScope, missingOIDCClaims, missingResourceScopes } = interaction.prompt.details;
      if (missingOIDCScope?.length) grant.addOIDCScope(missingOIDCScope.join(' '));
      if (missingOIDCClaims?.length) grant.addOIDCClaims(missingOIDCClaims);
      const user = usersBySub.get(accountId);
      for (const [indicator, scopes] of Object.entries(missingResourceScopes ?? {})) {
        const allowed = scopes.filter((s) => userMayUseScope(user, s));
        const denied = scopes.filter((s) => !userMayUseScope(user, s));
        if (allowed.length) grant.addResourceScope(indicator, allowed.join(' '));
        if (denied.length) grant.rejectResourceScope(indicator, denied.join(' '));
      }
      const grantId = await grant.save();
      const returnTo = await provider.interactionResult(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
      redirect(res, returnTo);
      return;
    }

    if (req.method === 'GET' || req.method === 'HEAD') {
      sendHtml(res, 200, renderLoginPage({ action, clientId, scope, hintAccounts }));
      return;
    }

    if (req.method !== 'POST') {
      res.statusCode = 405;
      res.setHeader('Allow', 'GET, POST');
      res.end();
      return;
    }

    if (!isFormPost(req)) {
      sendHtml(res, 415, renderErrorPage({ error: 'invalid_request', error_description: 'expected a form submission' }));
      return;
    }
    const form = new URLSearchParams((await readBody(req, FORM_BODY_LIMIT)).toString('utf8'));

    if (form.get('cancel')) {
      // OIDC Core §3.1.2.6: the user declined; the client receives error=access_denied.
      const returnTo = await provider.interactionResult(req, res, {
        error: 'access_denied',
        error_description: 'End-User cancelled the sign-in',
      }, { mergeWithLastSubmission: false });
      logger?.info({ component: 'dev-idp', clientId }, 'dev IdP sign-in cancelled');
      redirect(res, returnTo);
      return;
    }

    const username = (form.get('username') ?? '').trim();
    const password = form.get('password') ?? '';
    const user = usersByName.get(username);
    // Always run the comparison so an unknown username takes as long as a wrong password.
    const ok = secretMatches(user?.password ?? randomBytes(16).toString('hex'), password) && user !== undefined;
    if (!ok || !user) {
      // Never log the password; the username is fine (dev accounts, and helps debugging).
      logger?.info({ component: 'dev-idp', username, clientId }, 'dev IdP sign-in failed');
      // 200, not 401: a 401 would require a WWW-Authenticate challenge (RFC 9110 §15.5.2),
      // which does not apply to an HTML form.
      sendHtml(res, 200, renderLoginPage({
        action,
        clientId,
        scope,
        username,
        error: 'Invalid username or password.',
        hintAccounts,
      }));
      return;
    }

    const returnTo = await provider.interactionResult(req, res, {
      login: { accountId: user.sub, amr: ['pwd'] },
    }, { mergeWithLastSubmission: false });
    logger?.info({ component: 'dev-idp', username, sub: user.sub, clientId }, 'dev IdP sign-in succeeded');
    redirect(res, returnTo);
  }

  handler = (req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const interactionMatch = INTERACTION_PATH.exec(path);
    let work: Promise<void>;
    if (interactionMatch?.[1]) {
      work = handleInteraction(req, res, interactionMatch[1]);
    } else if (path === introspectionPath && req.method === 'POST') {
      work = handleIntrospection(req, res);
    } else {
      work = providerCallback(req, res);
    }
    work.catch((err: unknown) => {
      logger?.info({ component: 'dev-idp', ...describeError(err) }, 'dev IdP internal error');
      if (!res.headersSent) {
        sendHtml(res, 500, renderErrorPage({ error: 'server_error' }));
      } else {
        res.destroy();
      }
    });
  };

  logger?.info({ component: 'dev-idp', issuer, clients: options.clients.map((c) => c.clientId), users: users.map((u) => u.username) },
    'dev identity provider listening (development only)');

  let closed: Promise<void> | undefined;
  return {
    issuer,
    port,
    users,
    close(): Promise<void> {
      closed ??= new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        // Drop keep-alive sockets (e.g. from fetch) so close() does not wait for their timeout.
        server.closeAllConnections();
      });
      return closed;
    },
  };
}
