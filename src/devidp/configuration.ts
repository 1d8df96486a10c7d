// The oidc-provider configuration of the dev identity provider, and the grant reconciliation that
// replaces its consent screen.

import { randomBytes } from 'node:crypto';
import {
  errors,
  interactionPolicy,
  type Account,
  type AdapterFactory,
  type ClientMetadata,
  type Configuration,
  type ErrorOut,
  type Grant,
  type KoaContextWithOIDC,
  type ResourceServerInfo,
} from 'oidc-provider';

import { backToApplication, renderErrorPage, renderLoggedOutPage, renderLogoutPage } from './pages.ts';
import { describeError } from './http.ts';
import type { TokenShaper } from './tokenShape.ts';
import { OIDC_SCOPES, PERMISSION_SCOPES, type DevIdpProfile } from './users.ts';
import { MULTI_FACTOR_ACR, secondFactorCheck } from './secondFactor.ts';

/** The profile of a user who may sign in (active); undefined for unknown, deactivated and deleted users. */
export interface ActiveUsers {
  get(sub: string): DevIdpProfile | undefined;
}

export interface DevIdpClient {
  clientId: string;
  clientSecret: string;
  redirectUris: string[];
  postLogoutRedirectUris?: string[];
  /**
   * OpenID Connect Back-Channel Logout 1.0: where the provider posts a logout token when the
   * person signs out at the provider (end_session). With it the client also requires a `sid`
   * (`backchannel_logout_session_required`), so its ID tokens and logout tokens carry one.
   */
  backchannelLogoutUri?: string;
}

export interface ProviderSettings {
  clients: DevIdpClient[];
  usersBySub: ActiveUsers;
  adapter: AdapterFactory;
  signingJwk: Record<string, unknown>;
  resourceIndicator: string;
  audience: string;
  accessTokenTtl: number;
  accessTokenFormat: 'jwt' | 'opaque';
  shaper: TokenShaper;
  logger: { info(obj: object, msg?: string): void } | undefined;
  /** Where a dev login starts (the example BFF): the error pages' way back. */
  homeUrl?: string | undefined;
}

/**
 * Skip the consent prompt (first-party dev clients; oidc-provider recipe "skip_consent") by
 * bringing the grant up to date with what was requested: the requested OIDC scopes and claims,
 * and for each resource server the requested scopes the user is entitled to. Scopes the user
 * is not entitled to are recorded as *rejected*, which also satisfies the consent checks, so a
 * non-admin asking for platforms:admin is simply issued a token without it (RFC 6749 §3.3:
 * the server may issue a narrower scope than requested and says so in the `scope` response).
 */
function grantReconciler(usersBySub: ActiveUsers, shaper: TokenShaper) {
  return async function reconcileGrant(ctx: KoaContextWithOIDC): Promise<Grant | undefined> {
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
        (shaper.mayGrantScope(user, scope) ? allowed : denied).push(scope);
      }
      if (allowed.length) grant.addResourceScope(indicator, allowed.join(' '));
      if (denied.length) grant.rejectResourceScope(indicator, denied.join(' '));
    }

    await grant.save();
    return grant;
  };
}

/**
 * oidc-provider's default prompts, with one more login check: a session whose account can no
 * longer sign in (deactivated or deleted since, so findAccount does not find it) asks for a login
 * again, and the login page refuses that user; without it the provider would go on with a
 * session of nobody.
 */
function interactionPolicyWithAccountCheck(): unknown {
  const policy = interactionPolicy.base();
  policy.get('login')!.checks.add(new interactionPolicy.Check(
    'account_unavailable',
    'the signed-in account can no longer sign in',
    (ctx: KoaContextWithOIDC) => (ctx.oidc.session?.accountId && !ctx.oidc.account ? interactionPolicy.Check.REQUEST_PROMPT : interactionPolicy.Check.NO_NEED_TO_PROMPT),
  ));
  // A second factor asked of a session signed in without one (secondFactor.ts).
  policy.get('login')!.checks.add(secondFactorCheck());
  return policy;
}

