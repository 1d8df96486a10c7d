// Back-channel logout out to platforms (OpenID Connect Back-Channel Logout 1.0, the gateway
// as the OP): real logins through the dev identity provider, real HTTP, graphile-worker on
// the test database. The platforms' receivers are small node:http servers on 127.0.0.1 that
// verify every token against the gateway's JWKS, fetched over HTTP.
//
// graphile-worker's backoff is in its SQL (exp(attempts) seconds) and cannot be shortened;
// the tests drive retries by rescheduling the job with graphile-worker's own SQL function
// `graphile_worker.reschedule_jobs` (run_at now, and max_attempts for the give-up), and run
// the workers with a short poll interval so a rescheduled job is picked up at once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { Writable } from 'node:stream';
import { createRemoteJWKSet, jwtVerify, type JWTPayload } from 'jose';
import { startHarness, addPlatform, browserLogin, startUrl, type Harness, type TestPlatform } from '../helpers/flowHarness.ts';
import { OidcBrowser } from '../helpers/oidcBrowser.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { DEV_USERS, type DevIdpUser } from '../../src/devidp/users.ts';
import { createDb, type Db } from '../../src/db/knex.ts';
import { createLogger } from '../../src/logger.ts';
import { freePort } from '../../src/db/embedded.ts';
import { CLI_ACTOR, createPlatform, updatePlatform } from '../../src/services/registry/index.ts';
import { endTimedOutSessions } from '../../src/services/sessions/ending.ts';
import { startBackchannelWorker, type BackchannelWorker } from '../../src/services/backchannel/worker.ts';
import { generateSigningKeySpec } from '../../src/security/signingKeys.ts';
import { BACKCHANNEL_LOGOUT_EVENT } from '../../src/services/backchannel/delivery.ts';
import { BACKCHANNEL_LOGOUT_MAX_ATTEMPTS } from '../../src/services/backchannel/outbox.ts';
import { startDemoBff, type DemoBff } from '../../src/devstack/demoBff.ts';

const ALICE = { username: 'alice', password: 'alice-password' };
const CAROL: DevIdpUser = {
  sub: 'dev-user-carol',
  username: 'carol',
  password: 'carol-password',
  email: 'carol@example.test',
  givenName: 'Carol',
  familyName: 'Deleted',
  permissions: [],
};
const ACCOUNT_CENTER = 'http://account.test';
/** Two keys: the first signs, both are published. */
const SIGNING_KEYS = `${generateSigningKeySpec('e2e-new')},${generateSigningKeySpec('e2e-old')}`;
const POLL_MS = 100;
/**
 * The receivers listen on 127.0.0.1: the tests' explicit allowance (refused in production), for
 * the registry (`rules()`) and every gateway's worker alike. Without it the gateway never calls
 * loopback (test/e2e/backchannelRefused.test.ts).
 */
const OUTBOUND = { OUTBOUND_ALLOWED_PRIVATE_RANGES: '127.0.0.0/8' };

interface Receiver {
  url: string;
  clientId: string;
  /** 'ok' answers 200 to a verified token (400 otherwise); 'unavailable' answers 503 without reading it. */
  mode: 'ok' | 'unavailable';
  /** Verified tokens, in the order received. */
  tokens: JWTPayload[];
  /** Every POST that reached it. */
  requests: number;
  /** Tokens that failed verification (must stay empty). */
  invalid: string[];
  /** Close the port (connections refused) and open it again. */
  stop(): Promise<void>;
  start(): Promise<void>;
}

/** A gateway log captured in memory (JSON lines). */
function memoryLog() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { lines, logger: createLogger('info', stream) };
}

