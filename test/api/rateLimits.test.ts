// Issue 13 §6: rate limits shared by every instance (PostgreSQL table `rate_limits`), through the
// real app on a real database: per client IP on start and callback, per user on password changes,
// per caller on administrative writes. Each limit is set small through its RATE_LIMIT_*_PER_MINUTE
// variable; N+1 requests get 429 RATE_LIMITED with Retry-After. X-Forwarded-For counts only
// through TRUSTED_PROXIES. And what no limit may do: refuse a platform back end's valid
// credentials because of what others sent (the exchange has no budget), or refuse an office
// behind one address at the default limits.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import request from 'supertest';
import { randomBytes } from 'node:crypto';

import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { startFakeIdp, type FakeIdp } from '../helpers/fakeIdp.ts';
import { basic, issueTestHandoff, seedPlatform } from './registryHelpers.ts';
import { startHarness, addPlatform, startUrl, type Harness } from '../helpers/flowHarness.ts';
import { OidcBrowser } from '../helpers/oidcBrowser.ts';
import { upsertUserFromIdp } from '../../src/services/account/usersRepository.ts';
import { createSession } from '../../src/services/sessions/create.ts';
import { createDb } from '../../src/db/knex.ts';
import { loadConfig } from '../../src/config/index.ts';
import type { Permission } from '../../src/api/types.ts';
import type { IdentityProviderAccounts } from '../../src/services/identityProvider/port.ts';

const CLIENT_ID = 'gateway-rate-limit-test';
const CLIENT_SECRET = randomBytes(32).toString('base64url');
const ACCOUNT_CENTER = 'http://account.test';

/** A 429 as the contract describes it: problem+json RATE_LIMITED, Retry-After in whole seconds. */
function expectRateLimited(res: request.Response, maxSeconds = 60): void {
  expect(res.status, res.text).toBe(429);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(res.body.code).toBe('RATE_LIMITED');
  expect(res.headers['retry-after']).toMatch(/^\d+$/);
  const retryAfter = Number(res.headers['retry-after']);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(maxSeconds);
}

// Generous timeouts: each limit needs its own app (contract compiled per app), and a loaded CI
// machine can be slow. A test that timed out would leave requests running into the next one.
const SLOW = { timeout: 120_000 };

