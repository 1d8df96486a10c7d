// The identity provider: the OpenID Connect client (OIDC_*) and the provider's admin API for
// account operations (IDP_ADMIN_*).

import { readList, type Reader } from './reader.ts';

export interface OidcConfig {
  /** Issuer URL used for discovery; null means "start the dev identity provider" (never in production). */
  readonly issuer: string | null;
  readonly clientId: string | null;
  readonly clientSecret: string | null;
  readonly scopes: readonly string[];
  /** The `aud` every access token must carry (OIDC_ACCESS_TOKEN_AUDIENCE); null means OIDC_CLIENT_ID. */
  readonly accessTokenAudience: string | null;
  /**
   * Clients whose access tokens are accepted (OIDC_TRUSTED_CLIENT_IDS): the token's
   * `client_id` (or `azp`) must be one of them; null means [OIDC_CLIENT_ID].
   */
  readonly trustedClientIds: readonly string[] | null;
  /** Where permissions come from (OIDC_PERMISSIONS_FROM): the `scope` claim, or Zitadel's project roles claims. */
  readonly permissionsFrom: PermissionsSource;
  /**
   * Clients whose Bearer tokens are central callers (OIDC_CENTRAL_CLIENT_IDS): they need no
   * platform claim for schema operations; null means [OIDC_CLIENT_ID].
   */
  readonly centralClientIds: readonly string[] | null;
  /** The claim naming the platform(s) a non-central Bearer token acts for (OIDC_PLATFORM_CLAIM). */
  readonly platformClaim: string;
  /**
   * `amr` values (RFC 8176) that show a second factor when a platform asks for one
   * (OIDC_SECOND_FACTOR_AMR, default `mfa`: Zitadel's for two checked factors or a passkey).
   */
  readonly secondFactorAmr: readonly string[];
  /**
   * The `acr_values` sent when a platform asks for a second factor, only to a provider whose
   * discovery lists it (OIDC_SECOND_FACTOR_ACR; Zitadel lists none).
   */
  readonly secondFactorAcr: string;
}

export type PermissionsSource = 'scope' | 'zitadel-roles';

/** The identity provider's admin API for account operations (Zitadel v2 user API). */
export interface IdpAdminConfig {
  /** Base URL of the API; default OIDC_ISSUER. */
  readonly apiUrl: string | null;
  /** A service user's personal access token (IDP_ADMIN_TOKEN). */
  readonly token: string | null;
  /** A service user's JWT-profile key file (IDP_ADMIN_KEY_FILE). */
  readonly keyFile: string | null;
}

const CLAIM_NAME = /^\S{1,200}$/;
/** The OpenID Provider Authentication Policy Extension's multi-factor policy, a widely used `acr` value for "a second factor". */
export const MULTI_FACTOR_ACR = 'http://schemas.openid.net/pape/policies/2007/06/multi-factor';

/** OIDC_SCOPES: space separated, and must include `openid`. */
export function readScopes(reader: Reader): string[] {
  const scopes = (reader.raw('OIDC_SCOPES') ?? 'openid profile email').split(/\s+/).filter(Boolean);
  if (!scopes.includes('openid')) reader.problems.push('OIDC_SCOPES is refused: must include "openid"');
  return scopes;
}

/** The OIDC_* client settings (the issuer and scopes read first: the other settings depend on them). */
export function readOidc(reader: Reader, issuer: string | null, scopes: readonly string[]): OidcConfig {
  return {
    issuer,
    clientId: reader.string('OIDC_CLIENT_ID', null),
    clientSecret: reader.string('OIDC_CLIENT_SECRET', null),
    scopes,
    accessTokenAudience: reader.string('OIDC_ACCESS_TOKEN_AUDIENCE', null),
    trustedClientIds: readList(reader, 'OIDC_TRUSTED_CLIENT_IDS'),
    permissionsFrom: reader.oneOf<PermissionsSource>('OIDC_PERMISSIONS_FROM', 'scope', ['scope', 'zitadel-roles']),
    centralClientIds: readList(reader, 'OIDC_CENTRAL_CLIENT_IDS'),
    platformClaim: reader.pattern('OIDC_PLATFORM_CLAIM', CLAIM_NAME, 'must be a claim name (1..200 characters, no whitespace)') ?? 'platform_key',
    secondFactorAmr: readList(reader, 'OIDC_SECOND_FACTOR_AMR') ?? ['mfa'],
    secondFactorAcr: reader.pattern('OIDC_SECOND_FACTOR_ACR', CLAIM_NAME, 'must be one acr value (1..200 characters, no whitespace)') ?? MULTI_FACTOR_ACR,
  };
}

export function readIdpAdmin(reader: Reader): IdpAdminConfig {
  return {
    apiUrl: reader.url('IDP_ADMIN_API_URL', null),
    token: reader.string('IDP_ADMIN_TOKEN', null),
    keyFile: reader.string('IDP_ADMIN_KEY_FILE', null),
  };
}

/** True when the flow endpoints can run: in production a missing OIDC client answers 503. */
export function oidcClientConfigured(config: { readonly oidc: OidcConfig }): boolean {
  return Boolean(config.oidc.issuer && config.oidc.clientId && config.oidc.clientSecret);
}
