// The Zitadel adapter of the identity-provider port over real HTTP, against a local server that
// answers as Zitadel's v2 user API does (test/helpers/zitadelServer.ts): paths, bodies, status
// codes, error details, omitted empty lists, int64 strings, and the service user's PAT or
// JWT-profile authentication. Nothing of the adapter is mocked.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { DestinationStream } from 'pino';

import { startZitadelServer, type ZitadelServer, type ZitadelUser } from '../helpers/zitadelServer.ts';
import { createZitadelAccounts } from '../../src/services/identityProvider/zitadel.ts';
import { jwtProfileCredential, parseServiceAccountKey, patCredential, readServiceAccountKeyFile } from '../../src/services/identityProvider/zitadelAuth.ts';
import { identityProviderAccountsFromConfig } from '../../src/services/identityProvider/index.ts';
import type { IdentityProviderAccounts } from '../../src/services/identityProvider/port.ts';
import { ApiError } from '../../src/errors/catalogue.ts';
import { createLogger } from '../../src/logger.ts';
import { loadConfig } from '../../src/config/index.ts';
import { freePort } from '../../src/db/embedded.ts';

const PAT = `pat_${randomBytes(16).toString('hex')}`;
const PAT_WITHOUT_ROLE = `pat_${randomBytes(16).toString('hex')}`;
const CURRENT = 'Curr3nt-secret-pw';
const NEXT = 'N3w-secret-password';

function memory(): { stream: DestinationStream; lines: () => Array<Record<string, unknown>>; text: () => string } {
  const raw: string[] = [];
  return {
    stream: { write: (line: string) => void raw.push(line) },
    lines: () => raw.map((line) => JSON.parse(line) as Record<string, unknown>),
    text: () => raw.join(''),
  };
}

const USERS: ZitadelUser[] = [
  {
    id: '164849494297477377',
    password: CURRENT,
    passkeys: [
      { id: '287341200551998877', name: 'MacBook Touch ID' },
      { id: '287341200551998878', name: 'unfinished', state: 'AUTH_FACTOR_STATE_NOT_READY' },
    ],
    idpLinks: [{ idpId: '2591000000000042', userId: 'g-10987654321', userName: 'minnie@gmail.example' }],
    factors: [{ type: 'otp' }, { type: 'u2f', id: '287341200551990001', name: 'YubiKey 5C' }],
    recoveryCodes: true,
  },
  { id: '164849494297400001', password: CURRENT },
  { id: '164849494297400002' }, // no method at all
  { id: '164849494297400003', password: CURRENT, state: 'USER_STATE_INACTIVE' },
  { id: '164849494297400004', password: CURRENT, state: 'USER_STATE_INITIAL' },
  { id: '164849494297400005', password: CURRENT },
  { id: '164849494297400006', password: CURRENT },
];

/** The ApiError a promise rejects with. */
async function apiError(promise: Promise<unknown>): Promise<ApiError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected an ApiError');
}

