// The dev identity provider in the Zitadel shape (src/devidp/tokenShape.ts): tokens that look
// like Zitadel's (shared/research/zitadel-api.md §4-5), so the gateway's zitadel-roles path is
// tested against real tokens. And opaque access tokens, Zitadel's default.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify, type JWTVerifyGetKey } from 'jose';

import { startDevIdp, type DevIdp } from '../../src/devidp/index.ts';
import { basicAuth, obtainTokens } from '../helpers/oidcBrowser.ts';

const REDIRECT_URI = 'http://127.0.0.1:9/v1/auth/callback';
const GATEWAY = { clientId: '300000000000000001@gateway', clientSecret: 'zitadel-gateway-secret-0123456789abcdef', redirectUris: [REDIRECT_URI] };
const OTHER = { clientId: '300000000000000002@other', clientSecret: 'zitadel-other-secret-0123456789abcdefgh', redirectUris: [REDIRECT_URI] };
const PROJECT = '200000000000000001';
const ORG = '200000000000000009';
const DOMAIN = 'acme.zitadel.test';
const ROLES = 'urn:zitadel:iam:org:project:roles';
const PROJECT_ROLES = `urn:zitadel:iam:org:project:${PROJECT}:roles`;
const ADMIN_ROLES = {
  'platforms:admin': { [ORG]: DOMAIN },
  'onboarding:schema:read': { [ORG]: DOMAIN },
  'onboarding:schema:write': { [ORG]: DOMAIN },
  'support:access': { [ORG]: DOMAIN },
};

