// Security Event Tokens to platforms (issue 26; RFC 8417 tokens, RFC 8935 push, RFC 8936 poll):
// real logins through the dev identity provider, real HTTP, graphile-worker on the test database.
// The push receivers are small node:http servers on 127.0.0.1 that verify every SET against the
// gateway's published key set (/.well-known/jwks.json, fetched over HTTP); poll answers are
// verified the same way.
//
// graphile-worker's backoff cannot be shortened; retries are driven with its own SQL function
// `graphile_worker.reschedule_jobs` (as test/e2e/backchannelOut.test.ts does).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import request from 'supertest';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify, type JWTPayload } from 'jose';
import { startHarness, addPlatform, browserLogin, type Harness, type TestPlatform } from '../helpers/flowHarness.ts';
import { OidcBrowser } from '../helpers/oidcBrowser.ts';
import { DEV_USERS, type DevIdpUser } from '../../src/devidp/users.ts';
import { createDevIdpAccounts } from '../../src/services/identityProvider/devIdp.ts';
import { createLogger } from '../../src/logger.ts';
import { freePort } from '../../src/db/embedded.ts';
import { CLI_ACTOR, updatePlatform } from '../../src/services/registry/index.ts';
import { createFieldDefinition } from '../../src/services/onboarding/schema.ts';
import { purgeDeletedAccounts } from '../../src/services/account/deletion.ts';
import { startBackchannelWorker, type BackchannelWorker } from '../../src/services/backchannel/worker.ts';
import { generateSigningKeySpec } from '../../src/security/signingKeys.ts';
import { recordPersonEvent } from '../../src/services/events/record.ts';
import { createDraft, publishVersion } from '../../src/services/documents/administration.ts';
import { purgeSettledEvents, SECURITY_EVENT_MAX_ATTEMPTS, SETTLED_EVENT_RETENTION_DAYS } from '../../src/services/events/repository.ts';
import { SECURITY_EVENT_TYPES } from '../../src/services/events/types.ts';
import type { Metrics } from '../../src/observability/metrics.ts';

const ACCOUNT_CENTER = 'http://account.test';
const SIGNING_KEYS = `${generateSigningKeySpec('set-new')},${generateSigningKeySpec('set-old')}`;
const POLL_MS = 100;
const OUTBOUND = { OUTBOUND_ALLOWED_PRIVATE_RANGES: '127.0.0.0/8' };

function person(name: string): DevIdpUser & { login: { username: string; password: string } } {
  const user = {
    sub: `dev-user-${name}`,
    username: name,
    password: `${name}-password`,
    email: `${name}@example.test`,
    givenName: name[0]!.toUpperCase() + name.slice(1),
    familyName: 'Events',
    permissions: [],
  };
  return { ...user, login: { username: user.username, password: user.password } };
}
const DORA = person('dora');
const EVAN = person('evan');
const FIONA = person('fiona');
const GUS = person('gus');
const IVY = person('ivy');
const HANK = person('hank');
const JILL = person('jill');
const ADMIN = { username: 'admin', password: 'admin-password' };

interface Receiver {
  url: string;
  /** 'ok' answers 202 to a verified SET; 'unavailable' 503; 'reject' 400 with an RFC 8935 error. */
  mode: 'ok' | 'unavailable' | 'reject';
  sets: JWTPayload[];
  requests: number;
  invalid: string[];
}