describe('back-channel logout out to platforms', () => {
  let harness: Harness;
  let worker: BackchannelWorker;
  const log = memoryLog();
  const servers: http.Server[] = [];
  let jwks: ReturnType<typeof createRemoteJWKSet>;

  beforeAll(async () => {
    harness = await startHarness({ GATEWAY_SIGNING_KEYS: SIGNING_KEYS, ...OUTBOUND }, { users: [...DEV_USERS, CAROL] });
    jwks = createRemoteJWKSet(new URL('/.well-known/jwks.json', harness.baseUrl));
    worker = await startBackchannelWorker({ ...harness.gateway.deps, logger: log.logger }, { pollIntervalMs: POLL_MS });
  });
  afterAll(async () => {
    await worker?.stop();
    for (const server of servers) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
    await harness?.close();
  });

  const db = () => harness.database.db;
  const rules = () => ({ requireHttps: false, outbound: harness.gateway.config.outbound });
  const api = () => request(harness.gateway.app);
  const cookieOf = (browser: OidcBrowser) => `gw_session=${browser.cookiesFor(`${harness.baseUrl}/`).gw_session}`;

  async function startReceiver(clientId: string): Promise<Receiver> {
    const port = await freePort();
    const receiver: Receiver = {
      url: `http://127.0.0.1:${port}/backchannel-logout`,
      clientId,
      mode: 'ok',
      tokens: [],
      requests: 0,
      invalid: [],
      stop: async () => {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      },
      start: () => new Promise<void>((resolve) => server.listen(port, '127.0.0.1', () => resolve())),
    };
    const server = http.createServer(async (req, res) => {
      receiver.requests += 1;
      if (receiver.mode === 'unavailable') {
        res.writeHead(503).end();
        return;
      }
      let body = '';
      for await (const chunk of req) body += chunk;
      const token = new URLSearchParams(body).get('logout_token') ?? '';
      try {
        expect(req.method).toBe('POST');
        expect(req.headers['content-type']).toBe('application/x-www-form-urlencoded');
        const { payload, protectedHeader } = await jwtVerify(token, jwks, {
          issuer: harness.baseUrl,
          audience: clientId,
          typ: 'logout+jwt',
          algorithms: ['ES256'],
        });
        expect(protectedHeader.kid).toBe('e2e-new');
        receiver.tokens.push(payload);
        res.writeHead(200, { 'Cache-Control': 'no-store' }).end();
      } catch (error) {
        receiver.invalid.push(`${(error as Error).message}: ${token.slice(0, 40)}`);
        res.writeHead(400).end();
      }
    });
    servers.push(server);
    await receiver.start();
    return receiver;
  }

  /** A registered platform with a receiver at its backchannelLogoutUrl. */
  async function platformWithReceiver(): Promise<{ platform: TestPlatform; receiver: Receiver; id: string }> {
    const platform = await addPlatform(harness);
    const receiver = await startReceiver(platform.clientId);
    await updatePlatform(db(), platform.key, { backchannelLogoutUrl: receiver.url }, CLI_ACTOR, rules());
    return { platform, receiver, id: await platformIdOf(platform.key) };
  }

  async function platformIdOf(key: string): Promise<string> {
    return (await db().raw(`SELECT id FROM platforms WHERE platform_key = ?`, [key])).rows[0].id;
  }

  /** The platform back end's exchange: the gateway session id and the platform credential. */
  async function exchange(platform: TestPlatform, location: URL): Promise<{ sessionId: string; userId: string; credential: string }> {
    const res = await api().post('/v1/auth/exchange').set('Authorization', platform.basic).send({ code: location.searchParams.get('code') }).expect(200);
    return { sessionId: res.body.session.id, userId: res.body.user.id, credential: `gw_session=${res.body.session.gatewayToken}` };
  }

  /**
   * A login and its exchange by the platform. The first login of a browser goes through the
   * provider's login page (browserLogin); a later one in the same browser finds the
   * provider's session (single sign-on) and comes straight back, with a new gateway session.
   */
  async function signIn(platform: TestPlatform, browser = new OidcBrowser(), user = ALICE) {
    const isOwn = (url: string) => url.startsWith(harness.baseUrl) || url.startsWith(harness.idp.issuer);
    let location: URL;
    if (Object.keys(browser.cookiesFor(`${harness.baseUrl}/`)).length === 0) {
      location = (await browserLogin(harness, platform.key, user, browser)).location;
    } else {
      const followed = await browser.followRedirects(await browser.get(startUrl(harness, platform.key)), { stopWhen: (url) => !isOwn(url), maxHops: 10 });
      expect(followed.stoppedAt, followed.response.text.slice(0, 300)).toBeDefined();
      location = new URL(followed.stoppedAt!);
    }
    const exchanged = await exchange(platform, location);
    return { browser, cookie: cookieOf(browser), ...exchanged };
  }

  const signOut = (cookie: string) => api().post('/v1/auth/logout').set('Cookie', cookie).set('Origin', ACCOUNT_CENTER).expect(204);

  async function jobsOf(sessionId: string): Promise<{ id: string; key: string; attempts: number; max_attempts: number; last_error: string | null; locked_at: Date | null }[]> {
    const { rows } = await db().raw(`SELECT id, key, attempts, max_attempts, last_error, locked_at FROM graphile_worker.jobs WHERE key LIKE ? ORDER BY id`, [`logout:${sessionId}:%`]);
    return rows;
  }

  /** The job has failed at least `attempts` times and is waiting for its next try (not locked). */
  async function waitForFailedAttempts(sessionId: string, attempts: number) {
    await expect.poll(async () => (await jobsOf(sessionId)).filter((job) => job.attempts >= attempts && job.locked_at === null).length, { timeout: 10_000 }).toBe(1);
  }

  /** graphile-worker's own SQL: run the job now (and optionally give it fewer attempts). */
  async function retryNow(sessionId: string, maxAttempts: number | null = null) {
    const { rows } = await db().raw(
      `SELECT id FROM graphile_worker.reschedule_jobs(ARRAY(SELECT id FROM graphile_worker.jobs WHERE key LIKE ?), run_at => now(), max_attempts => ?)`,
      [`logout:${sessionId}:%`, maxAttempts],
    );
    expect(rows).toHaveLength(1);
  }

  /** Long enough for a duplicate to show up: several poll intervals of every worker. */
  const settle = () => new Promise((resolve) => setTimeout(resolve, 10 * POLL_MS));

  function expectLogoutToken(token: JWTPayload | undefined, expected: { clientId: string; sessionId: string; userId: string }) {
    expect(token).toMatchObject({
      iss: harness.baseUrl,
      aud: expected.clientId,
      sid: expected.sessionId,
      sub: expected.userId,
      events: { [BACKCHANNEL_LOGOUT_EVENT]: {} },
    });
    expect(token!.jti).toEqual(expect.any(String));
    expect(token!.iat).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000));
    expect(token!.exp! - token!.iat!).toBeGreaterThan(0);
    expect(token).not.toHaveProperty('nonce');
  }

  it('publishes the signing keys at /.well-known/jwks.json: every key, public parts only, cacheable', async () => {
    const res = await api().get('/.well-known/jwks.json').expect(200);
    expect(res.headers['cache-control']).toBe('public, max-age=300');
    expect(res.body.keys.map((key: { kid: string }) => key.kid)).toEqual(['e2e-new', 'e2e-old']);
    for (const key of res.body.keys) {
      expect(key).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' });
      expect(Object.keys(key).sort()).toEqual(['alg', 'crv', 'kid', 'kty', 'use', 'x', 'y']);
    }
  });

  it('a person signs in to two platforms in one browser and signs out: each platform gets one verified logout token for its session', async () => {
    const a = await platformWithReceiver();
    const b = await platformWithReceiver();
    const browser = new OidcBrowser();
    // Each login makes its own gateway session; the browser's cookie follows the latest one.
    const first = await signIn(a.platform, browser);
    const second = await signIn(b.platform, browser);
    expect(second.sessionId).not.toBe(first.sessionId);
    expect(second.cookie).not.toBe(first.cookie);

    // The account center signs the person out, once for each session the browser held.
    await signOut(second.cookie);
    await expect.poll(() => b.receiver.tokens.length, { timeout: 10_000 }).toBe(1);
    await signOut(first.cookie);
    await expect.poll(() => a.receiver.tokens.length, { timeout: 10_000 }).toBe(1);

    expectLogoutToken(a.receiver.tokens[0], { clientId: a.platform.clientId, sessionId: first.sessionId, userId: first.userId });
    expectLogoutToken(b.receiver.tokens[0], { clientId: b.platform.clientId, sessionId: second.sessionId, userId: second.userId });
    await settle();
    expect([a.receiver.requests, b.receiver.requests]).toEqual([1, 1]);
    expect([...a.receiver.invalid, ...b.receiver.invalid]).toEqual([]);
    // Delivered jobs are gone from the queue.
    expect([...(await jobsOf(first.sessionId)), ...(await jobsOf(second.sessionId))]).toEqual([]);
    expect(log.lines.filter((line) => line.msg === 'back-channel logout delivered' && [first.sessionId, second.sessionId].includes(line.sessionId as string))).toHaveLength(2);
  });

  it('a receiver that is down during the sign-out (503, then its port closed) gets the token once it is back; the working one gets exactly one', async () => {
    const up = await platformWithReceiver();
    const down = await platformWithReceiver();
    const browser = new OidcBrowser();
    const toUp = await signIn(up.platform, browser);
    const toDown = await signIn(down.platform, browser);

    down.receiver.mode = 'unavailable';
    await signOut(toDown.cookie);
    await signOut(toUp.cookie);
    expect((await jobsOf(toDown.sessionId)).map((job) => job.key)).toEqual([`logout:${toDown.sessionId}:${down.id}`]);
    await expect.poll(() => up.receiver.tokens.length, { timeout: 10_000 }).toBe(1);
    await waitForFailedAttempts(toDown.sessionId, 1);
    const [failed] = await jobsOf(toDown.sessionId);
    expect(failed).toMatchObject({ attempts: 1, max_attempts: BACKCHANNEL_LOGOUT_MAX_ATTEMPTS, last_error: expect.stringMatching(/answered 503/) });

    // Second attempt: the port is closed.
    await down.receiver.stop();
    await retryNow(toDown.sessionId);
    await waitForFailedAttempts(toDown.sessionId, 2);
    expect((await jobsOf(toDown.sessionId))[0]!.last_error).toMatch(/ECONNREFUSED/);

    // Back up: the third attempt delivers.
    down.receiver.mode = 'ok';
    await down.receiver.start();
    await retryNow(toDown.sessionId);
    await expect.poll(() => down.receiver.tokens.length, { timeout: 10_000 }).toBe(1);
    expectLogoutToken(down.receiver.tokens[0], { clientId: down.platform.clientId, sessionId: toDown.sessionId, userId: toDown.userId });
    expectLogoutToken(up.receiver.tokens[0], { clientId: up.platform.clientId, sessionId: toUp.sessionId, userId: toUp.userId });

    await settle();
    expect(up.receiver.requests).toBe(1); // never a duplicate for the platform that answered
    expect(down.receiver.tokens).toHaveLength(1);
    expect(down.receiver.requests).toBe(2); // the 503 and the success; the refused connection never arrived
    expect([...(await jobsOf(toDown.sessionId)), ...(await jobsOf(toUp.sessionId))]).toEqual([]);
    expect(log.lines.some((line) => String(line.msg).startsWith('back-channel logout delivery failed') && line.sessionId === toDown.sessionId && line.level === 40)).toBe(true);
  });

  it('two gateway instances share the outbox: N logouts are delivered exactly once each', async () => {
    const { platform, receiver } = await platformWithReceiver();
    const N = 8;
    const sessions = [];
    for (let i = 0; i < N; i += 1) sessions.push(await signIn(platform));

    // Both instances' workers start together on a queue that already holds the N jobs.
    await worker.stop();
    const secondDb: Db = createDb(harness.database.url);
    let second: TestApp | null = null;
    const workers: BackchannelWorker[] = [];
    try {
      second = await createTestApp({ db: secondDb, env: { PUBLIC_BASE_URL: harness.baseUrl, GATEWAY_SIGNING_KEYS: SIGNING_KEYS, ...OUTBOUND } });
      // Half the sign-outs through each instance.
      await Promise.all(
        sessions.map((session, i) => request((i % 2 === 0 ? harness.gateway : second!).app).post('/v1/auth/logout').set('Cookie', session.credential).expect(204)),
      );
      for (const session of sessions) expect(await jobsOf(session.sessionId)).toHaveLength(1);

      workers.push(
        ...(await Promise.all([
          startBackchannelWorker(harness.gateway.deps, { pollIntervalMs: POLL_MS }),
          startBackchannelWorker(second.deps, { pollIntervalMs: POLL_MS }),
        ])),
      );
      await expect.poll(() => receiver.tokens.length, { timeout: 15_000 }).toBe(N);
      await settle();
      expect(receiver.requests).toBe(N);
      expect(receiver.tokens.map((token) => token.sid).sort()).toEqual(sessions.map((session) => session.sessionId).sort());
      expect(new Set(receiver.tokens.map((token) => token.jti)).size).toBe(N);
      for (const session of sessions) expect(await jobsOf(session.sessionId)).toEqual([]);
    } finally {
      await Promise.all(workers.map((w) => w.stop()));
      await secondDb.destroy();
      worker = await startBackchannelWorker({ ...harness.gateway.deps, logger: log.logger }, { pollIntervalMs: POLL_MS });
    }
  }, 90_000); // a second app compiles the whole contract (several seconds)

  it('after the last failed attempt the give-up is recorded (a row, an error log) and the job is gone', async () => {
    const { platform, receiver, id } = await platformWithReceiver();
    receiver.mode = 'unavailable';
    const session = await signIn(platform);
    await signOut(session.cookie);
    await waitForFailedAttempts(session.sessionId, 1);
    // Two attempts in all: the next one is the last.
    await retryNow(session.sessionId, 2);
    await expect.poll(async () => (await db().raw(`SELECT count(*) AS n FROM backchannel_logout_give_ups WHERE session_id = ?`, [session.sessionId])).rows[0].n, { timeout: 10_000 }).toBe(1);

    const { rows } = await db().raw(`SELECT * FROM backchannel_logout_give_ups WHERE session_id = ?`, [session.sessionId]);
    expect(rows[0]).toMatchObject({ platform_id: id, user_id: session.userId, url: receiver.url, attempts: 2, last_error: expect.stringMatching(/answered 503/) });
    expect(rows[0].enqueued_at).toBeInstanceOf(Date);
    expect(rows[0].gave_up_at.getTime()).toBeGreaterThanOrEqual(rows[0].enqueued_at.getTime());
    // graphile-worker completes the job after the task returns, that is after the give-up row is written.
    await expect.poll(() => jobsOf(session.sessionId), { timeout: 10_000 }).toEqual([]);
    expect(receiver.requests).toBe(2);
    const errors = log.lines.filter((line) => line.level === 50 && line.sessionId === session.sessionId);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ platformKey: platform.key, attempt: 2, maxAttempts: 2, error: expect.stringMatching(/answered 503/) });
    expect(String(errors[0]!.msg)).toMatch(/given up/);
  });

  it('revocation, account deletion and expiry noticed by the purge send logout tokens too', async () => {
    const { platform, receiver } = await platformWithReceiver();

    // Revocation from another session of the same person (the account center's session list).
    const revoked = await signIn(platform);
    const other = await signIn(platform);
    await api().delete(`/v1/sessions/${revoked.sessionId}`).set('Cookie', other.cookie).set('Origin', ACCOUNT_CENTER).expect(204);
    await expect.poll(() => receiver.tokens.map((token) => token.sid), { timeout: 10_000 }).toEqual([revoked.sessionId]);

    // Expiry (or idling) noticed by the purge.
    await db().raw(`UPDATE gateway_sessions SET expires_at = now() - interval '1 second' WHERE id = ?`, [other.sessionId]);
    expect(await endTimedOutSessions(db(), harness.gateway.config.gatewaySessionIdleSeconds)).toBeGreaterThanOrEqual(1);
    await expect.poll(() => receiver.tokens.map((token) => token.sid), { timeout: 10_000 }).toEqual([revoked.sessionId, other.sessionId]);

    // Account deletion ends every session of the person: each one is told.
    const carolFirst = await signIn(platform, new OidcBrowser(), CAROL);
    const carolSecond = await signIn(platform, new OidcBrowser(), CAROL);
    await api().delete('/v1/account/me').set('Cookie', carolSecond.cookie).set('Origin', ACCOUNT_CENTER).expect(204);
    await expect.poll(() => receiver.tokens.length, { timeout: 10_000 }).toBe(4);
    const carols = receiver.tokens.slice(2);
    expect(carols.map((token) => token.sid).sort()).toEqual([carolFirst.sessionId, carolSecond.sessionId].sort());
    for (const token of carols) expect(token.sub).toBe(carolFirst.userId);

    const reasons = await db().raw(`SELECT id, end_reason FROM gateway_sessions WHERE id = ANY(?) ORDER BY ended_at`, [[revoked.sessionId, other.sessionId, carolFirst.sessionId, carolSecond.sessionId]]);
    expect(Object.fromEntries(reasons.rows.map((row: { id: string; end_reason: string }) => [row.id, row.end_reason]))).toEqual({
      [revoked.sessionId]: 'revoked',
      [other.sessionId]: 'expired',
      [carolFirst.sessionId]: 'account_deleted',
      [carolSecond.sessionId]: 'account_deleted',
    });
    await settle();
    expect(receiver.requests).toBe(4);
    expect(receiver.invalid).toEqual([]);
  });

  it('a platform without a backchannelLogoutUrl, or that never exchanged a code for the session, gets nothing', async () => {
    const withoutUrl = await addPlatform(harness);
    const neverExchanged = await platformWithReceiver();
    const told = await platformWithReceiver();

    // Signed in to the platform without a URL (exchanged) and to the one with a URL (never exchanged).
    const exchanged = await signIn(withoutUrl);
    const pendingBrowser = new OidcBrowser();
    const pending = await browserLogin(harness, neverExchanged.platform.key, ALICE, pendingBrowser);
    expect(pending.location.searchParams.get('code')).toMatch(/^handoff_/);
    const pendingSessionId = (await api().get('/v1/sessions').set('Cookie', cookieOf(pendingBrowser)).expect(200)).body.items.find((item: { current: boolean }) => item.current).id as string;
    // A third session that a platform with a URL did exchange: the worker is working.
    const control = await signIn(told.platform);

    await signOut(exchanged.cookie);
    await signOut(cookieOf(pendingBrowser));
    await signOut(control.cookie);
    await expect.poll(() => told.receiver.tokens.length, { timeout: 10_000 }).toBe(1);
    expect(told.receiver.tokens[0]!.sid).toBe(control.sessionId);
    await settle();
    expect(neverExchanged.receiver.requests).toBe(0);
    expect([...(await jobsOf(exchanged.sessionId)), ...(await jobsOf(pendingSessionId))]).toEqual([]);
    const ended = await db().raw(`SELECT count(*) AS n FROM gateway_sessions WHERE id = ANY(?) AND end_reason = 'sign_out'`, [[exchanged.sessionId, pendingSessionId]]);
    expect(ended.rows[0].n).toBe(2);
    // A URL registered afterwards tells nobody: those sessions ended untold, once.
    await updatePlatform(db(), withoutUrl.key, { backchannelLogoutUrl: neverExchanged.receiver.url }, CLI_ACTOR, rules());
    await settle();
    expect(neverExchanged.receiver.requests).toBe(0);
  });

  describe('the example BFF', () => {
    let bff: DemoBff;
    let bffUrl: string;
    let clientId: string;

    beforeAll(async () => {
      const port = await freePort();
      bffUrl = `http://127.0.0.1:${port}`;
      const created = await createPlatform(
        db(),
        {
          platformKey: 'BFF_BACKCHANNEL',
          displayName: 'BFF with back-channel logout',
          callbackUrl: `${bffUrl}/auth/callback`,
          backchannelLogoutUrl: `${bffUrl}/backchannel-logout`,
          allowedReturnUrls: [`${bffUrl}/`],
          defaultOnboardingMode: 'none',
        },
        CLI_ACTOR,
        rules(),
      );
      clientId = created.platform.clientId!;
      bff = await startDemoBff({ port, gatewayUrl: harness.baseUrl, platformKey: 'BFF_BACKCHANNEL', clientId, clientSecret: created.clientSecret, publicUrl: bffUrl });
    });
    afterAll(async () => {
      await bff?.close();
    });

    it('shows "Signed in as …" while its session lives and "You were signed out" once a logout token ended it', async () => {
      const browser = new OidcBrowser();
      const login = await browser.get(`${bff.url}/login`);
      const toIdp = await browser.followRedirects(login, { maxHops: 10 });
      const afterLogin = await browser.loginAtDevIdp(toIdp.response, ALICE.username, ALICE.password);
      const atCallback = await browser.followRedirects(afterLogin, { stopWhen: (url) => url.startsWith(`${bff.url}/auth/callback`), maxHops: 10 });
      // The BFF redirects after the exchange (issue 14 §7) to a page that shows the person.
      const callback = await browser.get(atCallback.stoppedAt!);
      expect(callback.status, callback.text).toBe(303);
      const landing = await browser.get(callback.location!);
      expect(landing.text).toContain('id="signed-in"');
      expect(landing.text).not.toMatch(/gwp_/); // the platform credential stays on the server
      const sessionId = /<code class="gateway-session">([^<]+)<\/code>/.exec(landing.text)![1]!;

      const home = await browser.get(`${bff.url}/`);
      expect(home.text).toContain('Signed in as');
      expect(home.text).toContain('Alice Example');
      expect(bff.sessionCount()).toBe(1);

      // The person signs out at the gateway (the account center): the BFF is told.
      await signOut(cookieOf(browser));
      await expect.poll(() => bff.sessionCount(), { timeout: 10_000 }).toBe(0);
      const after = await browser.get(`${bff.url}/welcome`);
      expect(after.text).toContain('You were signed out');
      expect(after.text).not.toContain('Signed in as');
      // Said once; then simply not signed in.
      expect((await browser.get(`${bff.url}/welcome`)).text).toContain('Not signed in');
      const { rows } = await db().raw(`SELECT end_reason FROM gateway_sessions WHERE id = ?`, [sessionId]);
      expect(rows[0].end_reason).toBe('sign_out');
    });

    it('its endpoint answers 400 to a bad token and 405 to anything but POST', async () => {
      const bad = await fetch(`${bff.url}/backchannel-logout`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ logout_token: 'eyJhbGciOiJub25lIn0.e30.' }).toString(),
      });
      expect(bad.status).toBe(400);
      expect(await bad.json()).toMatchObject({ error: 'invalid_request' });
      const missing = await fetch(`${bff.url}/backchannel-logout`, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: '' });
      expect(missing.status).toBe(400);
      expect((await fetch(`${bff.url}/backchannel-logout`)).status).toBe(405);
      expect(clientId).toMatch(/^pc_/);
    });
  });
});
