// Check 7 of issue 32: LemonLDAP::NG's access token as a Bearer token on /v1/me. A platform's
// own LLNG client (`platformapi`, added here) gets JWT access tokens whose audience names the
// gateway (AdditionalAudiences) and whose scope LLNG grants from the person's groups (scope rules,
// lmConf.json): the gateway trusts that client (OIDC_TRUSTED_CLIENT_IDS) and reads the scope
// (OIDC_PERMISSIONS_FROM=scope). LLNG 2.16's introspection answer carries no token_type and no
// aud, so an opaque LLNG token is refused by the gateway's rules (RFC 7662 answers are typed
// positively, docs/providers.md): that is checked too.
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { basicAuth } from '../helpers/oidcBrowser.ts';
import { exchangeCode, explained, ROSE, signInAtLlng, skipReason, startDirectLogin, startGatewayStack, type GatewayStack } from './gatewayStack.ts';

const skipped = skipReason();
const API_CLIENT = 'platformapi';
const API_SECRET = randomBytes(24).toString('hex');

describe.skipIf(skipped !== null)(`LemonLDAP::NG access tokens at the gateway${skipped ? ` (skipped: ${skipped})` : ''}`, () => {
  let stack: GatewayStack;
  let redirectUri: string;
  beforeAll(async () => {
    const provider = inject('provider');
    stack = await startGatewayStack({ OIDC_TRUSTED_CLIENT_IDS: `${provider.clientId},${API_CLIENT}`, OIDC_PERMISSIONS_FROM: 'scope' });
    redirectUri = `${stack.direct.callbackUrl.replace(/auth\/callback$/, '')}api-callback`;
    await stack.llng.updateConfig((config) => {
      const options = config.oidcRPMetaDataOptions as Record<string, Record<string, unknown>>;
      options.platformapi = {
        oidcRPMetaDataOptionsDisplayName: 'A platform API client',
        oidcRPMetaDataOptionsClientID: API_CLIENT,
        oidcRPMetaDataOptionsClientSecret: API_SECRET,
        oidcRPMetaDataOptionsPublic: 0,
        oidcRPMetaDataOptionsRequirePKCE: 1,
        oidcRPMetaDataOptionsRedirectUris: redirectUri,
        oidcRPMetaDataOptionsBypassConsent: 1,
        oidcRPMetaDataOptionsIDTokenSignAlg: 'RS256',
        oidcRPMetaDataOptionsAccessTokenJWT: 1,
        oidcRPMetaDataOptionsAccessTokenSignAlg: 'RS256',
        // The gateway's client id in the token's aud: the token is meant for the gateway too.
        oidcRPMetaDataOptionsAdditionalAudiences: provider.clientId,
        oidcRPMetaDataOptionsUserIDAttr: 'uid',
      };
      (config.oidcRPMetaDataExportedVars as Record<string, unknown>).platformapi = { email: 'mail', name: 'cn' };
      (config.oidcRPMetaDataScopeRules as Record<string, unknown>).platformapi = (config.oidcRPMetaDataScopeRules as Record<string, unknown>).gateway;
      (config.oidcRPMetaDataMacros as Record<string, unknown>).platformapi = {};
    });
  });
  afterAll(async () => {
    await stack?.close();
  });

  /** The platform's own authorization-code flow at LLNG (PKCE S256), in the browser; its access token. */
  async function apiAccessToken(jwt: boolean): Promise<string> {
    await stack.llng.updateConfig((config) => {
      (config.oidcRPMetaDataOptions as Record<string, Record<string, unknown>>).platformapi!.oidcRPMetaDataOptionsAccessTokenJWT = jwt ? 1 : 0;
    });
    const verifier = randomBytes(32).toString('base64url');
    const authorize = new URL('/oauth2/authorize', stack.llng.issuer);
    authorize.search = new URLSearchParams({
      client_id: API_CLIENT, response_type: 'code', redirect_uri: redirectUri, state: randomBytes(8).toString('hex'),
      scope: 'openid profile email platforms:admin onboarding:schema:read',
      code_challenge: createHash('sha256').update(verifier).digest('base64url'), code_challenge_method: 'S256',
    }).toString();
    const context = await stack.browser.newContext();
    const page = await context.newPage();
    await page.goto(authorize.href);
    await explained(page, () => page.locator('form#lform input[name=password]').waitFor({ timeout: 20_000 }));
    await signInAtLlng(page, ROSE);
    await explained(page, () => page.waitForURL((url) => url.href.startsWith(redirectUri), { timeout: 20_000 }));
    const code = new URL(page.url()).searchParams.get('code')!;
    await context.close();
    const response = await fetch(new URL('/oauth2/token', stack.llng.issuer), {
      method: 'POST',
      headers: { authorization: basicAuth(API_CLIENT, API_SECRET), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: redirectUri, code_verifier: verifier }),
    });
    const body = (await response.json()) as Record<string, string>;
    expect(response.status, JSON.stringify(body)).toBe(200);
    return body.access_token!;
  }

  const me = (token: string) => fetch(`${stack.baseUrl}/v1/me`, { headers: { authorization: `Bearer ${token}`, accept: 'application/json' } });

  it('check 7: LLNG\'s JWT access token as Bearer on /v1/me; its scope, granted by LLNG from the person\'s groups, is the permissions source', async () => {
    // The person is known to the gateway from a login through it.
    const context = await stack.browser.newContext();
    const login = await startDirectLogin(stack, context, {}, ROSE);
    expect((await exchangeCode(stack, login.code!)).status).toBe(200);
    await context.close();

    const token = await apiAccessToken(true);
    const claims = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;
    expect(claims).toMatchObject({ client_id: API_CLIENT, sub: ROSE.login });
    // Rose is in LLNG's `earthlings` group, not `timelords`: one permission granted, one not.
    expect(String(claims.scope).split(' ')).toContain('onboarding:schema:read');
    expect(String(claims.scope).split(' ')).not.toContain('platforms:admin');
    const response = await me(token);
    const body = (await response.json()) as Record<string, any>;
    expect(response.status, JSON.stringify(body)).toBe(200);
    expect(body.user).toMatchObject({ email: ROSE.email });
    expect(body.permissions).toEqual(['onboarding:schema:read']);
  });

  it('check 7: an opaque LLNG access token is introspected, and refused: LLNG 2.16\'s answer names no token_type and no audience', async () => {
    const token = await apiAccessToken(false);
    expect(token.split('.')).toHaveLength(1);
    const response = await me(token);
    const body = (await response.json()) as { code: string; detail: string };
    expect(response.status).toBe(401);
    expect(body.code).toBe('ACCESS_TOKEN_INVALID');
    // Refused for what the answer lacks, not for a failed introspection call.
    expect(body.detail).toContain('token_type');
  });
});