async function introspect(idp: DevIdp, token: string, client = GATEWAY): Promise<Record<string, unknown>> {
  const res = await fetch(`${idp.issuer}/token/introspection`, {
    method: 'POST',
    headers: { authorization: basicAuth(client.clientId, client.clientSecret), 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token }).toString(),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, unknown>;
}

const login = (idp: DevIdp, username: 'admin' | 'alice', client = GATEWAY) =>
  obtainTokens({
    issuer: idp.issuer,
    clientId: client.clientId,
    clientSecret: client.clientSecret,
    redirectUri: REDIRECT_URI,
    username,
    password: `${username}-password`,
    scope: 'openid profile email platforms:admin onboarding:schema:read onboarding:schema:write',
  });

describe('dev identity provider, Zitadel shape, JWT access tokens', () => {
  let idp: DevIdp;
  let jwks: JWTVerifyGetKey;

  beforeAll(async () => {
    idp = await startDevIdp({ port: 0, clients: [GATEWAY, OTHER], tokenShape: 'zitadel', zitadel: { projectId: PROJECT, orgId: ORG, orgDomain: DOMAIN } });
    jwks = createRemoteJWKSet(new URL(`${idp.issuer}/jwks`));
  });
  afterAll(async () => {
    await idp?.close();
  });

  it('reports its shape and project', () => {
    expect(idp.tokenShape).toBe('zitadel');
    expect(idp.projectId).toBe(PROJECT);
  });

  it('issues admin a JWT access token typed JWT, without scope, aud = project + clients, with both roles claims', async () => {
    const tokens = await login(idp, 'admin');
    expect(decodeProtectedHeader(tokens.accessToken)).toMatchObject({ alg: 'RS256', typ: 'JWT' });
    const { payload } = await jwtVerify(tokens.accessToken, jwks, { issuer: idp.issuer, audience: PROJECT, typ: 'JWT' });
    expect(Object.keys(payload).sort()).toEqual(['aud', 'client_id', 'exp', 'iat', 'iss', 'jti', 'nbf', 'sub', PROJECT_ROLES, ROLES].sort());
    expect(payload.aud).toEqual([PROJECT, GATEWAY.clientId, OTHER.clientId]);
    expect(payload.client_id).toBe(GATEWAY.clientId);
    expect(payload.sub).toBe('dev-user-admin');
    expect(payload[ROLES]).toEqual(ADMIN_ROLES);
    expect(payload[PROJECT_ROLES]).toEqual(ADMIN_ROLES);
    // Custom scopes are dropped, as Zitadel does: the permissions arrive as roles only.
    expect(tokens.scope.split(' ').sort()).toEqual(['email', 'openid', 'profile']);
  });

  it('puts the roles claims into the ID token too, and none for a user without roles', async () => {
    const admin = await login(idp, 'admin');
    const { payload } = await jwtVerify(admin.idToken, jwks, { issuer: idp.issuer, audience: GATEWAY.clientId });
    expect(payload[ROLES]).toEqual(ADMIN_ROLES);
    expect(payload[PROJECT_ROLES]).toEqual(ADMIN_ROLES);

    const alice = await login(idp, 'alice');
    const idToken = (await jwtVerify(alice.idToken, jwks, { issuer: idp.issuer, audience: GATEWAY.clientId })).payload;
    const accessToken = (await jwtVerify(alice.accessToken, jwks, { issuer: idp.issuer, audience: PROJECT })).payload;
    for (const claims of [idToken, accessToken]) {
      expect(claims[ROLES]).toBeUndefined();
      expect(claims[PROJECT_ROLES]).toBeUndefined();
    }
  });

  it('gives another client of the project a token with the same aud and its own client_id', async () => {
    const tokens = await login(idp, 'admin', OTHER);
    const { payload } = await jwtVerify(tokens.accessToken, jwks, { issuer: idp.issuer, audience: GATEWAY.clientId });
    expect(payload.client_id).toBe(OTHER.clientId);
  });

  it('introspects a JWT access token with the roles, token_type Bearer and the project audience', async () => {
    const tokens = await login(idp, 'admin');
    const answer = await introspect(idp, tokens.accessToken);
    expect(answer).toMatchObject({
      active: true,
      sub: 'dev-user-admin',
      client_id: GATEWAY.clientId,
      token_type: 'Bearer',
      aud: [PROJECT, GATEWAY.clientId, OTHER.clientId],
      username: 'admin',
      [ROLES]: ADMIN_ROLES,
      [PROJECT_ROLES]: ADMIN_ROLES,
    });
  });
});

describe('dev identity provider, opaque access tokens', () => {
  it('Zitadel shape: an opaque access token, introspected as Zitadel answers', async () => {
    const idp = await startDevIdp({ port: 0, clients: [GATEWAY], tokenShape: 'zitadel', accessTokenFormat: 'opaque' });
    try {
      const tokens = await login(idp, 'admin');
      expect(tokens.accessToken.split('.')).toHaveLength(1);
      const answer = await introspect(idp, tokens.accessToken);
      expect(answer).toMatchObject({
        active: true,
        sub: 'dev-user-admin',
        client_id: GATEWAY.clientId,
        token_type: 'Bearer',
        aud: [idp.projectId, GATEWAY.clientId],
        iss: idp.issuer,
      });
      expect(String(answer.scope).split(' ')).not.toContain('platforms:admin');
      expect(Object.keys(answer['urn:zitadel:iam:org:project:roles'] as object).sort()).toEqual(
        ['onboarding:schema:read', 'onboarding:schema:write', 'platforms:admin', 'support:access'],
      );
      expect(await introspect(idp, `${tokens.accessToken}x`)).toEqual({ active: false });
    } finally {
      await idp.close();
    }
  });

  it('RFC 9068 shape: an opaque access token, introspected by oidc-provider with aud and scope', async () => {
    const idp = await startDevIdp({ port: 0, clients: [GATEWAY], accessTokenFormat: 'opaque' });
    try {
      const tokens = await login(idp, 'admin');
      expect(tokens.accessToken.split('.')).toHaveLength(1);
      const answer = await introspect(idp, tokens.accessToken);
      expect(answer).toMatchObject({ active: true, sub: 'dev-user-admin', client_id: GATEWAY.clientId, token_type: 'Bearer', aud: GATEWAY.clientId });
      expect(String(answer.scope).split(' ')).toContain('platforms:admin');
    } finally {
      await idp.close();
    }
  });
});
