// The account center's "Sign out everywhere else" (DELETE /v1/sessions) and the automatic end of
// logins that never reached a platform. Real logins through the dev provider, real PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import { startHarness, addPlatform, browserLogin, startUrl, type Harness, type TestPlatform } from '../helpers/flowHarness.ts';
import { OidcBrowser } from '../helpers/oidcBrowser.ts';
import { endUnreachedSessions, UNREACHED_SESSION_SECONDS } from '../../src/services/sessions/ending.ts';
import { sha256 } from '../../src/security/crypto.ts';

const ALICE = { username: 'alice', password: 'alice-password' };
const ADMIN = { username: 'admin', password: 'admin-password' };
const ORIGIN = 'http://account.test';

describe('ending sessions in bulk and on their own', () => {
  let harness: Harness;
  let platform: TestPlatform;

  beforeAll(async () => {
    harness = await startHarness();
    platform = await addPlatform(harness);
  });
  afterAll(async () => {
    await harness?.close();
  });

  const app = () => harness.gateway.app;
  const cookieOf = (browser: OidcBrowser) => `gw_session=${browser.cookiesFor(`${harness.baseUrl}/`).gw_session}`;
  const me = (cookie: string) => request(app()).get('/v1/me').set('Cookie', cookie);
  const sessions = async (cookie: string) =>
    (await request(app()).get('/v1/sessions').set('Cookie', cookie).expect(200)).body.items as { id: string; current: boolean; platforms: string[] }[];
  async function exchange(location: URL) {
    const res = await request(app()).post('/v1/auth/exchange').set('Authorization', platform.basic).send({ code: location.searchParams.get('code') }).expect(200);
    return `gw_session=${res.body.session.gatewayToken}`;
  }
  /** Another login in the same browser (the provider's session is reused): its cookie replaces the first. */
  async function loginAgain(browser: OidcBrowser) {
    const isOwn = (url: string) => url.startsWith(harness.baseUrl) || url.startsWith(harness.idp.issuer);
    const followed = await browser.followRedirects(await browser.get(startUrl(harness, platform.key)), { stopWhen: (url) => !isOwn(url), maxHops: 10 });
    return new URL(followed.stoppedAt!);
  }
  /** Moves a session's login back in time (its handoff code too), keeping whether it was used since. */
  async function age(sessionId: string, seconds: number) {
    const by = `${seconds} seconds`;
    await harness.database.db.raw(
      `UPDATE gateway_sessions SET created_at = created_at - ?::interval, last_used_at = last_used_at - ?::interval WHERE id = ?`,
      [by, by, sessionId],
    );
    await harness.database.db.raw(`UPDATE handoff_codes SET expires_at = expires_at - ?::interval WHERE session_id = ?`, [by, sessionId]);
  }
  const endReason = async (id: string) => (await harness.database.db.raw(`SELECT end_reason FROM gateway_sessions WHERE id = ?`, [id])).rows[0].end_reason as string | null;

  it('"sign out everywhere else" ends every other session of the person in one request, platforms credentials too, audited; this one and other people\'s live on', async () => {
    // The platform listens for back-channel logouts (the URL is never reached: the job is what counts).
    await harness.database.db.raw(`UPDATE platforms SET backchannel_logout_url = 'https://bcl.example.test/logout' WHERE platform_key = ?`, [platform.key]);
    const first = await browserLogin(harness, platform.key, ALICE, new OidcBrowser());
    const credential = await exchange(first.location);
    const second = await browserLogin(harness, platform.key, ALICE, new OidcBrowser());
    const mine = await browserLogin(harness, platform.key, ALICE, new OidcBrowser());
    const bystander = await browserLogin(harness, platform.key, ADMIN, new OidcBrowser());
    const cookie = cookieOf(mine.browser);
    const before = await sessions(cookie);
    expect(before.length).toBeGreaterThanOrEqual(3);

    // Cookie writes are origin checked; a platform's credential may not do this.
    expect((await request(app()).delete('/v1/sessions').set('Cookie', cookie).set('Origin', 'https://evil.example').expect(403)).body.code).toBe('ORIGIN_NOT_ALLOWED');
    expect((await request(app()).delete('/v1/sessions').set('Cookie', credential).set('Origin', ORIGIN).expect(403)).body.code).toBe('FORBIDDEN');

    const done = await request(app()).delete('/v1/sessions').set('Cookie', cookie).set('Origin', ORIGIN).expect(200);
    expect(done.body.endedCount).toBe(before.length - 1);
    expect(done.headers['cache-control']).toBe('no-store');
    await me(cookieOf(first.browser)).expect(401);
    await me(credential).expect(401);
    await me(cookieOf(second.browser)).expect(401);
    await me(cookie).expect(200);
    await me(cookieOf(bystander.browser)).expect(200);
    const after = await sessions(cookie);
    expect(after.map((item) => item.current)).toEqual([true]);

    const ended = before.filter((item) => !item.current).map((item) => item.id);
    // The platform that exchanged a code for the first session is told (its job is queued).
    const exchanged = before.find((item) => item.platforms.includes(platform.key))!;
    const platformId = (await harness.database.db.raw(`SELECT id FROM platforms WHERE platform_key = ?`, [platform.key])).rows[0].id as string;
    const jobs = await harness.database.db.raw(`SELECT 1 FROM graphile_worker.jobs WHERE key = ?`, [`logout:${exchanged.id}:${platformId}`]);
    expect(jobs.rows).toHaveLength(1);
    const { rows } = await harness.database.db.raw(`SELECT session_id FROM audit_events WHERE action = 'session.revoke' AND session_id = ANY(?)`, [ended]);
    expect(rows.map((row: { session_id: string }) => row.session_id).sort()).toEqual([...ended].sort());

    // Again: nothing left to end.
    expect((await request(app()).delete('/v1/sessions').set('Cookie', cookie).set('Origin', ORIGIN).expect(200)).body.endedCount).toBe(0);
  });

  it(`a login that never reached its platform, replaced in the same browser by a newer one, ends ${UNREACHED_SESSION_SECONDS / 60} minutes later; the browser's own and the used ones stay`, async () => {
    const browser = new OidcBrowser();
    await browserLogin(harness, platform.key, ALICE, browser);
    // This first session's cookie is used (the list is asked with it): a browser holds it.
    const usedId = (await sessions(cookieOf(browser))).find((item) => item.current)!.id;
    await expect.poll(async () => (await harness.database.db.raw(`SELECT last_used_at > created_at AS used FROM gateway_sessions WHERE id = ?`, [usedId])).rows[0].used).toBe(true);
    // A second login whose code is never exchanged and whose cookie a third login replaces at once.
    const abandoned = await loginAgain(browser);
    const abandonedId = (await harness.database.db.raw(`SELECT session_id FROM handoff_codes WHERE code_digest = ?`, [sha256(abandoned.searchParams.get('code')!)])).rows[0]?.session_id as string;
    expect(abandonedId).toBeDefined();
    const reached = await loginAgain(browser);
    await exchange(reached);
    const ownId = (await sessions(cookieOf(browser))).find((item) => item.current)!.id;

    // Too early: nothing ends.
    await age(abandonedId, UNREACHED_SESSION_SECONDS - 60);
    expect(await endUnreachedSessions(harness.database.db)).toBe(0);

    await age(abandonedId, 120);
    await age(usedId, UNREACHED_SESSION_SECONDS + 60);
    await age(ownId, UNREACHED_SESSION_SECONDS + 60);
    expect(await endUnreachedSessions(harness.database.db)).toBe(1);
    expect(await endReason(abandonedId)).toBe('unreached');
    expect(await endReason(usedId)).toBeNull();
    expect(await endReason(ownId)).toBeNull();
    const listed = (await sessions(cookieOf(browser))).map((item) => item.id);
    expect(listed).not.toContain(abandonedId);
    expect(listed).toContain(ownId);
  });
});