describe('Zitadel adapter (v2 user API)', () => {
  let zitadel: ZitadelServer;
  let logs: ReturnType<typeof memory>;
  let accounts: IdentityProviderAccounts;

  beforeAll(async () => {
    zitadel = await startZitadelServer({ users: USERS, pats: [PAT], patsWithoutRole: [PAT_WITHOUT_ROLE] });
  });
  afterAll(async () => {
    await zitadel?.close();
  });
  const fresh = (options: { pat?: string; apiUrl?: string; timeoutMs?: number } = {}) => {
    logs = memory();
    accounts = createZitadelAccounts({
      apiUrl: options.apiUrl ?? zitadel.url,
      credential: patCredential(options.pat ?? PAT),
      logger: createLogger('debug', logs.stream),
      limits: { timeoutMs: options.timeoutMs ?? 2000 },
    });
    zitadel.requests.length = 0;
    return accounts;
  };
  afterEach(() => {
    zitadel.failure = { kind: 'none' };
    // Whatever happened, the logs never carry a password or the admin token.
    for (const secret of [CURRENT, NEXT, PAT, PAT_WITHOUT_ROLE]) expect(logs?.text() ?? '').not.toContain(secret);
  });

  describe('listAuthenticationMethods', () => {
    it('lists the password, ready passkeys, TOTP, a U2F key (as a passkey) and IdP links; never recovery codes or secrets', async () => {
      const methods = await fresh().listAuthenticationMethods('164849494297477377');
      expect(methods).toEqual([
        { id: 'password', type: 'password', displayName: null, createdAt: null, lastUsedAt: null },
        { id: '287341200551998877', type: 'passkey', displayName: 'MacBook Touch ID', createdAt: null, lastUsedAt: null },
        { id: 'totp', type: 'totp', displayName: null, createdAt: null, lastUsedAt: null },
        { id: '287341200551990001', type: 'passkey', displayName: 'YubiKey 5C', createdAt: null, lastUsedAt: null },
        { id: '2591000000000042:g-10987654321', type: 'idp_link', displayName: 'minnie@gmail.example', createdAt: null, lastUsedAt: null },
      ]);
      // The calls Zitadel's API publishes, with the service user's token.
      expect(zitadel.requests.map((r) => `${r.method} ${r.path}`).sort()).toEqual([
        'GET /v2/users/164849494297477377/authentication_methods',
        'POST /v2/users/164849494297477377/authentication_factors/_search',
        'POST /v2/users/164849494297477377/links/_search',
        'POST /v2/users/164849494297477377/passkeys/_search',
      ]);
      for (const request of zitadel.requests) expect(request.authorization).toBe(`Bearer ${PAT}`);
      expect(zitadel.requests.find((r) => r.path.endsWith('/links/_search'))?.body).toEqual({ query: { limit: 100 } });
    });

    it('a password-only user: one call per method kind the user has, nothing more', async () => {
      expect(await fresh().listAuthenticationMethods('164849494297400001')).toEqual([
        { id: 'password', type: 'password', displayName: null, createdAt: null, lastUsedAt: null },
      ]);
      expect(zitadel.requests.map((r) => r.path)).toEqual(['/v2/users/164849494297400001/authentication_methods']);
    });

    it('a user without methods (Zitadel omits the empty list: `{"details":{…}}`) has none', async () => {
      expect(await fresh().listAuthenticationMethods('164849494297400002')).toEqual([]);
    });

    it('an unknown user is 404 NOT_FOUND', async () => {
      expect((await apiError(fresh().listAuthenticationMethods('999'))).code).toBe('NOT_FOUND');
    });
  });

  describe('changePassword', () => {
    it('sends newPassword.password, changeRequired false and currentPassword; the next change needs the new one', async () => {
      const adapter = fresh();
      await adapter.changePassword('164849494297400005', { currentPassword: CURRENT, newPassword: NEXT });
      const request = zitadel.requests.at(-1)!;
      expect(`${request.method} ${request.path}`).toBe('POST /v2/users/164849494297400005/password');
      expect(request.contentType).toMatch(/^application\/json/);
      expect(request.body).toEqual({ newPassword: { password: NEXT, changeRequired: false }, currentPassword: CURRENT });
      expect(zitadel.users.get('164849494297400005')?.password).toBe(NEXT);
      expect((await apiError(adapter.changePassword('164849494297400005', { currentPassword: CURRENT, newPassword: 'An0ther-password' }))).code).toBe('FORBIDDEN');
    });

    it('a wrong current password (400 COMMAND-3M0fs) is 403 FORBIDDEN', async () => {
      const error = await apiError(fresh().changePassword('164849494297400001', { currentPassword: 'not-it-at-all', newPassword: NEXT }));
      expect(error).toMatchObject({ code: 'FORBIDDEN', status: 403 });
      expect(error.detail).not.toContain('not-it-at-all');
    });

    it.each([
      ['too short (DOMAIN-HuJf6)', 'Sh0rt', 'Password is too short'],
      ['no number (DOMAIN-ZBv4H)', 'no-digits-in-here', 'Password must contain number'],
      ['same as the current one (COMMAND-Aesh5)', CURRENT, 'New password cannot be the same as your current password'],
    ])('a policy refusal, %s, is 400 VALIDATION_FAILED at /body/newPassword with the provider message', async (_case, newPassword, message) => {
      const error = await apiError(fresh().changePassword('164849494297400001', { currentPassword: CURRENT, newPassword }));
      expect(error).toMatchObject({ code: 'VALIDATION_FAILED', status: 400 });
      expect(error.errors).toEqual([{ pointer: '/body/newPassword', message }]);
    });

    it('a new password beyond Zitadel\'s 200 characters is refused at /body/newPassword without a call', async () => {
      const error = await apiError(fresh().changePassword('164849494297400001', { currentPassword: CURRENT, newPassword: `1${'x'.repeat(200)}` }));
      expect(error.errors?.[0]?.pointer).toBe('/body/newPassword');
      expect(zitadel.requests).toEqual([]);
    });

    it('a user not yet initialised (COMMAND-M9dse) or without a password (COMMAND-Fds3s) is 403; an unknown one 404', async () => {
      const adapter = fresh();
      expect((await apiError(adapter.changePassword('164849494297400004', { currentPassword: CURRENT, newPassword: NEXT }))).code).toBe('FORBIDDEN');
      expect((await apiError(adapter.changePassword('164849494297400002', { currentPassword: CURRENT, newPassword: NEXT }))).code).toBe('FORBIDDEN');
      expect((await apiError(adapter.changePassword('999', { currentPassword: CURRENT, newPassword: NEXT }))).code).toBe('NOT_FOUND');
    });
  });

  describe('deactivateUser and deleteUser', () => {
    it('deactivates, and again ("User already inactive", COMMAND-5gunjw0cd7) is fine', async () => {
      const adapter = fresh();
      await adapter.deactivateUser('164849494297400006');
      expect(zitadel.users.get('164849494297400006')?.state).toBe('USER_STATE_INACTIVE');
      await adapter.deactivateUser('164849494297400006');
      await adapter.deactivateUser('164849494297400003');
      expect(zitadel.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
        'POST /v2/users/164849494297400006/deactivate',
        'POST /v2/users/164849494297400006/deactivate',
        'POST /v2/users/164849494297400003/deactivate',
      ]);
      expect(zitadel.requests[0]?.body).toEqual({});
    });

    it('an unknown user (404 COMMAND-5gp2p62iin) is fine', async () => {
      await fresh().deactivateUser('999');
    });

    it('a user in state initial cannot be deactivated at Zitadel: it is deleted instead', async () => {
      await fresh().deactivateUser('164849494297400004');
      expect(zitadel.users.has('164849494297400004')).toBe(false);
      expect(zitadel.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
        'POST /v2/users/164849494297400004/deactivate',
        'DELETE /v2/users/164849494297400004',
      ]);
    });

    it('deletes, and deleting again or an unknown user (404) is fine', async () => {
      const adapter = fresh();
      await adapter.deleteUser('164849494297400003');
      expect(zitadel.users.has('164849494297400003')).toBe(false);
      await adapter.deleteUser('164849494297400003');
      await adapter.deleteUser('999');
    });
  });

  describe('failures of the provider are 503 IDP_UNAVAILABLE', () => {
    it('down (a closed port)', async () => {
      const port = await freePort();
      const adapter = fresh({ apiUrl: `http://127.0.0.1:${port}` });
      expect((await apiError(adapter.listAuthenticationMethods('1'))).code).toBe('IDP_UNAVAILABLE');
      expect((await apiError(adapter.changePassword('1', { currentPassword: CURRENT, newPassword: NEXT }))).code).toBe('IDP_UNAVAILABLE');
      expect((await apiError(adapter.deactivateUser('1'))).code).toBe('IDP_UNAVAILABLE');
      expect(logs.lines().some((line) => line.level === 40 && line.reason === 'network' && line.systemCode === 'ECONNREFUSED')).toBe(true);
    });

    it('slow: answered within the timeout', async () => {
      const adapter = fresh({ timeoutMs: 300 });
      zitadel.failure = { kind: 'slow', delayMs: 3000 };
      const started = Date.now();
      const error = await apiError(adapter.changePassword('164849494297400001', { currentPassword: CURRENT, newPassword: NEXT }));
      expect(error.code).toBe('IDP_UNAVAILABLE');
      expect(Date.now() - started).toBeLessThan(1500);
      expect(logs.lines().some((line) => line.reason === 'timeout')).toBe(true);
    });

    it('an answer larger than the limit is abandoned', async () => {
      logs = memory();
      const adapter = createZitadelAccounts({ apiUrl: zitadel.url, credential: patCredential(PAT), logger: createLogger('debug', logs.stream), limits: { maxResponseBytes: 4096 } });
      zitadel.failure = { kind: 'huge', bytes: 64 * 1024 };
      expect((await apiError(adapter.listAuthenticationMethods('164849494297400001'))).code).toBe('IDP_UNAVAILABLE');
      expect(logs.lines().some((line) => line.reason === 'too_large')).toBe(true);
    });

    it.each([500, 503, 429] as const)('HTTP %i', async (status) => {
      const adapter = fresh();
      zitadel.failure = { kind: 'status', status };
      expect((await apiError(adapter.listAuthenticationMethods('164849494297400001'))).code).toBe('IDP_UNAVAILABLE');
      expect((await apiError(adapter.deleteUser('164849494297400001'))).code).toBe('IDP_UNAVAILABLE');
    });

    it('a bad admin token (401) is the gateway\'s misconfiguration: 503 and an error log, never the user\'s fault', async () => {
      const adapter = fresh({ pat: 'not-a-token' });
      const error = await apiError(adapter.changePassword('164849494297400001', { currentPassword: CURRENT, newPassword: NEXT }));
      expect(error).toMatchObject({ code: 'IDP_UNAVAILABLE', status: 503 });
      const line = logs.lines().find((entry) => entry.level === 50);
      expect(line).toMatchObject({ status: 401, errorId: 'AUTH-7fs1e', operation: 'changePassword' });
      expect(String(line?.msg)).toMatch(/IDP_ADMIN_TOKEN.*ORG_USER_MANAGER/);
    });

    it('a service user without the role (403 AUTH-AWfge) is 503 too', async () => {
      const adapter = fresh({ pat: PAT_WITHOUT_ROLE });
      expect((await apiError(adapter.deactivateUser('164849494297400001'))).code).toBe('IDP_UNAVAILABLE');
      expect(logs.lines().find((entry) => entry.level === 50)).toMatchObject({ status: 403, errorId: 'AUTH-AWfge' });
    });

    it('an API URL where Zitadel is not (404 with no error id) is 503, and says so in the log', async () => {
      const adapter = fresh({ apiUrl: `${zitadel.url}/not-zitadel` });
      expect((await apiError(adapter.deactivateUser('164849494297400001'))).code).toBe('IDP_UNAVAILABLE');
      expect(String(logs.lines().find((entry) => entry.level === 50)?.msg)).toMatch(/IDP_ADMIN_API_URL/);
    });
  });
});

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
    const apiCalls = zitadel.requests.filter((r) => r.path.startsWith('/v2/'));
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
