// The account operations over real HTTP with the real app, real PostgreSQL and the Zitadel adapter
// against a Zitadel-shaped server: GET /v1/account/authentication-methods and
// POST /v1/account/password with each credential, their refusals, the shared per-user rate limit,
// and no password anywhere in the logs. Every response is checked against the contract.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import { randomBytes } from 'node:crypto';
import type { DestinationStream } from 'pino';
import type { Express } from 'express';

import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { startFakeIdp, type FakeIdp } from '../helpers/fakeIdp.ts';
import { startZitadelServer, type ZitadelServer } from '../helpers/zitadelServer.ts';
import { createApp } from '../../src/app.ts';
import { createLogger } from '../../src/logger.ts';
import { createZitadelAccounts } from '../../src/services/identityProvider/zitadel.ts';
import { patCredential } from '../../src/services/identityProvider/zitadelAuth.ts';
import { upsertUserFromIdp } from '../../src/services/account/usersRepository.ts';
import { createSession } from '../../src/services/sessions/create.ts';
import { createPlatform, CLI_ACTOR } from '../../src/services/registry/index.ts';
import { randomToken, sha256 } from '../../src/security/crypto.ts';

const ACCOUNT_CENTER = 'http://account.test';
const GATEWAY_CLIENT = 'account-gateway';
const PAT = `pat_${randomBytes(16).toString('hex')}`;
/** Every password of this file: none may ever appear in a log line or a response. */
const PASSWORDS = {
  current: 'Curr3nt-account-secret',
  next: 'N3w-account-secret-xyz',
  wrong: 'Wr0ng-account-guess-abc',
  weak: 'weak-password-without-digits',
};

function memory(): { stream: DestinationStream; text: () => string } {
  const lines: string[] = [];
  return { stream: { write: (line: string) => void lines.push(line) }, text: () => lines.join('') };
}

