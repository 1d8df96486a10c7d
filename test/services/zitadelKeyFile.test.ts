// The Zitadel adapter with a service user's JWT-profile key file (IDP_ADMIN_KEY_FILE), against the
// local server built on Zitadel's definitions (test/helpers/zitadelServer.ts): the assertion, the
// token endpoint exchange (hand-written: @zitadel/client has no call for it), the token's cache and
// renewal, and the factory that picks the adapter from the configuration.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { startZitadelServer, type ZitadelServer } from '../helpers/zitadelServer.ts';
import { apiError, memory } from '../helpers/logCapture.ts';
import { createZitadelAccounts } from '../../src/services/identityProvider/zitadel.ts';
import { jwtProfileCredential, parseServiceAccountKey, readServiceAccountKeyFile } from '../../src/services/identityProvider/zitadelAuth.ts';
import { identityProviderAccountsFromConfig } from '../../src/services/identityProvider/index.ts';
import { createLogger } from '../../src/logger.ts';
import { loadConfig } from '../../src/config/index.ts';

const PAT = `pat_${randomBytes(16).toString('hex')}`;
const CURRENT = 'Curr3nt-secret-pw';

describe('Zitadel adapter with a JWT-profile key file', () => {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const SERVICE_USER = '287340000000000099';
  const KEY_ID = '287340000000000100';
  const keyFile = {
    type: 'serviceaccount',
    keyId: KEY_ID,
    // Zitadel writes PKCS#1 ("BEGIN RSA PRIVATE KEY").
    key: privateKey.export({ type: 'pkcs1', format: 'pem' }).toString(),
    userId: SERVICE_USER,
  };
  let zitadel: ZitadelServer;
  let folder: string;

  beforeAll(async () => {
    zitadel = await startZitadelServer({ users: [{ id: '1001', password: CURRENT }], serviceAccount: { userId: SERVICE_USER, keyId: KEY_ID, publicKey } });
    folder = mkdtempSync(path.join(tmpdir(), 'zitadel-key-'));
  });
  afterAll(async () => {
    await zitadel?.close();
    rmSync(folder, { recursive: true, force: true });
  });

  const adapterWith = (key = parseServiceAccountKey(keyFile)) =>
    createZitadelAccounts({
      apiUrl: zitadel.url,
      credential: jwtProfileCredential({ key, issuer: zitadel.url, limits: { timeoutMs: 2000, maxResponseBytes: 1 << 20 } }),
      logger: createLogger('silent'),
    });

  it('exchanges an RS256 assertion (iss = sub = the service user, aud = the issuer, at most 1 h) for a token, and caches it across calls', async () => {
    zitadel.tokenRequests.length = 0;
    zitadel.requests.length = 0;
    const adapter = adapterWith();
    expect(await adapter.listAuthenticationMethods('1001')).toHaveLength(1);
    await adapter.listAuthenticationMethods('1001');
    await adapter.deactivateUser('1001');

    expect(zitadel.tokenRequests).toHaveLength(1);
    const [token] = zitadel.tokenRequests;
    expect(token).toMatchObject({ outcome: 'issued', form: { grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', scope: 'openid urn:zitadel:iam:org:project:id:zitadel:aud' } });
    expect(token!.header).toMatchObject({ alg: 'RS256', kid: KEY_ID });
    const claims = token!.claims!;
    expect(claims).toMatchObject({ iss: SERVICE_USER, sub: SERVICE_USER, aud: zitadel.url });
    expect(claims.exp! - claims.iat!).toBeGreaterThan(0);
    expect(claims.exp! - claims.iat!).toBeLessThanOrEqual(3600);
    // Every API call carried the issued token, never the assertion.
    const apiCalls = zitadel.requests.filter((r) => r.rpc !== undefined);
    expect(apiCalls).toHaveLength(3);
    const bearer = apiCalls[0]!.authorization;
    expect(bearer).toMatch(/^Bearer [A-Za-z0-9_-]{20,}$/);
    for (const call of apiCalls) expect(call.authorization).toBe(bearer);
  });

  it('a token the API no longer accepts is renewed once and the call goes through', async () => {
    const adapter = adapterWith();
    await adapter.listAuthenticationMethods('1001');
    zitadel.tokenRequests.length = 0;
    zitadel.revokeIssuedTokens();
    await adapter.listAuthenticationMethods('1001');
    expect(zitadel.tokenRequests.map((r) => r.outcome)).toEqual(['issued']);
  });

  it('an assertion signed by another key is refused at the token endpoint: 503 IDP_UNAVAILABLE', async () => {
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const adapter = adapterWith(parseServiceAccountKey({ ...keyFile, key: other }));
    zitadel.tokenRequests.length = 0;
    expect((await apiError(adapter.listAuthenticationMethods('1001'))).code).toBe('IDP_UNAVAILABLE');
    expect(zitadel.tokenRequests.map((r) => r.outcome)).toEqual(['refused']);
  });

  it('a failing token endpoint (500) is the provider failing: 503, logged as a warning, not as a misconfiguration', async () => {
    const logs = memory();
    const adapter = createZitadelAccounts({
      apiUrl: zitadel.url,
      credential: jwtProfileCredential({ key: parseServiceAccountKey(keyFile), issuer: zitadel.url, limits: { timeoutMs: 2000, maxResponseBytes: 1 << 20 } }),
      logger: createLogger('debug', logs.stream),
    });
    zitadel.failure = { kind: 'status', status: 500 };
    try {
      expect((await apiError(adapter.listAuthenticationMethods('1001'))).code).toBe('IDP_UNAVAILABLE');
    } finally {
      zitadel.failure = { kind: 'none' };
    }
    expect(logs.lines().map((line) => [line.level, line.reason])).toEqual([[40, 'server_error']]);
    // Once the provider is back, the same adapter works.
    expect(await adapter.listAuthenticationMethods('1001')).toHaveLength(1);
  });

  it('reads IDP_ADMIN_KEY_FILE through the factory, and refuses an application key or a broken file at boot', async () => {
    const file = path.join(folder, 'service-user.json');
    writeFileSync(file, JSON.stringify(keyFile));
    const config = loadConfig({ NODE_ENV: 'test', OIDC_ISSUER: zitadel.url, OIDC_CLIENT_ID: 'gateway', OIDC_CLIENT_SECRET: 's', ENCRYPTION_KEYS: 'k1:' + randomBytes(32).toString('base64'), IDP_ADMIN_KEY_FILE: file });
    const adapter = identityProviderAccountsFromConfig(config, createLogger('silent'));
    expect(await adapter!.listAuthenticationMethods('1001')).toEqual([{ id: 'password', type: 'password', displayName: null, createdAt: null, lastUsedAt: null }]);

    writeFileSync(file, JSON.stringify({ ...keyFile, type: 'application' }));
    expect(() => readServiceAccountKeyFile(file)).toThrow(/IDP_ADMIN_KEY_FILE=.*serviceaccount/);
    writeFileSync(file, '{not json');
    expect(() => readServiceAccountKeyFile(file)).toThrow(/IDP_ADMIN_KEY_FILE=/);
    writeFileSync(file, JSON.stringify({ ...keyFile, key: 'not a key' }));
    expect(() => readServiceAccountKeyFile(file)).toThrow(/not a PEM private key/);
  });

  it('the factory: a PAT selects Zitadel; no admin credentials and no dev IdP selects nothing', async () => {
    const base = { NODE_ENV: 'test', OIDC_ISSUER: zitadel.url, OIDC_CLIENT_ID: 'gateway', OIDC_CLIENT_SECRET: 's', ENCRYPTION_KEYS: 'k1:' + randomBytes(32).toString('base64') };
    expect(identityProviderAccountsFromConfig(loadConfig(base), createLogger('silent'))).toBeNull();
    const withPat = identityProviderAccountsFromConfig(loadConfig({ ...base, IDP_ADMIN_TOKEN: PAT, IDP_ADMIN_API_URL: zitadel.url }), createLogger('silent'));
    // The PAT is not the server's: refused, which is 503.
    expect((await apiError(withPat!.listAuthenticationMethods('1001'))).code).toBe('IDP_UNAVAILABLE');
  });
});
