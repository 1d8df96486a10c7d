// Token introspection (RFC 7662) at the dev identity provider.
//
// oidc-provider answers it for opaque tokens, but refuses structured (JWT) tokens outright
// (lib/shared/reject_structured_tokens.js: a resource server is expected to validate those itself),
// and it keeps no server-side record of them. The gateway may still want a server-side,
// revocation-aware check of the JWT access tokens issued here, so for a JWT this handler answers
// itself:
//   1. authenticate the caller with client_secret_basic (RFC 7662 §2.1, RFC 6749 §2.3.1);
//   2. verify the JWT's signature, issuer, type and expiry (RFC 9068 §4);
//   3. require the token to be one we issued and its grant to still exist, so that tokens of
//      revoked grants come back inactive, as opaque ones do (`issuedJwts` is our own record of the
//      JWTs issued and their grants);
//   4. answer with the RFC 7662 §2.2 members.
// Anything that fails after step 1 is {"active": false}, which reveals nothing (§2.2).
//
// In the Zitadel shape, opaque access tokens are answered here too, as Zitadel answers them:
// `aud` = the project and its clients, `token_type: Bearer`, the roles claims, `username`.
// Every other token (refresh tokens, unknown strings) goes to oidc-provider untouched (the body is
// replayed, since it was read here).

import type { IncomingMessage, ServerResponse } from 'node:http';
import { jwtVerify, type CryptoKey, type JWTPayload } from 'jose';
import type { Adapter, Provider } from 'oidc-provider';

import { FORM_BODY_LIMIT, isFormPost, readBody, replayRequest, sendJson } from './http.ts';
import type { TokenShaper } from './tokenShape.ts';
import type { ActiveUsers } from './configuration.ts';

export interface IntrospectionContext {
  issuer: string;
  provider: Provider;
  providerCallback: (req: IncomingMessage, res: ServerResponse) => Promise<void>;
  authenticateClient(authorization: string | undefined): string | undefined;
  publicKey: CryptoKey;
  issuedJwts: Adapter;
  shaper: TokenShaper;
  /** Active users only: a token of a deactivated or deleted user is no longer active. */
  usersBySub: ActiveUsers;
  logger: { info(obj: object, msg?: string): void } | undefined;
}

export function createIntrospectionHandler(context: IntrospectionContext) {
  const { issuer, provider, shaper, usersBySub, logger } = context;

  /** Step 1: an unauthenticated caller gets 401 invalid_client (RFC 6749 §5.2) with a challenge. */
  function authenticated(req: IncomingMessage, res: ServerResponse): boolean {
    if (context.authenticateClient(req.headers.authorization)) return true;
    logger?.info({ component: 'dev-idp', event: 'introspection.error', error: 'invalid_client' }, 'dev IdP request failed');
    sendJson(res, 401, { error: 'invalid_client', error_description: 'client authentication failed' }, {
      'WWW-Authenticate': 'Basic realm="dev-idp"',
    });
    return false;
  }

  async function answerJwt(token: string): Promise<object> {
    let claims: JWTPayload;
    try {
      ({ payload: claims } = await jwtVerify(token, context.publicKey, { issuer, algorithms: ['RS256'], typ: shaper.accessTokenTyp }));
    } catch {
      return { active: false };
    }
    const stored = typeof claims.jti === 'string' ? await context.issuedJwts.find(claims.jti) : undefined;
    const grantId = typeof stored?.grantId === 'string' ? stored.grantId : undefined;
    const grant = grantId ? await provider.Grant.find(grantId) : undefined;
    if (!stored || !grant || stored.clientId !== claims.client_id || grant.clientId !== claims.client_id || grant.accountId !== claims.sub) {
      return { active: false };
    }
    const user = typeof claims.sub === 'string' ? usersBySub.get(claims.sub) : undefined;
    if (!user) return { active: false };
    return {
      active: true,
      sub: claims.sub,
      client_id: claims.client_id,
      scope: typeof stored.scope === 'string' ? stored.scope : claims.scope,
      exp: claims.exp,
      iat: claims.iat,
      ...(claims.nbf !== undefined ? { nbf: claims.nbf } : {}),
      iss: claims.iss,
      aud: claims.aud,
      jti: claims.jti,
      token_type: 'Bearer',
      ...(shaper.shape === 'zitadel' ? { username: user?.username, ...shaper.userClaims(user) } : {}),
    };
  }

  /** Zitadel shape: an opaque access token of ours, answered as Zitadel does; undefined otherwise. */
  async function answerZitadelOpaque(token: string): Promise<object | undefined> {
    const accessToken = await provider.AccessToken.find(token);
    if (!accessToken?.isValid || !accessToken.grantId) return undefined;
    const grant = await provider.Grant.find(accessToken.grantId);
    if (!grant || grant.clientId !== accessToken.clientId || grant.accountId !== accessToken.accountId) return { active: false };
    const user = accessToken.accountId ? usersBySub.get(accessToken.accountId) : undefined;
    if (!user) return { active: false };
    return {
      active: true,
      scope: accessToken.scope,
      client_id: accessToken.clientId,
      token_type: 'Bearer',
      exp: accessToken.exp,
      iat: accessToken.iat,
      nbf: accessToken.iat,
      aud: shaper.audience,
      iss: issuer,
      jti: accessToken.jti,
      sub: accessToken.accountId,
      username: user?.username,
      ...shaper.userClaims(user),
    };
  }

  return async function handleIntrospection(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req, FORM_BODY_LIMIT);
    const params = isFormPost(req) ? new URLSearchParams(raw.toString('utf8')) : undefined;
    const token = params?.get('token');
    const isJwt = Boolean(token && token.split('.').length === 3);
    if (!token || (!isJwt && shaper.shape !== 'zitadel')) {
      await context.providerCallback(replayRequest(req, raw), res);
      return;
    }
    if (!authenticated(req, res)) return;
    const answer = isJwt ? await answerJwt(token) : await answerZitadelOpaque(token);
    if (answer === undefined) {
      await context.providerCallback(replayRequest(req, raw), res);
      return;
    }
    sendJson(res, 200, answer);
  };
}