describe('account: authentication methods and password change', () => {
  let database: TestDatabase;
  let idp: FakeIdp;
  let zitadel: ZitadelServer;
  let base: TestApp;
  let app: Express;
  let unconfigured: Express;
  const logs = memory();
  let seq = 0;
  const responses: string[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    idp = await startFakeIdp({ clientId: GATEWAY_CLIENT, clientSecret: randomBytes(24).toString('base64url') });
    zitadel = await startZitadelServer({ pats: [PAT] });
    base = await createTestApp({ db: database.db, oidc: { issuer: idp.issuer, clientId: GATEWAY_CLIENT, clientSecret: idp.clientSecret } });
    // The real app with a logger whose every line is kept (trace: everything the app would ever log).
    const logger = createLogger('trace', logs.stream);
    const idpAccounts = createZitadelAccounts({ apiUrl: zitadel.url, credential: patCredential(PAT), logger });
    app = await createApp({ ...base.deps, logger, idpAccounts }, { validateResponses: true });
    unconfigured = base.app; // idpAccounts: null
  });
  afterAll(async () => {
    await zitadel?.close();
    await idp?.close();
    await database?.drop();
  });

  /** A user known to the gateway and to Zitadel (sub = Zitadel's user id), with a browser session. */
  async function user(methods: { passkey?: boolean } = {}) {
    const sub = `2871000000000${String(++seq).padStart(5, '0')}`;
    zitadel.users.set(sub, {
      id: sub,
      state: 'USER_STATE_ACTIVE',
      password: PASSWORDS.current,
      ...(methods.passkey ? { passkeys: [{ id: `${sub}1`, name: 'Laptop' }] } : {}),
    });
    const row = await upsertUserFromIdp(database.db, { sub, email: null, emailVerified: false, displayName: null, givenName: null, familyName: null });
    const session = await createSession(database.db, { userId: row.id, permissions: [], ttlSeconds: 3600 });
    return { sub, sessionId: session.id, cookie: `gw_session=${session.token}` };
  }

  async function platformCredential(owner: { sessionId: string }): Promise<string> {
    const key = `ACC_${++seq}_${randomBytes(2).toString('hex').toUpperCase()}`;
    await createPlatform(database.db, { platformKey: key, displayName: key, callbackUrl: 'https://p.example/cb', allowedReturnUrls: ['https://p.example/'] }, CLI_ACTOR);
    const token = `gwp_${randomToken()}`;
    await database.db.raw(`INSERT INTO platform_credentials (session_id, platform_id, token_digest) SELECT ?, id, ? FROM platforms WHERE platform_key = ?`, [owner.sessionId, sha256(token), key]);
    return `gw_session=${token}`;
  }

  function bearer(sub: string): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    return idp.signJwt({ iss: idp.issuer, aud: GATEWAY_CLIENT, client_id: GATEWAY_CLIENT, sub, iat: now, exp: now + 300, scope: 'openid' });
  }

  const keep = <T extends { text: string; headers: Record<string, string> }>(response: T): T => {
    responses.push(response.text, JSON.stringify(response.headers));
    return response;
  };
  const listMethods = (target: Express, auth: { cookie?: string; bearer?: string }) => {
    let req = request(target).get('/v1/account/authentication-methods');
    if (auth.cookie) req = req.set('Cookie', auth.cookie);
    if (auth.bearer) req = req.set('Authorization', `Bearer ${auth.bearer}`);
    return req.then(keep);
  };
  const changePassword = (target: Express, auth: { cookie?: string; bearer?: string }, body: unknown, origin: string | null = ACCOUNT_CENTER) => {
    let req = request(target).post('/v1/account/password');
    if (auth.cookie) {
      req = req.set('Cookie', auth.cookie);
      if (origin) req = req.set('Origin', origin);
    }
    if (auth.bearer) req = req.set('Authorization', `Bearer ${auth.bearer}`);
    return req.send(body as object).then(keep);
  };

  describe('GET /v1/account/authentication-methods', () => {
    it('with the browser session: the methods at the identity provider, not cached', async () => {
      const alice = await user({ passkey: true });
      const res = await listMethods(app, { cookie: alice.cookie }).then((r) => r);
      expect(res.status).toBe(200);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.body).toEqual({
        items: [
          { id: 'password', type: 'password', displayName: null, createdAt: null, lastUsedAt: null },
          { id: `${alice.sub}1`, type: 'passkey', displayName: 'Laptop', createdAt: null, lastUsedAt: null },
        ],
      });
    });

    it('with a Bearer access token: the token subject\'s methods', async () => {
      const bob = await user();
      const res = await listMethods(app, { bearer: await bearer(bob.sub) });
      expect(res.status).toBe(200);
      expect(res.body.items.map((item: { type: string }) => item.type)).toEqual(['password']);
    });

    it('with a platform credential: allowed (it acts for the user on user routes)', async () => {
      const carol = await user();
      const res = await listMethods(app, { cookie: await platformCredential(carol) });
      expect(res.status).toBe(200);
      expect(res.body.items).toHaveLength(1);
    });

    it('without credentials: 401', async () => {
      const res = await listMethods(app, {});
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('UNAUTHENTICATED');
    });

    it('without an account API configured: 503 IDP_UNAVAILABLE saying so', async () => {
      const dave = await user();
      const res = await listMethods(unconfigured, { cookie: dave.cookie });
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({ code: 'IDP_UNAVAILABLE', detail: expect.stringMatching(/not configured.*IDP_ADMIN_TOKEN/) });
    });

    it('the identity provider down: 503 IDP_UNAVAILABLE', async () => {
      const erin = await user();
      zitadel.failure = { kind: 'status', status: 500 };
      try {
        const res = await listMethods(app, { cookie: erin.cookie });
        expect(res.status).toBe(503);
        expect(res.body.code).toBe('IDP_UNAVAILABLE');
        expect(res.text).not.toMatch(/Errors\.Internal|INTERNAL-/);
      } finally {
        zitadel.failure = { kind: 'none' };
      }
    });
  });

  describe('POST /v1/account/password', () => {
    it('with the browser session: 204, and the provider has the new password', async () => {
      const frank = await user();
      const res = await changePassword(app, { cookie: frank.cookie }, { currentPassword: PASSWORDS.current, newPassword: PASSWORDS.next });
      expect(res.status).toBe(204);
      expect(res.text).toBe('');
      expect(zitadel.users.get(frank.sub)?.password).toBe(PASSWORDS.next);
    });

    it('with a Bearer access token: 204', async () => {
      const gina = await user();
      const res = await changePassword(app, { bearer: await bearer(gina.sub) }, { currentPassword: PASSWORDS.current, newPassword: PASSWORDS.next });
      expect(res.status).toBe(204);
      expect(zitadel.users.get(gina.sub)?.password).toBe(PASSWORDS.next);
    });

    it('with a platform credential: 403 FORBIDDEN, and the provider is never asked', async () => {
      const hank = await user();
      const before = zitadel.requests.length;
      const res = await changePassword(app, { cookie: await platformCredential(hank) }, { currentPassword: PASSWORDS.current, newPassword: PASSWORDS.next }, null);
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('FORBIDDEN');
      expect(zitadel.requests.length).toBe(before);
      expect(zitadel.users.get(hank.sub)?.password).toBe(PASSWORDS.current);
    });

    it('without credentials: 401; from another origin with the cookie: 403 ORIGIN_NOT_ALLOWED', async () => {
      expect((await changePassword(app, {}, { currentPassword: PASSWORDS.current, newPassword: PASSWORDS.next })).status).toBe(401);
      const ivy = await user();
      const res = await changePassword(app, { cookie: ivy.cookie }, { currentPassword: PASSWORDS.current, newPassword: PASSWORDS.next }, 'https://evil.example');
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('ORIGIN_NOT_ALLOWED');
    });

    it.each([
      ['no body fields', {}, ['/body/currentPassword', '/body/newPassword']],
      ['an empty current password', { currentPassword: '', newPassword: PASSWORDS.next }, ['/body/currentPassword']],
      ['a new password under 8 characters', { currentPassword: PASSWORDS.current, newPassword: 'S3ven!!' }, ['/body/newPassword']],
      ['an unknown field', { currentPassword: PASSWORDS.current, newPassword: PASSWORDS.next, confirm: PASSWORDS.next }, ['/body/confirm']],
    ])('bad input, %s: 400 VALIDATION_FAILED, nothing echoed', async (_case, body, pointers) => {
      const jack = await user();
      const res = await changePassword(app, { cookie: jack.cookie }, body);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_FAILED');
      expect(res.body.errors.map((error: { pointer: string }) => error.pointer).sort()).toEqual([...pointers].sort());
      expect(zitadel.users.get(jack.sub)?.password).toBe(PASSWORDS.current);
    });

    it('a wrong current password: 403 FORBIDDEN', async () => {
      const kim = await user();
      const res = await changePassword(app, { cookie: kim.cookie }, { currentPassword: PASSWORDS.wrong, newPassword: PASSWORDS.next });
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ code: 'FORBIDDEN', detail: 'The current password is not correct.' });
    });

    it('the provider\'s policy refuses the new password: 400 at /body/newPassword with its message', async () => {
      const lou = await user();
      const res = await changePassword(app, { cookie: lou.cookie }, { currentPassword: PASSWORDS.current, newPassword: PASSWORDS.weak });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'VALIDATION_FAILED', errors: [{ pointer: '/body/newPassword', message: 'Password must contain number' }] });
    });

    it('without an account API configured: 503 IDP_UNAVAILABLE', async () => {
      const max = await user();
      const res = await changePassword(unconfigured, { cookie: max.cookie }, { currentPassword: PASSWORDS.current, newPassword: PASSWORDS.next });
      expect(res.status).toBe(503);
      expect(res.body.code).toBe('IDP_UNAVAILABLE');
    });

    it('5 attempts a minute per user, counted whatever their outcome; the 6th is 429 with Retry-After; other users are not affected', async () => {
      const ned = await user();
      const outcomes: number[] = [];
      for (const currentPassword of [PASSWORDS.wrong, PASSWORDS.wrong, PASSWORDS.wrong, PASSWORDS.wrong]) {
        outcomes.push((await changePassword(app, { cookie: ned.cookie }, { currentPassword, newPassword: PASSWORDS.next })).status);
      }
      outcomes.push((await changePassword(app, { bearer: await bearer(ned.sub) }, { currentPassword: PASSWORDS.current, newPassword: PASSWORDS.next })).status);
      expect(outcomes).toEqual([403, 403, 403, 403, 204]);

      const before = zitadel.requests.length;
      const limited = await changePassword(app, { cookie: ned.cookie }, { currentPassword: PASSWORDS.next, newPassword: 'An0ther-new-secret' });
      expect(limited.status).toBe(429);
      expect(limited.body.code).toBe('RATE_LIMITED');
      const retryAfter = Number(limited.headers['retry-after']);
      expect(Number.isInteger(retryAfter)).toBe(true);
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect(zitadel.requests.length).toBe(before); // refused before the provider is asked

      // The counter is in PostgreSQL, keyed by a digest of the subject (shared by every instance).
      const { rows } = await database.db.raw(`SELECT key, points FROM rate_limits WHERE key LIKE 'password_change:%'`);
      expect(rows.some((row: { key: string; points: number }) => row.points === 6 && !row.key.includes(ned.sub))).toBe(true);

      const other = await user();
      expect((await changePassword(app, { cookie: other.cookie }, { currentPassword: PASSWORDS.current, newPassword: PASSWORDS.next })).status).toBe(204);
    });

    it('another gateway instance on the same database shares the limit', async () => {
      const oli = await user();
      for (let i = 0; i < 5; i++) await changePassword(app, { cookie: oli.cookie }, { currentPassword: PASSWORDS.wrong, newPassword: PASSWORDS.next });
      const logger = createLogger('silent');
      const second = await createApp({ ...base.deps, logger, idpAccounts: createZitadelAccounts({ apiUrl: zitadel.url, credential: patCredential(PAT), logger }) }, { validateResponses: true });
      const res = await changePassword(second, { cookie: oli.cookie }, { currentPassword: PASSWORDS.current, newPassword: PASSWORDS.next });
      expect(res.status).toBe(429);
    });
  });

  it('no password ever appears in a log line or a response (checked last, over every request of this file)', () => {
    const logged = logs.text();
    expect(logged.length).toBeGreaterThan(0);
    expect(logged).toContain('/v1/account/password'); // the requests were logged
    for (const password of Object.values(PASSWORDS)) {
      expect(logged).not.toContain(password);
      for (const response of responses) expect(response).not.toContain(password);
    }
    expect(logged).not.toContain(PAT);
  });
});