export function buildProviderConfiguration(settings: ProviderSettings): Configuration {
  const { shaper, usersBySub, logger, resourceIndicator, accessTokenTtl } = settings;
  const backchannelLogoutUris = new Set(settings.clients.flatMap((c) => (c.backchannelLogoutUri ? [new URL(c.backchannelLogoutUri).href] : [])));
  const clients: ClientMetadata[] = settings.clients.map((c) => ({
    client_id: c.clientId,
    client_secret: c.clientSecret,
    redirect_uris: [...c.redirectUris],
    ...(c.postLogoutRedirectUris ? { post_logout_redirect_uris: [...c.postLogoutRedirectUris] } : {}),
    // oidc-provider puts `sid` into the ID tokens of a client only when it has a back-channel
    // logout URI and requires the session (Client#includeSid), as the gateway's does.
    ...(c.backchannelLogoutUri ? { backchannel_logout_uri: c.backchannelLogoutUri, backchannel_logout_session_required: true } : {}),
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'client_secret_basic',
    id_token_signed_response_alg: 'RS256',
    // Every ID token says when the person signed in (`auth_time`), as Zitadel's do; the gateway
    // checks it when a platform asks for a fresh sign-in (OIDC Core §2, Registration §2).
    require_auth_time: true,
  }));
  const resourceScope = [...OIDC_SCOPES, ...PERMISSION_SCOPES].join(' ');

  return {
    adapter: settings.adapter,
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
    jwks: { keys: [settings.signingJwk] },
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
      // Zitadel shape: the roles claims ride with `openid`, so every ID token carries them (as with
      // Zitadel's idTokenRoleAssertion).
      // `amr` (RFC 8176) rides with `openid` too: every ID token says how the person signed in,
      // as Zitadel's do (secondFactor.ts).
      openid: ['sub', 'amr', ...shaper.idTokenClaimNames],
      profile: ['given_name', 'family_name', 'name', 'preferred_username'],
      email: ['email', 'email_verified'],
    },
    scopes: ['openid', 'offline_access'],
    // Discovery lists it, so the gateway sends it when a platform asks for a second factor.
    acrValues: [MULTI_FACTOR_ACR],
    pkce: {
      // RFC 7636 for every client, not only public ones (OAuth 2.0 Security BCP, RFC 9700 §2.1.1).
      required: () => true,
    },
    formats: {
      customizers: {
        // Zitadel shape: typ JWT, no scope, aud = project + clients, roles claims (tokenShape.ts).
        jwt: async (_ctx: unknown, token: { accountId?: string }, jwt: { header: Record<string, unknown> | undefined; payload: Record<string, unknown> }) => {
          shaper.customizeJwtAccessToken(jwt, token.accountId ? usersBySub.get(token.accountId) : undefined);
        },
      },
    },
    interactions: { policy: interactionPolicyWithAccountCheck() },
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
      // Back-Channel Logout 1.0: signing out at the provider (end_session) posts a logout token
      // (RS256, typ logout+jwt, with `sid`) to every client of the session with a
      // backchannel_logout_uri (DevIdpClient.backchannelLogoutUri).
      backchannelLogout: { enabled: true },
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
            audience: settings.audience,
            accessTokenTTL: accessTokenTtl,
            // 'jwt': the RFC 9068 JWT profile (typ at+jwt, or JWT in the Zitadel shape);
            // 'opaque': introspection only, Zitadel's default.
            accessTokenFormat: settings.accessTokenFormat,
            ...(settings.accessTokenFormat === 'jwt' ? { jwt: { sign: { alg: 'RS256' } } } : {}),
          };
        },
      },
    },
    loadExistingGrant: grantReconciler(usersBySub, shaper),
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
          ...shaper.userClaims(user),
        }),
      };
    },
    // Same-origin browser calls only; nothing in the dev stack needs CORS at the IdP.
    clientBasedCORS: () => false,
    // oidc-provider refuses to connect to loopback and private addresses (SSRF protection), and
    // in development the gateway listens on one. Its back-channel logout URIs are registered
    // here, by the dev stack, never by a caller, so requests to exactly those are let through;
    // every other outgoing request keeps the protection.
    fetch: (url: URL | string, options: RequestInit & { dispatcher?: unknown }) => {
      if (backchannelLogoutUris.has(new URL(url).href)) {
        const { dispatcher: _ssrfProtection, ...rest } = options;
        return globalThis.fetch(url, rest);
      }
      return globalThis.fetch(url, options);
    },
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
      ctx.body = renderErrorPage(out, backToApplication(settings.homeUrl));
    },
  };
}
