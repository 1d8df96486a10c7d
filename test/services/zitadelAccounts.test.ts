// The Zitadel adapter of the identity-provider port over real HTTP, against a local server built on
// Zitadel's own service definitions and served with the Connect protocol (test/helpers/
// zitadelServer.ts): the RPCs and their decoded requests, the definitions' validate rules, error
// codes and details, and the service user's personal access token (the JWT-profile key file:
// zitadelKeyFile.test.ts). Nothing of the adapter is mocked.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { Code, ConnectError } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-node';
import { createUserServiceClient } from '@zitadel/client/v2';

import { startZitadelServer, type ZitadelServer, type ZitadelUser } from '../helpers/zitadelServer.ts';
import { apiError, memory } from '../helpers/logCapture.ts';
import { createZitadelAccounts } from '../../src/services/identityProvider/zitadel.ts';
import { patCredential } from '../../src/services/identityProvider/zitadelAuth.ts';
import type { IdentityProviderAccounts } from '../../src/services/identityProvider/port.ts';
import { createLogger } from '../../src/logger.ts';
import { freePort } from '../../src/db/embedded.ts';

const PAT = `pat_${randomBytes(16).toString('hex')}`;
const PAT_WITHOUT_ROLE = `pat_${randomBytes(16).toString('hex')}`;
const CURRENT = 'Curr3nt-secret-pw';
const NEXT = 'N3w-secret-password';

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
      // The RPCs of Zitadel's user service, with the service user's token.
      expect(zitadel.requests.map((r) => `${r.rpc} ${r.message?.userId}`).sort()).toEqual([
        'ListAuthenticationFactors 164849494297477377',
        'ListAuthenticationMethodTypes 164849494297477377',
        'ListIDPLinks 164849494297477377',
        'ListPasskeys 164849494297477377',
      ]);
      for (const request of zitadel.requests) {
        expect(request.authorization).toBe(`Bearer ${PAT}`);
        // Zitadel's client on the Connect protocol: POST {api}/zitadel.user.v2.UserService/{RPC},
        // binary protobuf, the deadline sent along; nothing the definitions' rules refuse.
        expect(request).toMatchObject({ method: 'POST', path: `/zitadel.user.v2.UserService/${request.rpc}`, contentType: 'application/proto', connectProtocolVersion: '1', connectTimeoutMs: '2000', invalid: undefined });
      }
      expect(zitadel.requests.find((r) => r.rpc === 'ListIDPLinks')?.message).toEqual({ userId: '164849494297477377', query: { offset: '0', limit: 100, asc: false } });
      expect(zitadel.requests.find((r) => r.rpc === 'ListAuthenticationFactors')?.message).toEqual({ userId: '164849494297477377', authFactors: [], states: [] });
    });

    it('a password-only user: one call per method kind the user has, nothing more', async () => {
      expect(await fresh().listAuthenticationMethods('164849494297400001')).toEqual([
        { id: 'password', type: 'password', displayName: null, createdAt: null, lastUsedAt: null },
      ]);
      expect(zitadel.requests.map((r) => `${r.rpc} ${r.message?.userId}`)).toEqual(['ListAuthenticationMethodTypes 164849494297400001']);
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
      expect(`${request.method} ${request.path}`).toBe('POST /zitadel.user.v2.UserService/SetPassword');
      expect(request.contentType).toBe('application/proto');
      expect(request.message).toEqual({ userId: '164849494297400005', newPassword: { password: NEXT, changeRequired: false }, currentPassword: CURRENT });
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

    it('a wrong current password reported with a CredentialsCheckError detail (Zitadel\'s detail for failed credential checks) is 403 too', async () => {
      zitadel.wrongPasswordAsCredentialsCheck = true;
      try {
        expect((await apiError(fresh().changePassword('164849494297400001', { currentPassword: 'not-it-at-all', newPassword: NEXT }))).code).toBe('FORBIDDEN');
      } finally {
        zitadel.wrongPasswordAsCredentialsCheck = false;
      }
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
      expect(zitadel.requests.map((r) => `${r.rpc} ${r.message?.userId}`)).toEqual([
        'DeactivateUser 164849494297400006',
        'DeactivateUser 164849494297400006',
        'DeactivateUser 164849494297400003',
      ]);
      expect(zitadel.requests[0]?.message).toEqual({ userId: '164849494297400006' });
    });

    it('an unknown user (404 COMMAND-5gp2p62iin) is fine', async () => {
      await fresh().deactivateUser('999');
    });

    it('a user in state initial cannot be deactivated at Zitadel: it is deleted instead', async () => {
      await fresh().deactivateUser('164849494297400004');
      expect(zitadel.users.has('164849494297400004')).toBe(false);
      expect(zitadel.requests.map((r) => `${r.rpc} ${r.message?.userId}`)).toEqual([
        'DeactivateUser 164849494297400004',
        'DeleteUser 164849494297400004',
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

    it('a compressed answer that inflates beyond the limit is abandoned too', async () => {
      logs = memory();
      const adapter = createZitadelAccounts({ apiUrl: zitadel.url, credential: patCredential(PAT), logger: createLogger('debug', logs.stream), limits: { maxResponseBytes: 4096 } });
      zitadel.failure = { kind: 'gzip', bytes: 1 << 20 };
      expect((await apiError(adapter.listAuthenticationMethods('164849494297400001'))).code).toBe('IDP_UNAVAILABLE');
      expect(logs.lines().map((line) => [line.level, line.reason])).toEqual([[40, 'too_large']]);
    });

    it.each([500, 503, 429] as const)('Zitadel failing (INTERNAL, UNAVAILABLE, RESOURCE_EXHAUSTED: HTTP %i)', async (status) => {
      const adapter = fresh();
      zitadel.failure = { kind: 'status', status };
      expect((await apiError(adapter.listAuthenticationMethods('164849494297400001'))).code).toBe('IDP_UNAVAILABLE');
      expect((await apiError(adapter.deleteUser('164849494297400001'))).code).toBe('IDP_UNAVAILABLE');
      // Warnings naming Zitadel's code: its RESOURCE_EXHAUSTED (quota) is not the gateway's own size limit.
      const code = { 500: 'Internal', 503: 'Unavailable', 429: 'ResourceExhausted' }[status];
      expect(logs.lines().map((line) => [line.level, line.code, line.reason])).toEqual([[40, code, undefined], [40, code, undefined]]);
      expect(zitadel.users.has('164849494297400001')).toBe(true);
    });

    it('a bad admin token (401) is the gateway\'s misconfiguration: 503 and an error log, never the user\'s fault', async () => {
      const adapter = fresh({ pat: 'not-a-token' });
      const error = await apiError(adapter.changePassword('164849494297400001', { currentPassword: CURRENT, newPassword: NEXT }));
      expect(error).toMatchObject({ code: 'IDP_UNAVAILABLE', status: 503 });
      const line = logs.lines().find((entry) => entry.level === 50);
      expect(line).toMatchObject({ code: 'Unauthenticated', errorId: 'AUTH-7fs1e', operation: 'changePassword' });
      expect(String(line?.msg)).toMatch(/IDP_ADMIN_TOKEN.*ORG_USER_MANAGER/);
    });

    it('a service user without the role (403 AUTH-AWfge) is 503 too', async () => {
      const adapter = fresh({ pat: PAT_WITHOUT_ROLE });
      expect((await apiError(adapter.deactivateUser('164849494297400001'))).code).toBe('IDP_UNAVAILABLE');
      expect(logs.lines().find((entry) => entry.level === 50)).toMatchObject({ code: 'PermissionDenied', errorId: 'AUTH-AWfge' });
    });

    it('an API URL where Zitadel is not (404 with no error id) is 503, and says so in the log', async () => {
      const adapter = fresh({ apiUrl: `${zitadel.url}/not-zitadel` });
      expect((await apiError(adapter.deactivateUser('164849494297400001'))).code).toBe('IDP_UNAVAILABLE');
      expect(String(logs.lines().find((entry) => entry.level === 50)?.msg)).toMatch(/IDP_ADMIN_API_URL/);
    });

    it('a proxy\'s HTML error page (502) is the provider failing: 503 and a warning', async () => {
      const adapter = fresh();
      zitadel.failure = { kind: 'html', status: 502 };
      expect((await apiError(adapter.deleteUser('164849494297400001'))).code).toBe('IDP_UNAVAILABLE');
      expect(logs.lines().map((line) => [line.level, line.code])).toEqual([[40, 'Unavailable']]);
      expect(zitadel.users.has('164849494297400001')).toBe(true);
    });
  });

  describe('a request Zitadel\'s definitions refuse is refused here too', () => {
    it('the fake applies the validate rules of @zitadel/proto: INVALID_ARGUMENT without a detail, nothing done', async () => {
      const client = createUserServiceClient(createConnectTransport({ baseUrl: zitadel.url, httpVersion: '1.1' }));
      const headers = { Authorization: `Bearer ${PAT}` };
      const refused = async (call: Promise<unknown>) => {
        const error = await call.then(() => undefined, (e: unknown) => e);
        expect(error).toBeInstanceOf(ConnectError);
        expect((error as ConnectError).code).toBe(Code.InvalidArgument);
        expect((error as ConnectError).details).toEqual([]);
        return zitadel.requests.at(-1)!.invalid;
      };
      zitadel.requests.length = 0;
      // SetPasswordRequest: user_id 1..200 characters; current_password 1..200; verification_code 1..20.
      expect(await refused(client.setPassword({ userId: '', newPassword: { password: NEXT }, verification: { case: 'currentPassword', value: CURRENT } }, { headers }))).toMatch(/SetPasswordRequest\.user_id: value length must be between 1 and 200 runes/);
      expect(await refused(client.setPassword({ userId: '164849494297400001', newPassword: { password: 'é'.repeat(201) }, verification: { case: 'currentPassword', value: CURRENT } }, { headers }))).toMatch(/Password\.password/);
      expect(await refused(client.setPassword({ userId: '164849494297400001', newPassword: { password: NEXT }, verification: { case: 'verificationCode', value: 'x'.repeat(21) } }, { headers }))).toMatch(/verification_code/);
      expect(await refused(client.deactivateUser({ userId: '1'.repeat(201) }, { headers }))).toMatch(/DeactivateUserRequest\.user_id/);
      // Characters, not bytes: 200 two-byte characters pass the rule (and reach the handler).
      await client.setPassword({ userId: '164849494297400001', newPassword: { password: 'é'.repeat(200) }, verification: { case: 'currentPassword', value: 'wrong' } }, { headers }).catch((e: unknown) => e);
      expect(zitadel.requests.at(-1)).toMatchObject({ rpc: 'SetPassword', invalid: undefined });
      expect(zitadel.users.get('164849494297400001')?.password).toBe(CURRENT);
    });

    it('the adapter, sending one (an empty user id), gets 503 and an error log, never a user\'s error', async () => {
      const error = await apiError(fresh().listAuthenticationMethods(''));
      expect(error.code).toBe('IDP_UNAVAILABLE');
      expect(zitadel.requests.at(-1)?.invalid).toMatch(/user_id/);
      const line = logs.lines().find((entry) => entry.level === 50);
      expect(line).toMatchObject({ operation: 'listAuthenticationMethods', code: 'InvalidArgument' });
      expect(line).not.toHaveProperty('errorId');
    });
  });
});
