// A password change through the development identity provider, for real: sign in through the dev
// IdP's login page, list the methods, change the password through the gateway, then sign in again
// with the new password (works) and the old one (refused), also after the dev IdP restarts from
// its users file.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { startHarness, addPlatform, browserLogin, startUrl, type Harness, type TestPlatform } from '../helpers/flowHarness.ts';
import { OidcBrowser } from '../helpers/oidcBrowser.ts';
import { createDevIdpAccounts } from '../../src/services/identityProvider/devIdp.ts';
import { createLogger } from '../../src/logger.ts';

const ALICE = { username: 'alice', password: 'alice-password' };
const NEW_PASSWORD = 'Correct-Horse-Battery-7';
const ACCOUNT_CENTER = 'http://account.test';

/** The dev IdP's answer to a sign-in attempt from a fresh browser: the login page again (refused) or a redirect on. */
async function attemptLogin(harness: Harness, platformKey: string, user: { username: string; password: string }, browser = new OidcBrowser()) {
  const start = await browser.get(startUrl(harness, platformKey));
  const toLoginPage = await browser.followRedirects(start, { maxHops: 10 });
  return browser.loginAtDevIdp(toLoginPage.response, user.username, user.password);
}

describe('password change through the dev identity provider', () => {
  let folder: string;
  let usersFile: string;
  let harness: Harness;
  let platform: TestPlatform;

  const startGateway = () =>
    startHarness({}, { usersFile }, { idpAccounts: (idp) => createDevIdpAccounts(idp.accounts, createLogger('silent')) });

  beforeAll(async () => {
    folder = mkdtempSync(path.join(tmpdir(), 'dev-idp-users-'));
    usersFile = path.join(folder, 'dev-idp-users.json');
    harness = await startGateway();
    platform = await addPlatform(harness);
  });
  afterAll(async () => {
    await harness?.close();
    rmSync(folder, { recursive: true, force: true });
  });

  const sessionCookie = (browser: OidcBrowser) => `gw_session=${browser.cookiesFor(`${harness.baseUrl}/`).gw_session}`;

  it('lists the password, changes it (204), and the next login must use the new one', async () => {
    const login = await browserLogin(harness, platform.key, ALICE);
    const cookie = sessionCookie(login.browser);

    const methods = await request(harness.gateway.app).get('/v1/account/authentication-methods').set('Cookie', cookie).expect(200);
    expect(methods.body.items).toEqual([
      { id: 'password', type: 'password', displayName: null, createdAt: expect.any(String), lastUsedAt: expect.any(String) },
    ]);
    expect(Date.now() - Date.parse(methods.body.items[0].lastUsedAt)).toBeLessThan(60_000); // the sign-in just now

    const change = (body: object) =>
      request(harness.gateway.app).post('/v1/account/password').set('Cookie', cookie).set('Origin', ACCOUNT_CENTER).send(body);
    const wrong = await change({ currentPassword: 'not-alice-password', newPassword: NEW_PASSWORD });
    expect(wrong.status).toBe(403);
    expect(wrong.body.code).toBe('FORBIDDEN');
    const same = await change({ currentPassword: ALICE.password, newPassword: ALICE.password });
    expect(same.status).toBe(400);
    expect(same.body.errors).toEqual([{ pointer: '/body/newPassword', reason: 'INVALID', message: 'New password cannot be the same as your current password.' }]);
    const policy = await change({ currentPassword: ALICE.password, newPassword: 'my-alice-2024' });
    expect(policy.body.errors).toEqual([{ pointer: '/body/newPassword', reason: 'INVALID', message: 'Password must not contain the username.' }]);
    await change({ currentPassword: ALICE.password, newPassword: NEW_PASSWORD }).expect(204);

    const after = await request(harness.gateway.app).get('/v1/account/authentication-methods').set('Cookie', cookie).expect(200);
    expect(Date.parse(after.body.items[0].createdAt)).toBeGreaterThan(Date.parse(methods.body.items[0].createdAt) - 1);

    // A fresh browser (no IdP session): the new password signs in, the old one is refused.
    const again = await browserLogin(harness, platform.key, { username: 'alice', password: NEW_PASSWORD });
    expect(again.location.href).toMatch(/code=handoff_/);
    const refused = await attemptLogin(harness, platform.key, ALICE);
    expect(refused.status).toBe(200);
    expect(refused.text).toContain('Invalid username or password.');
    // The login page no longer offers alice's published password; admin's still works.
    expect(refused.text).not.toContain('alice-password');
    expect(refused.text).toContain('admin-password');
  });

  it('keeps only an scrypt hash in the users file, never a password', () => {
    const text = readFileSync(usersFile, 'utf8');
    const file = JSON.parse(text) as { version: number; users: Array<{ username: string; passwordHash: string; state: string; passwordIsSeed: boolean }> };
    expect(file.version).toBe(1);
    const alice = file.users.find((user) => user.username === 'alice');
    expect(alice).toMatchObject({ state: 'active', passwordIsSeed: false, passwordHash: expect.stringMatching(/^scrypt\$16384\$8\$1\$[\w-]+\$[\w-]+$/) });
    expect(text).not.toContain(NEW_PASSWORD);
    expect(text).not.toContain('alice-password');
    expect(text).not.toContain('admin-password');
  });

  it('after a restart of the dev IdP from the same file: the new password works, the old one is refused', async () => {
    await harness.close();
    harness = await startGateway();
    platform = await addPlatform(harness);

    const refused = await attemptLogin(harness, platform.key, ALICE);
    expect(refused.text).toContain('Invalid username or password.');
    const login = await browserLogin(harness, platform.key, { username: 'alice', password: NEW_PASSWORD });
    const methods = await request(harness.gateway.app).get('/v1/account/authentication-methods').set('Cookie', sessionCookie(login.browser)).expect(200);
    expect(methods.body.items.map((item: { type: string }) => item.type)).toEqual(['password']);
    // The seeded admin, untouched, still signs in with the published password.
    await browserLogin(harness, platform.key, { username: 'admin', password: 'admin-password' });
  });

  it('a deactivated user cannot sign in, not even with an IdP session, also after a restart', async () => {
    const browser = new OidcBrowser();
    await browserLogin(harness, platform.key, { username: 'alice', password: NEW_PASSWORD }, browser);
    await harness.idp.accounts.deactivate('dev-user-alice');

    // The same browser still has its session at the dev IdP: it is asked to sign in again, and refused.
    const begin = await browser.get(startUrl(harness, platform.key));
    const followed = await browser.followRedirects(begin, { maxHops: 10 });
    expect(followed.response.status).toBe(200);
    expect(followed.response.text).toContain('name="password"');
    const refused = await browser.loginAtDevIdp(followed.response, 'alice', NEW_PASSWORD);
    expect(refused.text).toContain('This account has been deactivated.');

    await harness.close();
    harness = await startGateway();
    platform = await addPlatform(harness);
    expect((await attemptLogin(harness, platform.key, { username: 'alice', password: NEW_PASSWORD })).text).toContain('This account has been deactivated.');
  });
});
