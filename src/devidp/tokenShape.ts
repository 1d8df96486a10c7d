// How the dev identity provider shapes its tokens.
//
// 'rfc9068' (the default): JWT access tokens as RFC 9068 describes them: `typ: at+jwt`, a
// `scope` claim listing the permission scopes the user holds and asked for.
//
// 'zitadel': tokens the way Zitadel issues them (shared/research/zitadel-api.md §4-5), so the
// gateway's OIDC_PERMISSIONS_FROM=zitadel-roles path is tested against real tokens:
// - JWT access tokens are typed `JWT` (not `at+jwt`) and carry no `scope` claim (Zitadel never sets
//   it); custom scopes such as the permission scopes are dropped before issuing, so neither the
//   token response nor introspection lists them;
// - `aud` is the project id plus the client id of every app of the project;
// - claims: iss, sub, aud, exp, iat, nbf, jti, client_id, plus the roles claims;
// - the user's permissions arrive as project roles, asserted whatever was requested (Zitadel's
//   "Assert Roles on Authentication"), in `urn:zitadel:iam:org:project:roles` and
//   `urn:zitadel:iam:org:project:{projectId}:roles`, shaped `{ roleKey: { orgId: orgDomain } }`,
//   in the ID token, the JWT access token and introspection answers alike.
//
// The claim names are spelled out here rather than shared with the gateway's reader
// (src/oidc/permissions.ts): the dev IdP stands in for Zitadel, so a typo on either side
// must make the tests fail rather than agree with itself.

import { OIDC_SCOPES, userMayUseScope, type DevIdpProfile } from './users.ts';

export type TokenShape = 'rfc9068' | 'zitadel';

export interface ZitadelShapeOptions {
  /** The Zitadel project the clients belong to (default 100000000000000001). */
  projectId?: string;
  /** The organisation that granted the roles (default 100000000000000002). */
  orgId?: string;
  /** Its primary domain (default dev-org.zitadel.localhost). */
  orgDomain?: string;
}

export interface TokenShaper {
  readonly shape: TokenShape;
  /** The Zitadel project id (Zitadel shape only). */
  readonly projectId: string | undefined;
  /** `typ` header of JWT access tokens. */
  readonly accessTokenTyp: 'at+jwt' | 'JWT';
  /** Extra claim names released with the `openid` scope (so they appear in ID tokens). */
  readonly idTokenClaimNames: readonly string[];
  /** Claims about the user that every token of this shape carries (the roles claims). */
  userClaims(user: DevIdpProfile | undefined): Record<string, unknown>;
  /** Rewrites the payload and header of a JWT access token (oidc-provider formats.customizers.jwt). */
  customizeJwtAccessToken(token: { header: Record<string, unknown> | undefined; payload: Record<string, unknown> }, user: DevIdpProfile | undefined): void;
  /** `aud` of introspection answers for opaque access tokens (Zitadel shape). */
  readonly audience: string | string[];
  /** Whether a requested scope is granted to the user. */
  mayGrantScope(user: DevIdpProfile | undefined, scope: string): boolean;
}

export const DEFAULT_ZITADEL_PROJECT_ID = '100000000000000001';
const DEFAULT_ZITADEL_ORG_ID = '100000000000000002';
const DEFAULT_ZITADEL_ORG_DOMAIN = 'dev-org.zitadel.localhost';

export function createTokenShaper(shape: TokenShape, input: { audience: string; clientIds: string[]; zitadel?: ZitadelShapeOptions }): TokenShaper {
  if (shape === 'rfc9068') {
    return {
      shape,
      projectId: undefined,
      accessTokenTyp: 'at+jwt',
      idTokenClaimNames: [],
      userClaims: () => ({}),
      customizeJwtAccessToken: () => {},
      audience: input.audience,
      mayGrantScope: userMayUseScope,
    };
  }

  const projectId = input.zitadel?.projectId ?? DEFAULT_ZITADEL_PROJECT_ID;
  const orgId = input.zitadel?.orgId ?? DEFAULT_ZITADEL_ORG_ID;
  const orgDomain = input.zitadel?.orgDomain ?? DEFAULT_ZITADEL_ORG_DOMAIN;
  const plainRolesClaim = 'urn:zitadel:iam:org:project:roles';
  const projectRolesClaim = `urn:zitadel:iam:org:project:${projectId}:roles`;
  // Zitadel: "the client ids of all apps in the client's project plus the project id".
  const audience = [...new Set([projectId, ...input.clientIds])];

  const userClaims = (user: DevIdpProfile | undefined): Record<string, unknown> => {
    if (!user?.permissions.length) return {}; // Zitadel leaves the claims out when no role is granted
    const roles = Object.fromEntries(user.permissions.map((role) => [role, { [orgId]: orgDomain }]));
    return { [plainRolesClaim]: roles, [projectRolesClaim]: structuredClone(roles) };
  };

  return {
    shape,
    projectId,
    accessTokenTyp: 'JWT',
    idTokenClaimNames: [plainRolesClaim, projectRolesClaim],
    userClaims,
    audience,
    // Zitadel drops custom scopes (IsScopeAllowed): only the standard ones are ever granted.
    mayGrantScope: (user, scope) => user !== undefined && (OIDC_SCOPES as readonly string[]).includes(scope),
    customizeJwtAccessToken(token, user) {
      token.header = { ...token.header, typ: 'JWT' };
      const { payload } = token;
      delete payload.scope;
      delete payload.authorization_details;
      payload.aud = audience;
      if (typeof payload.iat === 'number') payload.nbf = payload.iat;
      Object.assign(payload, userClaims(user));
    },
  };
}
