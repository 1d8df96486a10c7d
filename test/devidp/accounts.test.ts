// The dev identity provider's accounts (src/devidp/accounts.ts) and the gateway's development
// adapter on top of them: passwords as scrypt hashes, the users file (atomic, read back at start,
// hashes only), deactivation and deletion, and the problems the adapter answers with.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { DevIdpAccountStore, hashPassword, verifyPassword } from '../../src/devidp/accounts.ts';
import { DEV_USERS, startDevIdp } from '../../src/devidp/index.ts';
import { createDevIdpAccounts } from '../../src/services/identityProvider/devIdp.ts';
import { ApiError } from '../../src/errors/catalogue.ts';
import { createLogger } from '../../src/logger.ts';

const ALICE = 'dev-user-alice';
const ADMIN = 'dev-user-admin';

async function apiError(promise: Promise<unknown>): Promise<ApiError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected an ApiError');
}

describe('dev IdP accounts', () => {
  let folder: string;
  let counter = 0;
  const file = () => path.join(folder, `users-${++counter}.json`);

  beforeAll(() => {
    folder = mkdtempSync(path.join(tmpdir(), 'dev-idp-accounts-'));
  });
  afterAll(() => {
    rmSync(folder, { recursive: true, force: true });
  });

  it('hashes with scrypt, a fresh salt each time, and verifies only the right password', async () => {
    const one = await hashPassword('s3cret-password');
    const two = await hashPassword('s3cret-password');
    expect(one).toMatch(/^scrypt\$16384\$8\$1\$[\w-]{22}\$[\w-]{43}$/);
    expect(one).not.toBe(two);
    expect(await verifyPassword(one, 's3cret-password')).toBe(true);
    expect(await verifyPassword(one, 's3cret-passwore')).toBe(false);
    expect(await verifyPassword('plain', 'plain')).toBe(false);
  });

  it('without a users file: seeded users, in memory; nothing is written', async () => {
    const store = await DevIdpAccountStore.open({ seeds: DEV_USERS, usersFile: null });
    expect((await store.signIn('alice', 'alice-password')).status).toBe('ok');
    expect(await store.changePassword(ALICE, 'alice-password', 'Brand-new-pass-1')).toEqual({ status: 'changed' });
    expect((await store.signIn('alice', 'alice-password')).status).toBe('invalid');
    expect((await store.signIn('alice', 'Brand-new-pass-1')).status).toBe('ok');
    expect(store.seedHints()).toEqual([{ username: 'admin', password: 'admin-password' }]);
  });

  it('the file is absent until the first change, then written atomically (0600, no temporary left) with hashes only', async () => {
    const usersFile = file();
    const store = await DevIdpAccountStore.open({ seeds: DEV_USERS, usersFile });
    expect(() => statSync(usersFile)).toThrow();
    await store.changePassword(ALICE, 'alice-password', 'Brand-new-pass-1');
    const text = readFileSync(usersFile, 'utf8');
    expect(statSync(usersFile).mode & 0o777).toBe(0o600);
    expect(readdirSync(folder).filter((name) => name.endsWith('.tmp'))).toEqual([]);
    for (const password of ['alice-password', 'admin-password', 'Brand-new-pass-1']) expect(text).not.toContain(password);
    const users = JSON.parse(text).users as Array<{ sub: string; passwordIsSeed: boolean }>;
    expect(users.map((u) => [u.sub, u.passwordIsSeed])).toEqual([[ALICE, false], [ADMIN, true]]);

    // Read back: the changed password, the seed one of admin (still hinted), and seeds added later.
    const later = [...DEV_USERS, { ...DEV_USERS[0]!, sub: 'dev-user-new', username: 'newbie', password: 'newbie-password' }];
    const reopened = await DevIdpAccountStore.open({ seeds: later, usersFile });
    expect((await reopened.signIn('alice', 'Brand-new-pass-1')).status).toBe('ok');
    expect((await reopened.signIn('alice', 'alice-password')).status).toBe('invalid');
    expect((await reopened.signIn('admin', 'admin-password')).status).toBe('ok');
    expect((await reopened.signIn('newbie', 'newbie-password')).status).toBe('ok');
    expect(reopened.seedHints().map((hint) => hint.username).sort()).toEqual(['admin', 'newbie']);
  });

  it('parallel changes are written one after the other: the file ends with the last state', async () => {
    const usersFile = file();
    const store = await DevIdpAccountStore.open({ seeds: DEV_USERS, usersFile });
    const outcomes = await Promise.all([
      store.signIn('admin', 'admin-password'),
      store.changePassword(ALICE, 'alice-password', 'First-next-pass-1'),
      store.changePassword(ADMIN, 'admin-password', 'Second-next-pass-2'),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['ok', 'changed', 'changed']);
    const reopened = await DevIdpAccountStore.open({ seeds: DEV_USERS, usersFile });
    expect((await reopened.signIn('alice', 'First-next-pass-1')).status).toBe('ok');
    expect((await reopened.signIn('admin', 'Second-next-pass-2')).status).toBe('ok');
  });

  it('deactivated users are refused (after a right password), deleted ones unknown; both survive a restart and are idempotent', async () => {
    const usersFile = file();
    const store = await DevIdpAccountStore.open({ seeds: DEV_USERS, usersFile });
    await store.deactivate(ALICE);
    await store.deactivate(ALICE);
    await store.delete(ADMIN);
    await store.delete(ADMIN);
    await store.deactivate('nobody');
    await store.delete('nobody');
    const reopened = await DevIdpAccountStore.open({ seeds: DEV_USERS, usersFile });
    expect(await reopened.signIn('alice', 'alice-password')).toEqual({ status: 'inactive' });
    expect(await reopened.signIn('alice', 'wrong-password')).toEqual({ status: 'invalid' });
    expect(await reopened.signIn('admin', 'admin-password')).toEqual({ status: 'invalid' }); // not seeded again
    expect(reopened.activeProfile(ALICE)).toBeUndefined();
    expect(await reopened.changePassword(ALICE, 'alice-password', 'Whatever-pass-1')).toEqual({ status: 'inactive' });
    expect(await reopened.changePassword(ADMIN, 'admin-password', 'Whatever-pass-1')).toEqual({ status: 'unknown_user' });
    expect(await reopened.listMethods(ADMIN)).toBeNull();
    expect(reopened.seedHints()).toEqual([]);
  });

  it('a broken users file stops the start and is left as it was', async () => {
    const usersFile = file();
    writeFileSync(usersFile, '{"version":1,"users":[{"sub":"x"}]}');
    await expect(DevIdpAccountStore.open({ seeds: DEV_USERS, usersFile })).rejects.toThrow(/users file .* is not valid \(users\[0\]\.username/);
    writeFileSync(usersFile, 'not json');
    await expect(startDevIdp({ port: 0, clients: [{ clientId: 'c', clientSecret: 's', redirectUris: ['http://127.0.0.1:9/cb'] }], usersFile })).rejects.toThrow(/not valid JSON/);
    expect(readFileSync(usersFile, 'utf8')).toBe('not json');
  });

  describe('the gateway\'s development adapter', () => {
    it('lists the password with when it was set and last used; maps the outcomes to problems', async () => {
      const store = await DevIdpAccountStore.open({ seeds: DEV_USERS, usersFile: null });
      const adapter = createDevIdpAccounts(store, createLogger('silent'));
      await store.signIn('alice', 'alice-password');
      const [password] = await adapter.listAuthenticationMethods(ALICE);
      expect(password).toEqual({ id: 'password', type: 'password', displayName: null, createdAt: expect.any(String), lastUsedAt: expect.any(String) });

      expect((await apiError(adapter.changePassword(ALICE, { currentPassword: 'wrong-password', newPassword: 'Good-new-pass-1' }))).code).toBe('FORBIDDEN');
      const policy = await apiError(adapter.changePassword(ALICE, { currentPassword: 'alice-password', newPassword: 'short' }));
      expect(policy).toMatchObject({ code: 'VALIDATION_FAILED', errors: [{ pointer: '/body/newPassword', message: 'Password is too short: use at least 8 characters.' }] });
      await adapter.changePassword(ALICE, { currentPassword: 'alice-password', newPassword: 'Good-new-pass-1' });
      expect((await apiError(adapter.listAuthenticationMethods('nobody'))).code).toBe('NOT_FOUND');

      await adapter.deactivateUser(ALICE);
      expect((await apiError(adapter.changePassword(ALICE, { currentPassword: 'Good-new-pass-1', newPassword: 'Other-new-pass-1' }))).code).toBe('FORBIDDEN');
      await adapter.deleteUser(ALICE);
      await adapter.deleteUser(ALICE);
      expect((await apiError(adapter.listAuthenticationMethods(ALICE))).code).toBe('NOT_FOUND');
    });

    it('a users file that cannot be written is 503 IDP_UNAVAILABLE', async () => {
      const usersFile = path.join(folder, 'not-a-folder', 'users.json');
      const store = await DevIdpAccountStore.open({ seeds: DEV_USERS, usersFile });
      writeFileSync(path.join(folder, 'not-a-folder'), 'a plain file where the folder should be');
      const adapter = createDevIdpAccounts(store, createLogger('silent'));
      expect((await apiError(adapter.deactivateUser(ADMIN))).code).toBe('IDP_UNAVAILABLE');
    });
  });
});
