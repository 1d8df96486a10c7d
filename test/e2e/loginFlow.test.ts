import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import { startHarness, addPlatform, browserLogin, startUrl, PLATFORM_CALLBACK, PLATFORM_ROOT, type Harness, type TestPlatform } from '../helpers/flowHarness.ts';
import { OidcBrowser } from '../helpers/oidcBrowser.ts';
import { sha256 } from '../../src/security/crypto.ts';

const ALICE = { username: 'alice', password: 'alice-password' };
const ADMIN = { username: 'admin', password: 'admin-password' };

/** The BFF's side: POST /v1/auth/exchange with the platform's Basic credentials. */
function exchange(harness: Harness, platform: Pick<TestPlatform, 'basic'>, code: string) {
  return request(harness.gateway.app)
    .post('/v1/auth/exchange')
    .set('Authorization', platform.basic)
    .set('Content-Type', 'application/json')
    .send({ code });
}

function handoffCode(location: URL): string {
  expect(`${location.origin}${location.pathname}`).toBe(PLATFORM_CALLBACK);
  const code = location.searchParams.get('code');
  expect(code).toMatch(/^handoff_[A-Za-z0-9_-]{43,}$/);
  return code!;
}

/** Onboarding values as the (pending) onboarding endpoints will write them; set directly here. */
async function addRequiredField(harness: Harness, platformKey: string, fieldKey: string) {
  await harness.database.db.raw(
    `WITH p AS (UPDATE platforms SET requirement_version = requirement_version + 1 WHERE platform_key = ? RETURNING id)
     INSERT INTO onboarding_fields (platform_id, field_key, label, field_type, required) SELECT id, ?, 'Company', 'TEXT', true FROM p`,
    [platformKey, fieldKey],
  );
}

