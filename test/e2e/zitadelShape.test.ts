// Permissions from a Zitadel-shaped provider, end to end: the dev identity provider issues
// tokens shaped like Zitadel's (typ JWT, no `scope`, roles in
// `urn:zitadel:iam:org:project[:{projectId}]:roles`), and the gateway runs with
// OIDC_PERMISSIONS_FROM=zitadel-roles. A real browser login, the BFF's exchange, and Bearer calls.
// Once with JWT access tokens and once with opaque ones (Zitadel's default: introspection).

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import { addPlatform, browserLogin, PLATFORM_CALLBACK, startHarness, type Harness } from '../helpers/flowHarness.ts';
import { obtainTokens } from '../helpers/oidcBrowser.ts';

const ALICE = { username: 'alice', password: 'alice-password' };
const ADMIN = { username: 'admin', password: 'admin-password' };
const ALL = ['onboarding:schema:read', 'onboarding:schema:write', 'platforms:admin', 'support:access'];

async function exchangedPermissions(harness: Harness, user: typeof ADMIN): Promise<string[]> {
  const platform = await addPlatform(harness);
  const { location } = await browserLogin(harness, platform.key, user);
  expect(`${location.origin}${location.pathname}`).toBe(PLATFORM_CALLBACK);
  const res = await request(harness.gateway.app)
    .post('/v1/auth/exchange')
    .set('Authorization', platform.basic)
    .set('Content-Type', 'application/json')
    .send({ code: location.searchParams.get('code') })
    .expect(200);
  return [...res.body.permissions].sort();
}

/** An access token of the gateway's own client, straight from the provider (as a CLI or script would get one). */
async function accessToken(harness: Harness, user: typeof ADMIN): Promise<string> {
  const { oidc } = harness.gateway.config;
  const tokens = await obtainTokens({
    issuer: harness.idp.issuer,
    clientId: oidc.clientId!,
    clientSecret: oidc.clientSecret!,
    redirectUri: `${harness.baseUrl}/v1/auth/callback`,
    username: user.username,
    password: user.password,
    scope: 'openid profile email',
  });
  return tokens.accessToken;
}

const listPlatforms = (harness: Harness, token: string) => request(harness.gateway.app).get('/v1/platforms').set('Authorization', `Bearer ${token}`);

describe.each([
  ['JWT access tokens', 'jwt'],
  ['opaque access tokens (introspection)', 'opaque'],
] as const)('Zitadel-shaped provider, OIDC_PERMISSIONS_FROM=zitadel-roles, %s', (_name, accessTokenFormat) => {
  let harness: Harness;

  beforeAll(async () => {
    harness = await startHarness({ OIDC_PERMISSIONS_FROM: 'zitadel-roles' }, { tokenShape: 'zitadel', accessTokenFormat });
  });
  afterAll(async () => {
    await harness?.close();
  });

  it('gives admin the four permissions at the exchange, from the roles claims', async () => {
    expect(await exchangedPermissions(harness, ADMIN)).toEqual(ALL);
  });

  it('gives alice, who holds no role, none', async () => {
    expect(await exchangedPermissions(harness, ALICE)).toEqual([]);
  });

  it("allows an admin's Zitadel-shaped Bearer token on GET /v1/platforms, and forbids alice's", async () => {
    const admin = await accessToken(harness, ADMIN);
    expect(admin.split('.')).toHaveLength(accessTokenFormat === 'jwt' ? 3 : 1);
    const allowed = await listPlatforms(harness, admin);
    expect(allowed.status, JSON.stringify(allowed.body)).toBe(200);
    const forbidden = await listPlatforms(harness, await accessToken(harness, ALICE));
    expect({ status: forbidden.status, code: forbidden.body.code }).toEqual({ status: 403, code: 'FORBIDDEN' });
  });
});

describe('Zitadel-shaped provider with the default OIDC_PERMISSIONS_FROM=scope', () => {
  let harness: Harness;

  beforeAll(async () => {
    harness = await startHarness({}, { tokenShape: 'zitadel' });
  });
  afterAll(async () => {
    await harness?.close();
  });

  it('grants nobody anything: Zitadel tokens carry no scope claim (why zitadel-roles exists)', async () => {
    expect(await exchangedPermissions(harness, ADMIN)).toEqual([]);
  });
});