describe('rate limits (issue 13 §6)', SLOW, () => {
  let database: TestDatabase;
  let fake: FakeIdp;
  let platform: Awaited<ReturnType<typeof seedPlatform>>;
  const apps = new Map<string, TestApp>();

  /** An app on the shared database with the given limits (one per distinct environment). */
  async function appWith(env: Record<string, string>, extra: { idpAccounts?: IdentityProviderAccounts } = {}): Promise<TestApp> {
    const id = JSON.stringify(env) + (extra.idpAccounts ? '+idp' : '');
    let app = apps.get(id);
    if (!app) {
      app = await createTestApp({ db: database.db, env, oidc: { issuer: fake.issuer, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET }, ...extra });
      apps.set(id, app);
    }
    return app;
  }

  const count = async (table: string) => (await database.db.raw(`SELECT count(*)::int AS n FROM ${table}`)).rows[0].n as number;
  const start = (app: TestApp, headers: Record<string, string> = {}) =>
    request(app.app).get(`/v1/auth/start?platformKey=${platform.key}&returnTo=${encodeURIComponent('https://bff.example.test/home')}`).set(headers);

  async function cookieUser(permissions: Permission[]) {
    const sub = `rate-limit-${randomBytes(6).toString('hex')}`;
    const user = await upsertUserFromIdp(database.db, { sub, email: null, emailVerified: false, displayName: sub, givenName: null, familyName: null });
    const session = await createSession(database.db, { userId: user.id, permissions, ttlSeconds: 3600 });
    return { sub, userId: user.id, sessionId: session.id, cookie: `gw_session=${session.token}` };
  }

  beforeAll(async () => {
    database = await createTestDatabase();
    fake = await startFakeIdp({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET });
    platform = await seedPlatform(database.db);
  }, 120_000);
  afterAll(async () => {
    await fake?.close();
    await database?.drop();
  });
  // Every test starts with fresh budgets: all requests come from 127.0.0.1.
  beforeEach(async () => {
    await database.db.raw('DELETE FROM rate_limits');
  });

  describe('start, per client IP', () => {
    it('a flood from one address is refused after the limit, and creates no login transaction', async () => {
      const app = await appWith({ RATE_LIMIT_START_PER_MINUTE: '3' });
      const transactionsBefore = await count('auth_transactions');
      const statuses: number[] = [];
      let last: request.Response | undefined;
      for (let i = 0; i < 8; i++) {
        last = await start(app);
        statuses.push(last.status);
      }
      expect(statuses).toEqual([302, 302, 302, 429, 429, 429, 429, 429]);
      expectRateLimited(last!);
      // Bounded tables: the refused starts wrote no transaction, and the limiter keeps one counter row.
      expect(await count('auth_transactions')).toBe(transactionsBefore + 3);
      const { rows } = await database.db.raw(`SELECT key, points FROM rate_limits WHERE key LIKE 'auth_start:%'`);
      expect(rows).toHaveLength(1);
      expect(rows[0].points).toBe(8);
      expect(rows[0].key).not.toContain('127.0.0.1'); // a digest, not the address
    });

    it('a browser gets the 429 as an HTML page, with Retry-After', async () => {
      const app = await appWith({ RATE_LIMIT_START_PER_MINUTE: '1' });
      expect((await start(app, { Accept: 'text/html' })).status).toBe(302);
      const page = await start(app, { Accept: 'text/html' });
      expect(page.status).toBe(429);
      expect(page.headers['content-type']).toMatch(/^text\/html/);
      expect(Number(page.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(page.text).toContain('RATE_LIMITED');
    });

    it('without TRUSTED_PROXIES, X-Forwarded-For is ignored: two forwarded addresses share the peer\'s budget', async () => {
      const app = await appWith({ RATE_LIMIT_START_PER_MINUTE: '2' });
      expect((await start(app, { 'X-Forwarded-For': '203.0.113.1' })).status).toBe(302);
      expect((await start(app, { 'X-Forwarded-For': '203.0.113.2' })).status).toBe(302);
      expectRateLimited(await start(app, { 'X-Forwarded-For': '203.0.113.3' }));
    });

    it('through a trusted proxy, each forwarded client address has its own budget; a forged left part changes nothing', async () => {
      const app = await appWith({ RATE_LIMIT_START_PER_MINUTE: '2', TRUSTED_PROXIES: '127.0.0.1, ::1' });
      expect((await start(app, { 'X-Forwarded-For': '203.0.113.1' })).status).toBe(302);
      expect((await start(app, { 'X-Forwarded-For': '203.0.113.1' })).status).toBe(302);
      expectRateLimited(await start(app, { 'X-Forwarded-For': '203.0.113.1' }));
      // What the client wrote itself (left of what the proxy appended) is not believed.
      expectRateLimited(await start(app, { 'X-Forwarded-For': '198.51.100.77, 203.0.113.1' }));
      expect((await start(app, { 'X-Forwarded-For': '203.0.113.2' })).status).toBe(302);
      expect((await start(app, { 'X-Forwarded-For': '203.0.113.2' })).status).toBe(302);
      expectRateLimited(await start(app, { 'X-Forwarded-For': '203.0.113.2' }));
    });

    it('a trusted list that does not include the peer leaves the header ignored', async () => {
      const app = await appWith({ RATE_LIMIT_START_PER_MINUTE: '1', TRUSTED_PROXIES: '10.0.0.0/8' });
      expect((await start(app, { 'X-Forwarded-For': '203.0.113.1' })).status).toBe(302);
      expectRateLimited(await start(app, { 'X-Forwarded-For': '203.0.113.2' }));
    });

    it('the store unreachable (database down) answers 503 DATABASE_UNAVAILABLE, not 500', async () => {
      const down = createDb('postgres://nobody:nothing@127.0.0.1:1/none', { poolMax: 1 });
      try {
        const app = await createTestApp({ db: down, oidc: { issuer: fake.issuer, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET } });
        const res = await request(app.app).get(`/v1/auth/start?platformKey=${platform.key}&returnTo=%2Fhome`);
        expect(res.status).toBe(503);
        expect(res.body.code).toBe('DATABASE_UNAVAILABLE');
      } finally {
        await down.destroy();
      }
    });
  });

  describe('callback, per client IP', () => {
    it('N+1 callbacks from one address: the last is 429, before the transaction is looked up', async () => {
      const app = await appWith({ RATE_LIMIT_CALLBACK_PER_MINUTE: '2' });
      const callback = () => request(app.app).get(`/v1/auth/callback?state=${randomBytes(16).toString('base64url')}&code=x`);
      expect((await callback()).status).not.toBe(429);
      expect((await callback()).status).not.toBe(429);
      expectRateLimited(await callback());
      // Counted as a rate-limit refusal, not as a login outcome (a flood would otherwise read as
      // people failing to sign in, in the login refusal alert).
      const { body } = await (app.app.locals.metrics as { scrape(): Promise<{ body: string }> }).scrape();
      expect(body).toMatch(/^gateway_rate_limit_refusals_total\{limiter="auth_callback"\} 1$/m);
      expect(body).not.toMatch(/gateway_logins_total\{outcome="RATE_LIMITED"\}/);
      expect(body).toMatch(/^gateway_logins_total\{outcome="TRANSACTION_NOT_FOUND"\} 2$/m);
    });
  });

  describe('exchange: no budget that strangers or refused codes can spend', () => {
    const exchange = (app: TestApp, authorization: string, code: string) =>
      request(app.app).post('/v1/auth/exchange').set('Authorization', authorization).send({ code });

    it('refused codes, wrong secrets and unknown client ids from the back end\'s own address never refuse its valid credentials', async () => {
      // The default configuration: every limit as shipped (RATE_LIMIT_EXCHANGE_FAILURES_PER_MINUTE is retired).
      const app = await appWith({ RATE_LIMIT_EXCHANGE_FAILURES_PER_MINUTE: '1' });
      expect(app.config.warnings).toEqual([expect.stringMatching(/^RATE_LIMIT_EXCHANGE_FAILURES_PER_MINUTE is no longer used/)]);
      const own = await seedPlatform(database.db);
      const auth = basic(own.clientId, own.clientSecret);
      for (let i = 0; i < 15; i++) {
        expect((await exchange(app, auth, `handoff_junk${i}`)).body.code).toBe('HANDOFF_CODE_INVALID');
        expect((await exchange(app, basic(own.clientId, randomBytes(32).toString('base64url')), `handoff_junk${i}`)).body.code).toBe('INVALID_CLIENT_CREDENTIALS');
        expect((await exchange(app, basic(`unknown-${i}`, 'secret'), `handoff_junk${i}`)).body.code).toBe('INVALID_CLIENT_CREDENTIALS');
      }
      // A replay of a code already exchanged (a person reloading the platform's callback page).
      const code = await issueTestHandoff(app, own.key);
      expect((await exchange(app, auth, code)).status).toBe(200);
      for (let i = 0; i < 3; i++) expect((await exchange(app, auth, code)).body.code).toBe('HANDOFF_CODE_INVALID');

      expect((await exchange(app, auth, await issueTestHandoff(app, own.key))).status).toBe(200);
      // Nothing counted in the limits' table; the refusals counted for the operator, by platform.
      expect(await count('rate_limits')).toBe(0);
      const { body: scraped } = await (app.app.locals.metrics as { scrape(): Promise<{ body: string }> }).scrape();
      expect(scraped).not.toMatch(/gateway_rate_limit_refusals_total\{/);
      expect(scraped).toMatch(new RegExp(`^gateway_handoffs_invalid_total\\{platform="${own.key}"\\} 18$`, 'm'));
      expect(scraped).toMatch(/^gateway_handoffs_refused_total\{code="HANDOFF_CODE_INVALID"\} 18$/m);
      expect(scraped).toMatch(/^gateway_handoffs_refused_total\{code="INVALID_CLIENT_CREDENTIALS"\} 30$/m);
    });
  });

  describe('the per-address budgets hold a whole office behind one address (default limits)', () => {
    const defaults = loadConfig({ NODE_ENV: 'test' }).rateLimits;
    const PEOPLE = 200;

    it(`${PEOPLE} people behind one address start a login within the minute: none refused`, async () => {
      const app = await appWith({ RATE_LIMIT_START_PER_MINUTE: String(defaults.start.points) });
      const statuses = new Set<number>();
      for (let i = 0; i < PEOPLE; i++) statuses.add((await start(app)).status);
      expect([...statuses]).toEqual([302]);
    });

    it(`${PEOPLE} callbacks from one address within the minute: none refused`, async () => {
      const app = await appWith({ RATE_LIMIT_CALLBACK_PER_MINUTE: String(defaults.callback.points) });
      const statuses = new Set<number>();
      for (let i = 0; i < PEOPLE; i++) statuses.add((await request(app.app).get(`/v1/auth/callback?state=${randomBytes(16).toString('base64url')}&code=x`)).status);
      expect([...statuses]).toEqual([404]);
    });
  });

  describe('password change, per user', () => {
    it('RATE_LIMIT_PASSWORD_CHANGE_PER_MINUTE sets the attempts; the next is 429 before the provider is asked', async () => {
      let calls = 0;
      const idpAccounts = { changePassword: async () => void calls++ } as unknown as IdentityProviderAccounts;
      const app = await appWith({ RATE_LIMIT_PASSWORD_CHANGE_PER_MINUTE: '2' }, { idpAccounts });
      const user = await cookieUser([]);
      const change = () =>
        request(app.app)
          .post('/v1/account/password')
          .set('Cookie', user.cookie)
          .set('Origin', ACCOUNT_CENTER)
          .send({ currentPassword: 'Curr3nt-secret-abc', newPassword: 'N3w-secret-abcdef' });
      expect((await change()).status).toBe(204);
      expect((await change()).status).toBe(204);
      expectRateLimited(await change());
      expect(calls).toBe(2);
    });
  });

  describe('administrative writes, per caller', () => {
    it('platform writes: N+1 by one administrator is 429; another administrator is not affected', async () => {
      const app = await appWith({ RATE_LIMIT_ADMIN_WRITES_PER_MINUTE: '2' });
      const target = await seedPlatform(database.db);
      const [admin, other] = [await cookieUser(['platforms:admin']), await cookieUser(['platforms:admin'])];
      const rename = (caller: { cookie: string }, name: string) =>
        request(app.app).patch(`/v1/platforms/${target.key}`).set('Cookie', caller.cookie).set('Origin', ACCOUNT_CENTER).send({ displayName: name });
      expect((await rename(admin, 'One')).status).toBe(200);
      expect((await request(app.app).post(`/v1/platforms/${target.key}/credentials/rotate`).set('Cookie', admin.cookie).set('Origin', ACCOUNT_CENTER)).status).toBe(200);
      const refused = await rename(admin, 'Three');
      expectRateLimited(refused);
      expect((await request(app.app).get(`/v1/platforms/${target.key}`).set('Cookie', admin.cookie)).body.displayName).toBe('One');
      // Reads are not limited; another caller has its own budget.
      expect((await request(app.app).get('/v1/platforms').set('Cookie', admin.cookie)).status).toBe(200);
      expect((await rename(other, 'Four')).status).toBe(200);
    });

    it('revoking another user\'s session counts; revoking one\'s own does not', async () => {
      const app = await appWith({ RATE_LIMIT_ADMIN_WRITES_PER_MINUTE: '1' });
      const admin = await cookieUser(['platforms:admin']);
      const revoke = (sessionId: string) =>
        request(app.app).delete(`/v1/sessions/${sessionId}`).set('Cookie', admin.cookie).set('Origin', ACCOUNT_CENTER);
      // Own sessions: not administrative, never limited.
      for (let i = 0; i < 3; i++) {
        const mine = await createSession(database.db, { userId: admin.userId, permissions: [], ttlSeconds: 3600 });
        expect((await revoke(mine.id)).status).toBe(204);
      }
      const [victim1, victim2] = [await cookieUser([]), await cookieUser([])];
      expect((await revoke(victim1.sessionId)).status).toBe(204);
      expectRateLimited(await revoke(victim2.sessionId));
      // The refused revocation ended nothing.
      expect((await request(app.app).get('/v1/me').set('Cookie', victim2.cookie)).status).toBe(200);
    });
  });
});

describe('the session list shows the client address forwarded by a trusted proxy', SLOW, () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startHarness({ TRUSTED_PROXIES: '127.0.0.1,::1' });
  }, 120_000);
  afterAll(async () => {
    await harness?.close();
  });

  it('login through the proxy: the session records the forwarded client\'s network', async () => {
    const platform = await addPlatform(harness);
    const browser = new OidcBrowser();
    const started = await browser.get(startUrl(harness, platform.key));
    expect(started.status).toBe(302);
    const toLogin = await browser.followRedirects(started, { maxHops: 10 });
    const afterLogin = await browser.loginAtDevIdp(toLogin.response, 'alice', 'alice-password');
    const callbackPrefix = `${harness.baseUrl}/v1/auth/callback`;
    const reached = await browser.followRedirects(afterLogin, { stopWhen: (url) => url.startsWith(callbackPrefix), maxHops: 10 });
    expect(reached.stoppedAt).toBeDefined();
    const callback = await browser.get(reached.stoppedAt!, { 'x-forwarded-for': '198.51.100.23' });
    expect(callback.status, callback.text.slice(0, 300)).toBe(302);
    const cookie = `gw_session=${browser.cookiesFor(`${harness.baseUrl}/`).gw_session}`;
    const list = await request(harness.gateway.app).get('/v1/sessions').set('Cookie', cookie).expect(200);
    const items = list.body.items as { current: boolean; ipPrefix: string | null }[];
    expect(items.find((item) => item.current)?.ipPrefix).toBe('198.51.100.0/24');
  });
});