describe('security events to platforms', () => {
  let harness: Harness;
  let worker: BackchannelWorker;
  const servers: http.Server[] = [];
  let jwks: ReturnType<typeof createRemoteJWKSet>;

  beforeAll(async () => {
    harness = await startHarness(
      { GATEWAY_SIGNING_KEYS: SIGNING_KEYS, ...OUTBOUND },
      { users: [...DEV_USERS, DORA, EVAN, FIONA, GUS, IVY, HANK, JILL] },
      { idpAccounts: (idp) => createDevIdpAccounts(idp.accounts, createLogger('silent')) },
    );
    jwks = createRemoteJWKSet(new URL('/.well-known/jwks.json', harness.baseUrl));
    worker = await startBackchannelWorker({ ...harness.gateway.deps, logger: createLogger('silent') }, { pollIntervalMs: POLL_MS });
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

  /** What a platform's receiver checks (RFC 8417 §2, RFC 8935 §2): signature by a published key, typ, iss, aud, iat, one event. */
  async function verifySet(token: string, clientId: string): Promise<JWTPayload> {
    const { payload, protectedHeader } = await jwtVerify(token, jwks, { issuer: harness.baseUrl, audience: clientId, typ: 'secevent+jwt', algorithms: ['ES256'] });
    expect(protectedHeader.kid).toBe('set-new');
    expect(payload.iat).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000));
    expect(Object.keys(payload.events as object)).toHaveLength(1);
    expect(payload).not.toHaveProperty('exp');
    return payload;
  }

  async function startReceiver(clientId: string): Promise<Receiver> {
    const port = await freePort();
    const receiver: Receiver = { url: `http://127.0.0.1:${port}/security-events`, mode: 'ok', sets: [], requests: 0, invalid: [] };
    const server = http.createServer(async (req, res) => {
      receiver.requests += 1;
      if (receiver.mode === 'unavailable') return void res.writeHead(503).end();
      let body = '';
      for await (const chunk of req) body += chunk;
      if (receiver.mode === 'reject') {
        return void res.writeHead(400, { 'Content-Type': 'application/json' }).end(JSON.stringify({ err: 'invalid_audience', description: 'not for us' }));
      }
      try {
        expect(req.method).toBe('POST');
        expect(req.headers['content-type']).toBe('application/secevent+jwt');
        receiver.sets.push(await verifySet(body, clientId));
        res.writeHead(202).end();
      } catch (error) {
        receiver.invalid.push((error as Error).message);
        res.writeHead(400, { 'Content-Type': 'application/json' }).end(JSON.stringify({ err: 'invalid_request', description: 'bad SET' }));
      }
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', () => resolve()));
    return receiver;
  }

  async function pushPlatform(): Promise<{ platform: TestPlatform; receiver: Receiver; id: string }> {
    const platform = await addPlatform(harness);
    const receiver = await startReceiver(platform.clientId);
    await updatePlatform(db(), platform.key, { eventDelivery: 'push', eventReceiverUrl: receiver.url }, CLI_ACTOR, rules());
    return { platform, receiver, id: await platformIdOf(platform.key) };
  }

  async function pollPlatform(): Promise<{ platform: TestPlatform; id: string }> {
    const platform = await addPlatform(harness);
    await updatePlatform(db(), platform.key, { eventDelivery: 'poll' }, CLI_ACTOR, rules());
    return { platform, id: await platformIdOf(platform.key) };
  }

  async function platformIdOf(key: string): Promise<string> {
    return (await db().raw(`SELECT id FROM platforms WHERE platform_key = ?`, [key])).rows[0].id;
  }

  /** Signs the person in to each platform in one browser (single sign-on after the first); returns the browser's session cookie and the user id. */
  async function signInTo(user: { username: string; password: string }, platforms: TestPlatform[]): Promise<{ cookie: string; userId: string }> {
    const browser = new OidcBrowser();
    let userId = '';
    for (const [index, platform] of platforms.entries()) {
      let location: URL;
      if (index === 0) location = (await browserLogin(harness, platform.key, user, browser)).location;
      else {
        const isOwn = (url: string) => url.startsWith(harness.baseUrl) || url.startsWith(harness.idp.issuer);
        const start = `${harness.baseUrl}/v1/auth/start?platformKey=${platform.key}&returnTo=${encodeURIComponent('https://bff.example.test/home')}`;
        const followed = await browser.followRedirects(await browser.get(start), { stopWhen: (url) => !isOwn(url), maxHops: 10 });
        location = new URL(followed.stoppedAt!);
      }
      const exchanged = await api().post('/v1/auth/exchange').set('Authorization', platform.basic).send({ code: location.searchParams.get('code') }).expect(200);
      userId = exchanged.body.user.id;
    }
    return { cookie: `gw_session=${browser.cookiesFor(`${harness.baseUrl}/`).gw_session}`, userId };
  }

  const poll = (platform: TestPlatform, body: Record<string, unknown> = {}) => api().post('/v1/events/poll').set('Authorization', platform.basic).send(body);

  async function recordOf(jti: string) {
    return (await db().raw(`SELECT status, attempts, error_code AS "errorCode", last_error AS "lastError" FROM security_events WHERE id = ?`, [jti])).rows[0];
  }

  async function jobOf(jti: string): Promise<{ attempts: number; locked_at: Date | null } | undefined> {
    return (await db().raw(`SELECT attempts, locked_at FROM graphile_worker.jobs WHERE key = ?`, [`secevent:${jti}`])).rows[0];
  }

  async function retryNow(jti: string, maxAttempts: number | null = null) {
    await db().raw(`SELECT graphile_worker.reschedule_jobs(ARRAY(SELECT id FROM graphile_worker.jobs WHERE key = ?), run_at => now(), max_attempts => ?)`, [`secevent:${jti}`, maxAttempts]);
  }

  const settle = () => new Promise((resolve) => setTimeout(resolve, 10 * POLL_MS));

  it('an account deletion reaches both platforms the person used, verified against the published keys; a platform the person never used, or one without event delivery, hears nothing', async () => {
    const pushed = await pushPlatform();
    const polled = await pollPlatform();
    const silent = await addPlatform(harness); // eventDelivery none
    const stranger = await pushPlatform(); // DORA never signs in to it
    const dora = await signInTo(DORA.login, [pushed.platform, polled.platform, silent]);

    const deleted = await api().delete('/v1/account/me').set('Cookie', dora.cookie).set('Origin', ACCOUNT_CENTER).expect(204);
    // The deleting browser gets a receipt cookie, sent only to /v1/account/deletion.
    const receiptCookie = ([] as string[]).concat(deleted.headers['set-cookie'] ?? []).find((cookie) => cookie.startsWith('gw_session_deletion='))!;
    expect(receiptCookie).toMatch(/; Path=\/v1\/account\/deletion; .*HttpOnly; SameSite=Lax/);
    const receipt = receiptCookie.split(';')[0]!;
    const deletionStatus = () => api().get('/v1/account/deletion').set('Cookie', receipt);
    await api().get('/v1/account/deletion').expect(404);
    await api().get('/v1/account/deletion').set('Cookie', 'gw_session_deletion=forged').expect(404);

    // Push: the receiver verified the SET and answered 202; the record says delivered.
    await expect.poll(() => pushed.receiver.sets.length, { timeout: 10_000 }).toBe(1);
    const set = pushed.receiver.sets[0]!;
    expect(set).toMatchObject({ sub: dora.userId, aud: pushed.platform.clientId, iss: harness.baseUrl });
    const deletion = (set.events as Record<string, { erase_after: number }>)[SECURITY_EVENT_TYPES.accountDeletionScheduled]!;
    const retentionSeconds = harness.gateway.config.accountRetentionDays * 86_400;
    expect(deletion.erase_after).toBeGreaterThanOrEqual(set.iat! + retentionSeconds - 5);
    expect(deletion.erase_after).toBeLessThanOrEqual(set.iat! + retentionSeconds + 5);
    await expect.poll(async () => (await recordOf(set.jti!)).status, { timeout: 10_000 }).toBe('delivered');

    // Poll: the other platform fetches it with its credentials.
    const first = await poll(polled.platform, { maxEvents: 10 }).expect(200);
    expect(first.headers['cache-control']).toBe('no-store');
    const jtis = Object.keys(first.body.sets);
    expect(jtis).toHaveLength(1);
    expect(first.body.moreAvailable).toBe(false);
    const polledSet = await verifySet(first.body.sets[jtis[0]!], polled.platform.clientId);
    expect(polledSet).toMatchObject({ jti: jtis[0], sub: dora.userId, events: { [SECURITY_EVENT_TYPES.accountDeletionScheduled]: { erase_after: expect.any(Number) } } });
    expect(decodeProtectedHeader(first.body.sets[jtis[0]!]).typ).toBe('secevent+jwt');

    // Another platform's credential sees none of it and cannot acknowledge it.
    const foreign = await poll(stranger.platform, { ack: jtis, setErrs: { [jtis[0]!]: { err: 'x', description: 'y' } } }).expect(200);
    expect(foreign.body).toEqual({ sets: {}, moreAvailable: false });
    expect((await recordOf(jtis[0]!)).status).toBe('pending');
    // Not acknowledged: offered again, same jti and iat.
    const again = await poll(polled.platform).expect(200);
    expect(Object.keys(again.body.sets)).toEqual(jtis);
    expect((await verifySet(again.body.sets[jtis[0]!], polled.platform.clientId)).iat).toBe(polledSet.iat);
    // Acknowledged: delivered, and gone from the next poll.
    expect((await poll(polled.platform, { ack: jtis, maxEvents: 0 }).expect(200)).body).toEqual({ sets: {}, moreAvailable: false });
    expect((await recordOf(jtis[0]!)).status).toBe('delivered');
    expect((await poll(polled.platform).expect(200)).body.sets).toEqual({});

    // The deleting browser sees both platforms' acknowledgements, and nothing of the others.
    const status = (await deletionStatus().expect(200)).body;
    expect(status.platforms.map((platform: { platformKey: string; status: string }) => [platform.platformKey, platform.status]).sort()).toEqual(
      [[pushed.platform.key, 'delivered'], [polled.platform.key, 'delivered']].sort(),
    );
    expect(Date.parse(status.eraseAfter) - Date.parse(status.deletedAt)).toBe(harness.gateway.config.accountRetentionDays * 86_400_000);

    // Nobody else got anything.
    await settle();
    expect(stranger.receiver.requests).toBe(0);
    const others = await db().raw(`SELECT count(*)::int AS n FROM security_events WHERE user_id = ? AND platform_id NOT IN (?, ?)`, [dora.userId, pushed.id, polled.id]);
    expect(others.rows[0].n).toBe(0);
    expect(pushed.receiver.invalid).toEqual([]);

    // The end of the retention: the erasure event reaches both, before the memberships go.
    await db().raw(`UPDATE users SET deleted_at = now() - interval '31 days' WHERE id = ?`, [dora.userId]);
    expect((await purgeDeletedAccounts(harness.gateway.deps, 30)).purged).toBe(1);
    await expect.poll(() => pushed.receiver.sets.length, { timeout: 10_000 }).toBe(2);
    expect(pushed.receiver.sets[1]).toMatchObject({ sub: dora.userId, events: { [SECURITY_EVENT_TYPES.accountErased]: {} } });
    const erased = await poll(polled.platform).expect(200);
    const [erasedJti] = Object.keys(erased.body.sets);
    expect(await verifySet(erased.body.sets[erasedJti!], polled.platform.clientId)).toMatchObject({ sub: dora.userId, events: { [SECURITY_EVENT_TYPES.accountErased]: {} } });
    expect((await purgeDeletedAccounts(harness.gateway.deps, 30)).purged).toBe(0);
    await deletionStatus().expect(404); // the receipt went with the data
    expect((await db().raw(`SELECT count(*)::int AS n FROM security_events WHERE user_id = ? AND event_type = ?`, [dora.userId, SECURITY_EVENT_TYPES.accountErased])).rows[0].n).toBe(2);
  });

  it('a profile change reaches only the platforms whose schema binds a changed property, naming their own field keys and no value', async () => {
    const bindsName = await pushPlatform();
    const bindsPhone = await pollPlatform();
    const bindsNothing = await pushPlatform();
    await createFieldDefinition(db(), bindsName.platform.key, { fieldKey: 'given', label: 'Given name', fieldType: 'TEXT', source: 'PROFILE_FIELD', profileField: 'firstName' }, CLI_ACTOR);
    await createFieldDefinition(db(), bindsName.platform.key, { fieldKey: 'company', label: 'Company', fieldType: 'TEXT' }, CLI_ACTOR);
    await createFieldDefinition(db(), bindsPhone.platform.key, { fieldKey: 'mobile', label: 'Mobile', fieldType: 'PHONE', source: 'PROFILE_FIELD', profileField: 'phone' }, CLI_ACTOR);
    const evan = await signInTo(EVAN.login, [bindsName.platform, bindsPhone.platform, bindsNothing.platform]);

    await api().patch('/v1/profile/me').set('Cookie', evan.cookie).set('Origin', ACCOUNT_CENTER).send({ firstName: 'Evander', lastName: 'Changed' }).expect(200);
    await expect.poll(() => bindsName.receiver.sets.length, { timeout: 10_000 }).toBe(1);
    expect(bindsName.receiver.sets[0]).toMatchObject({ sub: evan.userId, events: { [SECURITY_EVENT_TYPES.profileChanged]: { fields: ['given'] } } });
    expect(JSON.stringify(bindsName.receiver.sets[0])).not.toContain('Evander');
    expect((await poll(bindsPhone.platform).expect(200)).body.sets).toEqual({});

    // The same value again changes nothing, so nobody hears anything.
    await api().patch('/v1/profile/me').set('Cookie', evan.cookie).set('Origin', ACCOUNT_CENTER).send({ firstName: 'Evander' }).expect(200);
    // The phone: only the platform binding it.
    await api().patch('/v1/profile/me').set('Cookie', evan.cookie).set('Origin', ACCOUNT_CENTER).send({ phone: '+41446681800' }).expect(200);
    const phone = await poll(bindsPhone.platform).expect(200);
    const [jti] = Object.keys(phone.body.sets);
    expect(await verifySet(phone.body.sets[jti!], bindsPhone.platform.clientId)).toMatchObject({ events: { [SECURITY_EVENT_TYPES.profileChanged]: { fields: ['mobile'] } } });
    await settle();
    expect(bindsName.receiver.sets).toHaveLength(1);
    expect(bindsNothing.receiver.requests).toBe(0);
  });

  it('leaving a platform tells that platform, and only that one (its membership is gone, so later events skip it)', async () => {
    const left = await pushPlatform();
    const stays = await pushPlatform();
    const ivy = await signInTo(IVY.login, [left.platform, stays.platform]);
    await api().delete(`/v1/account/apps/${left.platform.key}`).set('Cookie', ivy.cookie).set('Origin', ACCOUNT_CENTER).expect(204);
    await expect.poll(() => left.receiver.sets.length, { timeout: 10_000 }).toBe(1);
    expect(left.receiver.sets[0]).toMatchObject({ sub: ivy.userId, aud: left.platform.clientId, events: { [SECURITY_EVENT_TYPES.platformLeft]: {} } });

    // A later event about the person reaches only the platform still used.
    await db().transaction((trx) => recordPersonEvent(trx, { userId: ivy.userId, type: SECURITY_EVENT_TYPES.consentWithdrawn, payload: { document: 'terms', version: 1 } }));
    await expect.poll(() => stays.receiver.sets.length, { timeout: 10_000 }).toBe(1);
    await settle();
    expect(left.receiver.sets).toHaveLength(1);
    expect(stays.receiver.sets[0]).toMatchObject({ events: { [SECURITY_EVENT_TYPES.consentWithdrawn]: { document: 'terms', version: 1 } } });
  });

  it('withdrawing consent to a custom document tells that platform only, once: two tabs and a retry record one verified consent-withdrawn SET', async () => {
    const newsletter = await pushPlatform();
    const other = await pollPlatform();
    const otherPushed = await pushPlatform();
    const hank = await signInTo(HANK.login, [newsletter.platform, other.platform, otherPushed.platform]);
    const draft = await createDraft(db(), newsletter.platform.key, 'newsletter', { kind: 'custom', material: false, defaultLanguage: 'en', texts: { en: { title: 'Newsletter', markdown: 'A letter a month.' } } });
    const published = await publishVersion(db(), newsletter.platform.key, 'newsletter', draft.version, CLI_ACTOR);
    expect(published.applied).toBe(true);
    const asHank = (req: request.Test) => req.set('Cookie', hank.cookie).set('Origin', ACCOUNT_CENTER);
    await asHank(api().post(`/v1/agreements/${newsletter.platform.key}/acceptances`))
      .send({ documentKey: 'newsletter', version: draft.version, language: 'en', sha256: draft.texts.en!.sha256 })
      .expect(200);

    // Two tabs at once, then a retry: the membership lock serialises them; one withdrawal row, one event.
    const withdraw = () => asHank(api().post(`/v1/agreements/${newsletter.platform.key}/withdrawals`)).send({ documentKey: 'newsletter' });
    const [first, second] = await Promise.all([withdraw(), withdraw()]);
    expect([first.status, second.status]).toEqual([200, 200]);
    expect((await withdraw().expect(200)).body).toMatchObject({ documentKey: 'newsletter', state: 'withdrawn' });

    await expect.poll(() => newsletter.receiver.sets.length, { timeout: 10_000 }).toBe(1);
    expect(newsletter.receiver.sets[0]).toMatchObject({
      sub: hank.userId,
      aud: newsletter.platform.clientId,
      events: { [SECURITY_EVENT_TYPES.consentWithdrawn]: { document: 'newsletter', version: draft.version } },
    });
    expect(newsletter.receiver.invalid).toEqual([]);
    const recorded = await db().raw(`SELECT platform_id AS "platformId" FROM security_events WHERE user_id = ? AND event_type = ?`, [hank.userId, SECURITY_EVENT_TYPES.consentWithdrawn]);
    expect(recorded.rows).toEqual([{ platformId: newsletter.id }]);
    const withdrawals = await db().raw(`SELECT count(*)::int AS n FROM agreement_records WHERE user_id = ? AND action = 'withdraw'`, [hank.userId]);
    expect(withdrawals.rows[0].n).toBe(1);

    // The other platforms the person uses hear nothing of another platform's document.
    expect((await poll(other.platform).expect(200)).body.sets).toEqual({});
    await settle();
    expect(otherPushed.receiver.requests).toBe(0);
    expect(newsletter.receiver.sets).toHaveLength(1);
  });

  it('push retries a receiver that fails (503) until it takes the SET, and never sends it twice once taken', async () => {
    const target = await pushPlatform();
    const fiona = await signInTo(FIONA.login, [target.platform]);
    target.receiver.mode = 'unavailable';
    const [jti] = await db().transaction((trx) => recordPersonEvent(trx, { userId: fiona.userId, type: SECURITY_EVENT_TYPES.platformLeft }));
    await expect.poll(async () => (await jobOf(jti!))?.attempts === 1 && (await jobOf(jti!))?.locked_at === null, { timeout: 10_000 }).toBe(true);
    expect(await recordOf(jti!)).toMatchObject({ status: 'pending', attempts: 1, lastError: expect.stringMatching(/answered 503/) });

    target.receiver.mode = 'ok';
    await retryNow(jti!);
    await expect.poll(async () => (await recordOf(jti!)).status, { timeout: 10_000 }).toBe('delivered');
    expect(target.receiver.sets.map((set) => set.jti)).toEqual([jti]);
    expect(await recordOf(jti!)).toMatchObject({ attempts: 2, lastError: null });
    await settle();
    expect(target.receiver.requests).toBe(2);
    await expect.poll(() => jobOf(jti!), { timeout: 10_000 }).toBeUndefined();
    const metrics = await (harness.gateway.app.locals.metrics as Metrics).scrape();
    expect(metrics.body).toMatch(/gateway_security_event_deliveries_total\{mode="push",outcome="retry"\} [1-9]/);
    expect(metrics.body).toMatch(/gateway_security_event_deliveries_total\{mode="push",outcome="delivered"\} [1-9]/);
  });

  it('a 400 with an RFC 8935 error is a permanent refusal: no retry; a receiver that keeps failing is given up after the last attempt; the operator sees both', async () => {
    const target = await pushPlatform();
    const gus = await signInTo(GUS.login, [target.platform]);
    target.receiver.mode = 'reject';
    const [rejected] = await db().transaction((trx) => recordPersonEvent(trx, { userId: gus.userId, type: SECURITY_EVENT_TYPES.platformLeft }));
    await expect.poll(async () => (await recordOf(rejected!)).status, { timeout: 10_000 }).toBe('failed');
    expect(await recordOf(rejected!)).toMatchObject({ attempts: 1, errorCode: 'invalid_audience', lastError: 'not for us' });
    await expect.poll(() => jobOf(rejected!), { timeout: 10_000 }).toBeUndefined(); // completed, not retried

    target.receiver.mode = 'unavailable';
    const [givenUp] = await db().transaction((trx) => recordPersonEvent(trx, { userId: gus.userId, type: SECURITY_EVENT_TYPES.consentWithdrawn, payload: { document: 'terms', version: 2 } }));
    await expect.poll(async () => (await jobOf(givenUp!))?.attempts === 1 && (await jobOf(givenUp!))?.locked_at === null, { timeout: 10_000 }).toBe(true);
    expect((await db().raw(`SELECT max_attempts FROM graphile_worker.jobs WHERE key = ?`, [`secevent:${givenUp}`])).rows[0].max_attempts).toBe(SECURITY_EVENT_MAX_ATTEMPTS);
    await retryNow(givenUp!, 2); // the next attempt is the last
    await expect.poll(async () => (await recordOf(givenUp!)).status, { timeout: 10_000 }).toBe('failed');
    expect(await recordOf(givenUp!)).toMatchObject({ attempts: 2, errorCode: 'given_up', lastError: expect.stringMatching(/answered 503/) });

    // The operator's delivery record (admin API; the CLI reads the same service).
    const admin = await browserLogin(harness, target.platform.key, ADMIN);
    const adminCookie = `gw_session=${admin.browser.cookiesFor(`${harness.baseUrl}/`).gw_session}`;
    const record = await api().get(`/v1/platforms/${target.platform.key}/security-events?status=failed`).set('Cookie', adminCookie).expect(200);
    expect(record.body.items.map((item: { jti: string; errorCode: string }) => [item.jti, item.errorCode])).toEqual([
      [givenUp, 'given_up'],
      [rejected, 'invalid_audience'],
    ]);
    expect(JSON.stringify(record.body)).not.toMatch(/eyJ/); // never a token
    const notAdmin = await signInTo(GUS.login, [target.platform]);
    await api().get(`/v1/platforms/${target.platform.key}/security-events`).set('Cookie', notAdmin.cookie).expect(403);
    await api().get('/v1/platforms/NO_SUCH_PLATFORM/security-events').set('Cookie', adminCookie).expect(404);
    const metrics = (await (harness.gateway.app.locals.metrics as Metrics).scrape()).body;
    expect(metrics).toMatch(/gateway_security_event_deliveries_total\{mode="push",outcome="rejected"\} [1-9]/);
    expect(metrics).toMatch(/gateway_security_event_deliveries_total\{mode="push",outcome="given_up"\} [1-9]/);
  });

  it('the poll endpoint refuses malformed input and wrong credentials, and pages with moreAvailable', async () => {
    const target = await pollPlatform();
    expect((await api().post('/v1/events/poll').send({}).expect(401)).body.code).toBe('INVALID_CLIENT_CREDENTIALS');
    await api().post('/v1/events/poll').set('Authorization', `Basic ${Buffer.from(`${target.platform.clientId}:wrong`).toString('base64')}`).send({}).expect(401);
    for (const body of [{ maxEvents: 101 }, { maxEvents: -1 }, { ack: ['not-a-uuid'] }, { ack: 'x' }, { setErrs: { 'not-a-uuid': { err: 'a', description: 'b' } } }, { setErrs: { '0f9b1d8e-0c7a-4b9a-9a55-6c2a3f1e8d21': { err: '' } } }, { other: 1 }]) {
      const refused = await poll(target.platform, body).expect(400);
      expect(refused.body.code).toBe('VALIDATION_FAILED');
    }
    await poll(target.platform).set('Content-Type', 'text/plain').send('ack=1').expect(415);

    const hana = await signInTo(ADMIN, [target.platform]);
    await db().transaction(async (trx) => {
      for (let i = 0; i < 3; i += 1) await recordPersonEvent(trx, { userId: hana.userId, type: SECURITY_EVENT_TYPES.platformLeft });
    });
    const page = await poll(target.platform, { maxEvents: 2 }).expect(200);
    expect(Object.keys(page.body.sets)).toHaveLength(2);
    expect(page.body.moreAvailable).toBe(true);
    const rest = await poll(target.platform, { ack: Object.keys(page.body.sets), maxEvents: 2, returnImmediately: false }).expect(200);
    expect(Object.keys(rest.body.sets)).toHaveLength(1);
    expect(rest.body.moreAvailable).toBe(false);
    const [last] = Object.keys(rest.body.sets);
    await poll(target.platform, { setErrs: { [last!]: { err: 'invalid_key', description: 'unknown kid' } } }).expect(200);
    expect(await recordOf(last!)).toMatchObject({ status: 'failed', errorCode: 'invalid_key', lastError: 'unknown kid' });
    expect((await poll(target.platform).expect(200)).body.sets).toEqual({});

    // The purge keeps settled records 90 days, pending ones until they are taken.
    const [pendingJti] = await db().transaction((trx) => recordPersonEvent(trx, { userId: hana.userId, type: SECURITY_EVENT_TYPES.platformLeft, platformId: target.id }));
    await db().raw(`UPDATE security_events SET created_at = now() - interval '91 days' WHERE platform_id = ?`, [target.id]);
    expect(await purgeSettledEvents(db(), SETTLED_EVENT_RETENTION_DAYS)).toBe(3);
    expect((await db().raw(`SELECT id FROM security_events WHERE platform_id = ?`, [target.id])).rows).toEqual([{ id: pendingJti }]);
  });

  it('the purge keeps the settled records of a deleted account still in its retention (the deleting browser follows them), however long the retention', async () => {
    const target = await pollPlatform();
    const jill = await signInTo(JILL.login, [target.platform]);
    await api().delete('/v1/account/me').set('Cookie', jill.cookie).set('Origin', ACCOUNT_CENTER).expect(204);
    const [jti] = Object.keys((await poll(target.platform).expect(200)).body.sets);
    await poll(target.platform, { ack: [jti!], maxEvents: 0 }).expect(200);
    // ACCOUNT_RETENTION_DAYS may exceed the 90 days settled records are kept (it goes up to 3650).
    await db().raw(`UPDATE security_events SET created_at = now() - interval '91 days' WHERE id = ?`, [jti!]);
    await db().raw(`UPDATE users SET deleted_at = now() - interval '91 days' WHERE id = ?`, [jill.userId]);
    await purgeSettledEvents(db(), SETTLED_EVENT_RETENTION_DAYS);
    expect((await recordOf(jti!)).status).toBe('delivered');
  });
});