describe('login flow end to end (dev identity provider, real HTTP)', () => {
  let harness: Harness;

  beforeAll(async () => {
    harness = await startHarness();
  });
  afterAll(async () => {
    await harness?.close();
  });

  it('mode none: login, handoff to the platform callback, exchange as the BFF', async () => {
    const platform = await addPlatform(harness, { defaultOnboardingMode: 'none' });
    const { callback, location, browser } = await browserLogin(harness, platform.key, ALICE);

    // Step 8: the gateway cookie
    const setCookie = callback.headers.getSetCookie().find((line) => line.startsWith('gw_session='));
    expect(setCookie).toBeDefined();
    expect(setCookie).toMatch(/; HttpOnly/i);
    expect(setCookie).toMatch(/; Path=\//);
    expect(setCookie).toMatch(/; SameSite=Lax/i);
    expect(setCookie).not.toMatch(/; Secure/i); // Secure only in production
    expect(browser.cookiesFor(`${harness.baseUrl}/v1/me`).gw_session).toEqual(expect.any(String));

    const code = handoffCode(location);
    const res = await exchange(harness, platform, code).expect(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(Object.keys(res.body).sort()).toEqual(['authentication', 'onboarding', 'permissions', 'platform', 'returnTo', 'session', 'user']);
    expect(res.body).toEqual({
      session: { id: expect.any(String), expiresAt: expect.any(String), gatewayToken: expect.any(String) },
      user: { id: expect.any(String), sub: 'dev-user-alice' },
      platform: { key: platform.key },
      onboarding: { status: 'COMPLETE', requirementVersion: 1, missingFields: [], canCompleteCentrally: true, missingDocuments: [], acceptedDocuments: [] },
      permissions: [],
      returnTo: `${PLATFORM_ROOT}home`,
      // When and how alice signed in (the ID token's auth_time and amr), and that nothing more was asked.
      authentication: {
        authTime: expect.any(String),
        amr: ['pwd'],
        acr: null,
        requested: { maxAge: null, forceLogin: false, secondFactor: false, stepUp: false },
      },
    });
    // The gatewayToken is the platform's own credential, never the browser's cookie.
    const browserToken = browser.cookiesFor(`${harness.baseUrl}/`).gw_session;
    expect(browserToken).toMatch(/^gws_/);
    expect(res.body.session.gatewayToken).toMatch(/^gwp_[A-Za-z0-9_-]{43}$/);
    expect(res.body.session.gatewayToken).not.toBe(browserToken);
    // No identity-provider token anywhere in the body.
    expect(JSON.stringify(res.body)).not.toMatch(/eyJ[A-Za-z0-9_-]+\.eyJ/);
    // Only the digest of the platform credential is stored, bound to the session and platform.
    const { rows } = await harness.database.db.raw(
      `SELECT c.token_digest, p.platform_key FROM platform_credentials c JOIN platforms p ON p.id = c.platform_id WHERE c.session_id = ?`,
      [res.body.session.id],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0].platform_key).toBe(platform.key);
    expect(rows[0].token_digest).toEqual(sha256(res.body.session.gatewayToken));
  });

  it('copies exactly the permission scopes of the access token onto the session', async () => {
    const platform = await addPlatform(harness, { defaultOnboardingMode: 'none' });
    const { location } = await browserLogin(harness, platform.key, ADMIN);
    const res = await exchange(harness, platform, handoffCode(location)).expect(200);
    expect(res.body.user.sub).toBe('dev-user-admin');
    expect(res.body.permissions).toEqual(['platforms:admin', 'onboarding:schema:read', 'onboarding:schema:write', 'support:access']);
  });

  it('mode platform: the handoff is issued at once, with the onboarding status for the platform to act on', async () => {
    const platform = await addPlatform(harness, { defaultOnboardingMode: 'platform' });
    await addRequiredField(harness, platform.key, 'company');
    const { location } = await browserLogin(harness, platform.key, ALICE);
    const res = await exchange(harness, platform, handoffCode(location)).expect(200);
    expect(res.body.onboarding).toEqual({ status: 'NOT_STARTED', requirementVersion: 2, missingFields: ['company'], canCompleteCentrally: true, missingDocuments: [], acceptedDocuments: [] });
  });

  it('mode central: incomplete onboarding goes to the account center, resume re-evaluates, then hands off once', async () => {
    const platform = await addPlatform(harness, { defaultOnboardingMode: 'central' });
    await addRequiredField(harness, platform.key, 'company');
    const { location, browser } = await browserLogin(harness, platform.key, ALICE);

    expect(`${location.origin}${location.pathname}`).toBe(`http://account.test/onboarding/${platform.key}`);
    const transactionId = location.searchParams.get('resume');
    expect(transactionId).toMatch(/^[0-9a-f-]{36}$/);
    const resumeUrl = `${harness.baseUrl}/v1/auth/resume?transaction=${transactionId}`;

    // Still incomplete (a client flag is never trusted): back to the account center.
    const again = await browser.get(`${resumeUrl}&completed=true`);
    expect(again.status, again.text).toBe(302);
    expect(again.location).toBe(location.href);

    // The user completes onboarding in the account center (values + complete).
    const { rows } = await harness.database.db.raw('SELECT id FROM users WHERE sub = ?', ['dev-user-alice']);
    await harness.database.db.raw(
      `INSERT INTO onboarding_values (user_id, platform_id, field_key, value)
       SELECT ?, id, 'company', '"Example Ltd"'::jsonb FROM platforms WHERE platform_key = ?`,
      [rows[0].id, platform.key],
    );
    await harness.database.db.raw(
      `UPDATE platform_memberships m SET completed_requirement_version = p.requirement_version, completed_at = now()
         FROM platforms p WHERE p.id = m.platform_id AND p.platform_key = ? AND m.user_id = ?`,
      [platform.key, rows[0].id],
    );

    const done = await browser.get(resumeUrl);
    expect(done.status).toBe(302);
    const code = handoffCode(new URL(done.location!));
    const res = await exchange(harness, platform, code).expect(200);
    expect(res.body.onboarding).toEqual({ status: 'COMPLETE', requirementVersion: 2, missingFields: [], canCompleteCentrally: true, missingDocuments: [], acceptedDocuments: [] });

    // At most one handoff per transaction.
    const conflict = await browser.get(resumeUrl, { accept: 'application/json' });
    expect(conflict.status).toBe(409);
    expect(JSON.parse(conflict.text).code).toBe('CONFLICT');
  });

  it('mode central with nothing to ask hands off directly', async () => {
    const platform = await addPlatform(harness, { defaultOnboardingMode: 'central' });
    const { location } = await browserLogin(harness, platform.key, ALICE);
    const res = await exchange(harness, platform, handoffCode(location)).expect(200);
    expect(res.body.onboarding.status).toBe('COMPLETE');
  });

  describe('resume guards', () => {
    let platform: TestPlatform;
    let aliceBrowser: OidcBrowser;
    let transactionId: string;

    beforeAll(async () => {
      platform = await addPlatform(harness, { defaultOnboardingMode: 'central' });
      await addRequiredField(harness, platform.key, 'company');
      const login = await browserLogin(harness, platform.key, ALICE);
      aliceBrowser = login.browser;
      transactionId = login.location.searchParams.get('resume')!;
    });

    it('401 without the gateway cookie', async () => {
      const res = await request(harness.gateway.app).get(`/v1/auth/resume?transaction=${transactionId}`).expect(401);
      expect(res.body.code).toBe('UNAUTHENTICATED');
    });

    it('401 with an unknown cookie value', async () => {
      const res = await request(harness.gateway.app).get(`/v1/auth/resume?transaction=${transactionId}`).set('Cookie', 'gw_session=forged').expect(401);
      expect(res.body.code).toBe('UNAUTHENTICATED');
    });

    it('401 SESSION_EXPIRED once the session has expired', async () => {
      const other = await browserLogin(harness, platform.key, ALICE);
      const token = other.browser.cookiesFor(`${harness.baseUrl}/`).gw_session!;
      await harness.database.db.raw(`UPDATE gateway_sessions SET expires_at = now() - interval '1 second' WHERE id = (SELECT session_id FROM auth_transactions WHERE id = ?)`, [other.location.searchParams.get('resume')]);
      const res = await request(harness.gateway.app).get(`/v1/auth/resume?transaction=${other.location.searchParams.get('resume')}`).set('Cookie', `gw_session=${token}`).expect(401);
      expect(res.body.code).toBe('SESSION_EXPIRED');
    });

    it('404 for an unknown transaction, and for another user\'s', async () => {
      const unknown = await aliceBrowser.get(`${harness.baseUrl}/v1/auth/resume?transaction=00000000-0000-4000-8000-000000000000`, { accept: 'application/json' });
      expect(unknown.status).toBe(404);
      expect(JSON.parse(unknown.text).code).toBe('TRANSACTION_NOT_FOUND');
      const admin = await browserLogin(harness, platform.key, ADMIN);
      const foreign = await admin.browser.get(`${harness.baseUrl}/v1/auth/resume?transaction=${transactionId}`, { accept: 'application/json' });
      expect(foreign.status).toBe(404);
    });

    it('404 for a transaction that was started but never consumed', async () => {
      const started = await request(harness.gateway.app).get(new URL(startUrl(harness, platform.key)).pathname + new URL(startUrl(harness, platform.key)).search).expect(302);
      expect(started.headers.location).toContain(harness.idp.issuer);
      const { rows } = await harness.database.db.raw('SELECT id FROM auth_transactions WHERE consumed_at IS NULL ORDER BY created_at DESC LIMIT 1');
      const res = await aliceBrowser.get(`${harness.baseUrl}/v1/auth/resume?transaction=${rows[0].id}`, { accept: 'application/json' });
      expect(res.status).toBe(404);
    });

    it('400 for a malformed transaction id; an HTML page for a browser', async () => {
      const res = await aliceBrowser.get(`${harness.baseUrl}/v1/auth/resume?transaction=not-a-uuid`, { accept: 'text/html' });
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toMatch(/text\/html/);
      expect(res.text).toMatch(/sign in again/i);
    });

    it('404 once the platform is deactivated', async () => {
      await harness.database.db.raw('UPDATE platforms SET active = false WHERE platform_key = ?', [platform.key]);
      try {
        const res = await aliceBrowser.get(`${harness.baseUrl}/v1/auth/resume?transaction=${transactionId}`, { accept: 'application/json' });
        expect(res.status).toBe(404);
        expect(JSON.parse(res.text).code).toBe('PLATFORM_NOT_FOUND');
      } finally {
        await harness.database.db.raw('UPDATE platforms SET active = true WHERE platform_key = ?', [platform.key]);
      }
    });
  });

  describe('state and handoff codes are single use', () => {
    it('a replayed callback (same state and code) gives 404', async () => {
      const platform = await addPlatform(harness);
      const { callback } = await browserLogin(harness, platform.key, ALICE);
      const replay = await new OidcBrowser().get(callback.url, { accept: 'application/json' });
      expect(replay.status).toBe(404);
      expect(JSON.parse(replay.text).code).toBe('TRANSACTION_NOT_FOUND');
    });

    it('a used handoff code gives 404, with the same body as an unknown one', async () => {
      const platform = await addPlatform(harness);
      const { location } = await browserLogin(harness, platform.key, ALICE);
      const code = handoffCode(location);
      await exchange(harness, platform, code).expect(200);
      const used = await exchange(harness, platform, code).expect(404);
      const unknown = await exchange(harness, platform, `handoff_${'x'.repeat(43)}`).expect(404);
      expect(used.body.code).toBe('HANDOFF_CODE_INVALID');
      const strip = (body: Record<string, unknown>) => ({ ...body, requestId: undefined });
      expect(strip(used.body)).toEqual(strip(unknown.body));
    });

    it('an expired handoff code gives 404', async () => {
      const platform = await addPlatform(harness);
      const { location } = await browserLogin(harness, platform.key, ALICE);
      await harness.database.db.raw(`UPDATE handoff_codes SET expires_at = now() - interval '1 second' WHERE consumed_at IS NULL`);
      await exchange(harness, platform, handoffCode(location)).expect(404);
    });

    it('the handoff lives AUTH_HANDOFF_TTL_SECONDS', async () => {
      const platform = await addPlatform(harness);
      await browserLogin(harness, platform.key, ALICE);
      const { rows } = await harness.database.db.raw(
        `SELECT extract(epoch FROM h.expires_at - h.created_at) AS ttl FROM handoff_codes h JOIN platforms p ON p.id = h.platform_id WHERE p.platform_key = ?`,
        [platform.key],
      );
      expect(Number(rows[0].ttl)).toBe(60);
    });

    it('a code issued to one platform cannot be redeemed with another platform\'s credentials, and stays usable by its own', async () => {
      const mine = await addPlatform(harness);
      const theirs = await addPlatform(harness);
      const { location } = await browserLogin(harness, mine.key, ALICE);
      const code = handoffCode(location);
      const wrong = await exchange(harness, theirs, code).expect(404);
      expect(wrong.body.code).toBe('HANDOFF_CODE_INVALID');
      await exchange(harness, mine, code).expect(200);
    });

    it('a page script (e.g. "Try it out" in /docs) gets the 401 without a Basic challenge, so the browser shows no password dialog', async () => {
      const script = await request(harness.gateway.app).post('/v1/auth/exchange').set('Sec-Fetch-Dest', 'empty').set('Sec-Fetch-Mode', 'cors').send({ code: 'handoff_xyz123' }).expect(401);
      expect(script.body.code).toBe('INVALID_CLIENT_CREDENTIALS');
      expect(script.headers['www-authenticate']).toBeUndefined();
      const server = await request(harness.gateway.app).post('/v1/auth/exchange').send({ code: 'handoff_xyz123' }).expect(401);
      expect(server.headers['www-authenticate']).toMatch(/^Basic realm=/);
    });

    it('bad Basic credentials give 401 with a challenge, and do not burn the code', async () => {
      const platform = await addPlatform(harness);
      const { location } = await browserLogin(harness, platform.key, ALICE);
      const code = handoffCode(location);
      const bad = await exchange(harness, { basic: `Basic ${Buffer.from(`${platform.clientId}:wrong-secret`).toString('base64')}` }, code).expect(401);
      expect(bad.body.code).toBe('INVALID_CLIENT_CREDENTIALS');
      expect(bad.headers['www-authenticate']).toMatch(/^Basic realm=/);
      const none = await request(harness.gateway.app).post('/v1/auth/exchange').send({ code }).expect(401);
      expect(none.headers['www-authenticate']).toMatch(/^Basic/);
      await exchange(harness, platform, code).expect(200);
    });

    it('the exchange body is validated: prefix and length', async () => {
      const platform = await addPlatform(harness);
      const noPrefix = await exchange(harness, platform, 'code_123456789').expect(400);
      expect(noPrefix.body.errors).toEqual([expect.objectContaining({ pointer: '/body/code' })]);
      await exchange(harness, platform, `handoff_${'a'.repeat(193)}`).expect(400);
      const extra = await request(harness.gateway.app).post('/v1/auth/exchange').set('Authorization', platform.basic).send({ code: 'handoff_abcdefgh', extra: 1 }).expect(400);
      expect(extra.body.errors).toEqual([expect.objectContaining({ pointer: '/body/extra' })]);
    });
  });

  describe('concurrency against real PostgreSQL', () => {
    it('50 concurrent exchanges of one code: exactly one 200', async () => {
      const platform = await addPlatform(harness);
      const { location } = await browserLogin(harness, platform.key, ALICE);
      const code = handoffCode(location);
      const results = await Promise.all(Array.from({ length: 50 }, () => exchange(harness, platform, code)));
      const statuses = results.map((res) => res.status);
      expect(statuses.filter((status) => status === 200)).toHaveLength(1);
      // Every loser is refused as a used code: never a second 200, never a 5xx, and never a 429
      // (refused codes spend no budget of the platform: test/e2e/exchangeLockout.test.ts).
      expect(statuses.filter((status) => status === 404)).toHaveLength(49);
    });

    it('20 concurrent callbacks with one state: at most one success', async () => {
      const platform = await addPlatform(harness);
      const browser = new OidcBrowser();
      const start = await browser.get(startUrl(harness, platform.key));
      const toLogin = await browser.followRedirects(start, { maxHops: 10 });
      const afterLogin = await browser.loginAtDevIdp(toLogin.response, ALICE.username, ALICE.password);
      const followed = await browser.followRedirects(afterLogin, { stopWhen: (url) => url.startsWith(`${harness.baseUrl}/v1/auth/callback`), maxHops: 10 });
      const callbackUrl = followed.stoppedAt!;
      // The same browser's binding cookie on all twenty: only single use decides.
      const cookie = Object.entries(browser.cookiesFor(callbackUrl)).map(([name, value]) => `${name}=${value}`).join('; ');
      const results = await Promise.all(Array.from({ length: 20 }, () => new OidcBrowser().get(callbackUrl, { accept: 'application/json', cookie })));
      const statuses = results.map((res) => res.status);
      expect(statuses.filter((status) => status === 302)).toHaveLength(1);
      expect(statuses.filter((status) => status === 404)).toHaveLength(19);
      const { rows } = await harness.database.db.raw(
        `SELECT count(*) AS n FROM handoff_codes h JOIN platforms p ON p.id = h.platform_id WHERE p.platform_key = ?`,
        [platform.key],
      );
      expect(Number(rows[0].n)).toBe(1);
    });
  });

  it('start persists digests and ciphertext only', async () => {
    const platform = await addPlatform(harness);
    const res = await request(harness.gateway.app).get(`/v1/auth/start?platformKey=${platform.key}&returnTo=/deep/link?x=1`).expect(302);
    const authorize = new URL(res.headers.location!);
    const state = authorize.searchParams.get('state')!;
    const nonce = authorize.searchParams.get('nonce')!;
    expect(state.length).toBeGreaterThanOrEqual(43);
    expect(nonce.length).toBeGreaterThanOrEqual(43);
    expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
    const { rows } = await harness.database.db.raw(
      `SELECT t.*, extract(epoch FROM t.expires_at - t.created_at) AS ttl FROM auth_transactions t JOIN platforms p ON p.id = t.platform_id WHERE p.platform_key = ?`,
      [platform.key],
    );
    const row = rows[0];
    expect(Number(row.ttl)).toBe(600);
    expect(row.return_to).toBe(`${PLATFORM_ROOT}deep/link?x=1`);
    const stored = JSON.stringify(row);
    expect(stored).not.toContain(state);
    expect(stored).not.toContain(nonce);
    expect(row.pkce_verifier_sealed).toMatch(/^v1\.test\./);
    // The browser binding: a cookie for this transaction only, and only its digest stored. It
    // outlives the login by an hour (the way back of a late callback) and carries its target sealed.
    const binding = (res.headers['set-cookie'] as unknown as string[]).find((line) => line.startsWith(`gw_session_login_${row.id}=`));
    expect(binding).toMatch(/; Max-Age=4200; Path=\/v1\/auth\/callback; Expires=[^;]+; HttpOnly; SameSite=Lax$/);
    const [secret, sealed] = /=([^.;]+)\.([^;]+)/.exec(binding!)!.slice(1) as [string, string];
    expect(sealed).toMatch(/^v1\.test\./);
    expect(decodeURIComponent(sealed)).not.toContain('deep/link');
    expect(row.browser_binding_digest).toEqual(sha256(secret));
    expect(JSON.stringify(row)).not.toContain(secret);
  });
});
