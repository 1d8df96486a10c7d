// "Download my data" (issue 26): real logins through the dev identity provider, real HTTP,
// the export job on graphile-worker against the test database, the document read back from
// the gateway's download. Every response is checked against the contract (the harness).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import sharp from 'sharp';
import { createHash } from 'node:crypto';
import { startHarness, addPlatform, type Harness, type TestPlatform } from '../helpers/flowHarness.ts';
import { asPerson, person, pathOf, signIn, ACCOUNT_CENTER } from '../helpers/dataRights.ts';
import { DEV_USERS } from '../../src/devidp/users.ts';
import { CLI_ACTOR } from '../../src/services/registry/index.ts';
import { createFieldDefinition } from '../../src/services/onboarding/schema.ts';
import { startBackchannelWorker, type BackchannelWorker } from '../../src/services/backchannel/worker.ts';
import { purgeExpiredExports } from '../../src/services/dataRights/exportRepository.ts';
import { DATA_EXPORT_README } from '../../src/services/dataRights/document.ts';
import { createDraft, publishVersion } from '../../src/services/documents/administration.ts';

const ALICE = person('alice2');
const BOB = person('bob');
const CAROL = person('carol');
const DAN = person('dan');
const ERIN = person('erin');

describe('download my data', () => {
  let harness: Harness;
  let worker: BackchannelWorker;
  let platform: TestPlatform;

  beforeAll(async () => {
    harness = await startHarness({}, { users: [...DEV_USERS, ALICE, BOB, CAROL, DAN, ERIN] });
    worker = await startBackchannelWorker(harness.gateway.deps, { pollIntervalMs: 100 });
    platform = await addPlatform(harness);
    await createFieldDefinition(harness.database.db, platform.key, { fieldKey: 'company', label: 'Company', fieldType: 'TEXT', required: true }, CLI_ACTOR);
  });
  afterAll(async () => {
    await worker?.stop();
    await harness?.close();
  });

  const db = () => harness.database.db;

  /** Starts an export and waits until the job has written it. */
  async function readyExport(cookie: string): Promise<string> {
    const started = await asPerson(harness, cookie).post('/v1/account/data-exports').expect(202);
    expect(started.headers['cache-control']).toBe('no-store');
    const id = started.body.id as string;
    await expect.poll(async () => (await asPerson(harness, cookie).get(`/v1/account/data-exports/${id}`).expect(200)).body.status, { timeout: 15_000 }).toBe('ready');
    return id;
  }

  const linkFor = async (cookie: string, id: string) => (await asPerson(harness, cookie).post(`/v1/account/data-exports/${id}/link`).expect(201)).body as { url: string; expiresAt: string };

  it('exports every part of what the gateway holds about the person, and no secret', async () => {
    const alice = await signIn(harness, platform, ALICE);
    const me = asPerson(harness, alice.cookie);
    // Onboarding answers (through the platform's credential, as a platform's back end sends them) and a picture.
    await request(harness.gateway.app).put(`/v1/onboarding/${platform.key}/values`).set('Cookie', alice.credential).send({ values: { company: 'Acme' } }).expect(200);
    await request(harness.gateway.app).post(`/v1/onboarding/${platform.key}/complete`).set('Cookie', alice.credential).expect(200);
    const image = await sharp({ create: { width: 64, height: 48, channels: 3, background: { r: 200, g: 40, b: 40 } } }).png().toBuffer();
    const ticket = (await me.post('/v1/profile/me/avatar/upload-request').send({ contentType: 'image/png', contentLength: image.length }).expect(201)).body;
    await request(harness.gateway.app).put(pathOf(ticket.uploadUrl)).set('Content-Type', 'image/png').send(image).expect(204);
    // An administrator's action on one of her sessions is about her too.
    await me.delete(`/v1/sessions/${alice.sessionId}`).expect(204);
    const again = await signIn(harness, platform, ALICE, alice.browser);
    // An agreement: a custom document (not required: the onboarding stays complete), accepted
    // in German in the second session, then withdrawn.
    const newsletter = await createDraft(db(), platform.key, 'newsletter', {
      kind: 'custom',
      material: false,
      defaultLanguage: 'en',
      texts: { en: { title: 'Newsletter', markdown: 'A letter a month.' }, de: { title: 'Rundbrief', markdown: 'Ein Brief im Monat.' } },
    });
    await publishVersion(db(), platform.key, 'newsletter', newsletter.version, CLI_ACTOR);
    const shownSha256 = newsletter.texts.de!.sha256;
    const asAgain = asPerson(harness, again.cookie);
    await asAgain.post(`/v1/agreements/${platform.key}/acceptances`).send({ documentKey: 'newsletter', version: newsletter.version, language: 'de', sha256: shownSha256 }).expect(200);
    await asAgain.post(`/v1/agreements/${platform.key}/withdrawals`).send({ documentKey: 'newsletter' }).expect(200);

    const id = await readyExport(again.cookie);
    const link = await linkFor(again.cookie, id);
    expect(link.url).toMatch(new RegExp(`^${harness.baseUrl}/v1/account/data-exports/${id}/download\\?token=[A-Za-z0-9_-]{43}$`));
    const res = await asPerson(harness, again.cookie).get(pathOf(link.url)).buffer(true).parse(textParser).expect(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(Number(res.headers['content-length'])).toBe((await asPerson(harness, again.cookie).get(`/v1/account/data-exports/${id}`).expect(200)).body.byteSize);
    expect(res.headers['content-disposition']).toMatch(/^attachment; filename="my-data-\d{4}-\d{2}-\d{2}\.json"$/);
    const text = res.body as string;
    const document = JSON.parse(text);

    expect(Object.keys(document)).toEqual(['readme', 'format', 'exportedAt', 'user', 'profile', 'picture', 'platforms', 'onboarding', 'agreements', 'sessions', 'supportAccess', 'auditEvents']);
    expect(document.readme).toEqual(DATA_EXPORT_README);
    expect(document.user).toMatchObject({ id: again.userId, sub: ALICE.sub, email: ALICE.email });
    expect(document.profile).toMatchObject({ firstName: 'Alice2', lastName: 'Tester' });
    expect(document.picture).toMatchObject({ mediaType: 'image/webp', width: 64, height: 48 });
    expect((await sharp(Buffer.from(document.picture.base64, 'base64')).metadata()).format).toBe('webp');
    expect(document.platforms).toEqual([expect.objectContaining({ platformKey: platform.key, completedRequirementVersion: 2, currentRequirementVersion: 2 })]);
    expect(document.onboarding).toEqual([
      { platformKey: platform.key, completedRequirementVersion: 2, currentRequirementVersion: 2, values: [expect.objectContaining({ fieldKey: 'company', label: 'Company', type: 'TEXT', value: 'Acme', archived: false, sharing: null, shared: false, sharedFrom: null })], profileValuesShared: [] },
    ]);
    const agreement = { platformKey: platform.key, platformName: expect.any(String), documentKey: 'newsletter', kind: 'custom', version: newsletter.version, title: 'Rundbrief', language: 'de', sha256: shownSha256, sessionId: again.sessionId, recordedAt: expect.any(String), recordedVia: 'session' };
    expect(document.agreements).toEqual([{ ...agreement, action: 'accept' }, { ...agreement, action: 'withdraw' }]);
    expect(document.sessions.map((s: { id: string }) => s.id).sort()).toEqual([alice.sessionId, again.sessionId].sort());
    expect(document.sessions.find((s: { id: string }) => s.id === alice.sessionId)).toMatchObject({ endReason: 'revoked', platforms: [platform.key] });
    expect(document.auditEvents.map((e: { action: string }) => e.action)).toEqual(['session.revoke', 'document.accept', 'document.withdraw', 'data_export.start']);
    // Each says which credential it came with (the browser session here).
    expect(document.auditEvents.filter((e: { action: string }) => e.action.startsWith('document.')).map((e: { actorVia: string; actorPlatformKey: string | null }) => [e.actorVia, e.actorPlatformKey])).toEqual([['session', null], ['session', null]]);

    // No secret: none of the values that the person's sign-ins left in the database, nor any property named like one.
    const { rows: stored } = await db().raw(
      `SELECT encode(s.token_digest, 'hex') AS a, encode(s.token_digest, 'base64') AS b, s.id_token_sealed AS c, s.idp_sid AS d,
              encode(c.token_digest, 'hex') AS e, encode(c.token_digest, 'base64') AS f
         FROM gateway_sessions s LEFT JOIN platform_credentials c ON c.session_id = s.id WHERE s.user_id = ?`,
      [again.userId],
    );
    const secrets = [
      again.cookie.split('=')[1]!, alice.cookie.split('=')[1]!, again.gatewayToken, alice.gatewayToken, platform.clientSecret,
      new URL(link.url).searchParams.get('token')!, createHash('sha256').update(new URL(link.url).searchParams.get('token')!).digest('hex'),
      ...stored.flatMap((row: Record<string, string | null>) => Object.values(row)),
    ].filter((value): value is string => typeof value === 'string' && value.length >= 16);
    expect(secrets.length).toBeGreaterThanOrEqual(10);
    for (const secret of secrets) expect(text.includes(secret), `a secret is in the export: ${secret.slice(0, 8)}…`).toBe(false);
    const names = propertyNames({ ...document, readme: {} });
    expect(names.filter((name) => /token|digest|sealed|secret|password|credential|sid$/i.test(name))).toEqual([]);

    // The download is audited; a second export's document lists both.
    const { rows: audit } = await db().raw(`SELECT action FROM audit_events WHERE actor_user_id = ? ORDER BY occurred_at`, [again.userId]);
    expect(audit.map((row: { action: string }) => row.action)).toEqual(['session.revoke', 'document.accept', 'document.withdraw', 'data_export.start', 'data_export.download']);
  });

  it('a link is single use, short-lived and replaced by the next one; HEAD does not spend it', async () => {
    const bob = await signIn(harness, platform, BOB);
    const me = asPerson(harness, bob.cookie);
    const id = await readyExport(bob.cookie);

    const first = await linkFor(bob.cookie, id);
    expect(Date.parse(first.expiresAt) - Date.now()).toBeLessThanOrEqual(5 * 60 * 1000);
    const second = await linkFor(bob.cookie, id);
    expect((await me.get(pathOf(first.url)).expect(404)).body.code).toBe('DATA_EXPORT_LINK_INVALID');

    await request(harness.gateway.app).head(pathOf(second.url)).set('Cookie', bob.cookie).expect(405);
    // Two downloads racing with one link: one document between them.
    const raced = await Promise.all([me.get(pathOf(second.url)), me.get(pathOf(second.url)), me.get(pathOf(second.url))]);
    expect(raced.map((res) => res.status).sort()).toEqual([200, 404, 404]);

    const third = await linkFor(bob.cookie, id);
    await db().raw(`UPDATE data_exports SET link_expires_at = now() - interval '1 second' WHERE id = ?`, [id]);
    expect((await me.get(pathOf(third.url)).expect(404)).body.code).toBe('DATA_EXPORT_LINK_INVALID');
    expect((await me.get(`/v1/account/data-exports/${id}`).expect(200)).body.downloadedAt).toEqual(expect.any(String));
  });

  it('another person cannot see, link or download an export, even with its link; a platform credential cannot at all', async () => {
    const carol = await signIn(harness, platform, CAROL);
    const bob = await signIn(harness, platform, BOB);
    const id = await readyExport(carol.cookie);
    const link = await linkFor(carol.cookie, id);
    const stranger = asPerson(harness, bob.cookie);

    expect((await stranger.get(`/v1/account/data-exports/${id}`).expect(404)).body.code).toBe('DATA_EXPORT_NOT_FOUND');
    expect((await stranger.post(`/v1/account/data-exports/${id}/link`).expect(404)).body.code).toBe('DATA_EXPORT_NOT_FOUND');
    expect((await stranger.get(pathOf(link.url)).expect(404)).body.code).toBe('DATA_EXPORT_LINK_INVALID');
    expect((await stranger.get('/v1/account/data-exports').expect(200)).body.items.map((e: { id: string }) => e.id)).not.toContain(id);
    await request(harness.gateway.app).get(pathOf(link.url)).expect(401);

    // The person's own platform holds a credential of her session: it may do none of this.
    const platformCall = () => request(harness.gateway.app);
    for (const res of [
      await platformCall().post('/v1/account/data-exports').set('Cookie', carol.credential),
      await platformCall().get('/v1/account/data-exports').set('Cookie', carol.credential),
      await platformCall().get(`/v1/account/data-exports/${id}`).set('Cookie', carol.credential),
      await platformCall().post(`/v1/account/data-exports/${id}/link`).set('Cookie', carol.credential),
      await platformCall().get(pathOf(link.url)).set('Cookie', carol.credential),
    ]) {
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('FORBIDDEN');
    }
    // Neither the stranger nor the platform spent the link: the person still downloads with it.
    await asPerson(harness, carol.cookie).get(pathOf(link.url)).expect(200);
  });

  it('limits exports per person: a pending one is answered again, the fourth in a day is refused with Retry-After', async () => {
    const dan = await signIn(harness, platform, DAN);
    const me = asPerson(harness, dan.cookie);
    await worker.stop(); // the job stays pending while the worker is stopped
    try {
      const raced = await Promise.all([me.post('/v1/account/data-exports'), me.post('/v1/account/data-exports'), me.post('/v1/account/data-exports')]);
      expect(raced.map((res) => res.status)).toEqual([202, 202, 202]);
      expect(new Set(raced.map((res) => res.body.id)).size).toBe(1);
      expect(raced[0]!.body.status).toBe('pending');
      expect((await me.post(`/v1/account/data-exports/${raced[0]!.body.id}/link`).expect(409)).body.code).toBe('DATA_EXPORT_NOT_READY');
      // The pending one is done; one more done two hours ago, and a failed one (not counted).
      await db().raw(`UPDATE data_exports SET status = 'ready', completed_at = now() WHERE user_id = ?`, [dan.userId]);
      await db().raw(
        `INSERT INTO data_exports (user_id, status, expires_at, requested_at) VALUES (?, 'ready', now() + interval '1 day', now() - interval '2 hours'), (?, 'failed', now() + interval '1 day', now())`,
        [dan.userId, dan.userId],
      );
      expect((await me.post('/v1/account/data-exports').expect(202)).body.status).toBe('pending');
      await db().raw(`UPDATE data_exports SET status = 'ready', completed_at = now() WHERE user_id = ? AND status = 'pending'`, [dan.userId]);
      const refused = await me.post('/v1/account/data-exports').expect(429);
      expect(refused.body.code).toBe('RATE_LIMITED');
      const retryAfter = Number(refused.headers['retry-after']);
      expect(retryAfter).toBeGreaterThan(22 * 3600 - 60);
      expect(retryAfter).toBeLessThanOrEqual(24 * 3600);
      // The window slides: once the oldest is a day old, one more may start.
      await db().raw(`UPDATE data_exports SET requested_at = now() - interval '25 hours' WHERE user_id = ? AND requested_at < now() - interval '1 hour'`, [dan.userId]);
      await me.post('/v1/account/data-exports').expect(202);
    } finally {
      worker = await startBackchannelWorker(harness.gateway.deps, { pollIntervalMs: 100 });
    }
  });

  it('an export that expired is gone for the person at once and deleted by the purge, document and all', async () => {
    const bob = await signIn(harness, platform, BOB);
    const id = await readyExport(bob.cookie);
    const link = await linkFor(bob.cookie, id);
    const chunks = async () => Number((await db().raw('SELECT count(*) AS n FROM data_export_chunks WHERE export_id = ?', [id])).rows[0].n);
    expect(await chunks()).toBeGreaterThan(0);
    await db().raw(`UPDATE data_exports SET expires_at = now() - interval '1 second' WHERE id = ?`, [id]);
    await asPerson(harness, bob.cookie).get(`/v1/account/data-exports/${id}`).expect(404);
    await asPerson(harness, bob.cookie).get(pathOf(link.url)).expect(404);
    expect(await purgeExpiredExports(db())).toBeGreaterThanOrEqual(1);
    expect(await chunks()).toBe(0);
    expect((await db().raw('SELECT count(*)::int AS n FROM data_exports WHERE id = ?', [id])).rows[0].n).toBe(0);
  });

  it('an export whose account is deleted before the job runs writes nothing and is failed', async () => {
    const erin = await signIn(harness, platform, ERIN);
    await worker.stop();
    let id: string;
    try {
      id = (await asPerson(harness, erin.cookie).post('/v1/account/data-exports').expect(202)).body.id;
      await asPerson(harness, erin.cookie).delete('/v1/account/me').expect(204);
    } finally {
      worker = await startBackchannelWorker(harness.gateway.deps, { pollIntervalMs: 100 });
    }
    await expect.poll(async () => (await db().raw('SELECT status FROM data_exports WHERE id = ?', [id])).rows[0].status, { timeout: 15_000 }).toBe('failed');
    expect(Number((await db().raw('SELECT count(*) AS n FROM data_export_chunks WHERE export_id = ?', [id])).rows[0].n)).toBe(0);
  });

  it('refuses malformed input and cross-site writes', async () => {
    const bob = await signIn(harness, platform, BOB);
    const me = asPerson(harness, bob.cookie);
    expect((await me.get('/v1/account/data-exports/not-a-uuid').expect(400)).body.code).toBe('VALIDATION_FAILED');
    expect((await me.post('/v1/account/data-exports/00000000-0000-4000-8000-00000000000x/link').expect(400)).body.code).toBe('VALIDATION_FAILED');
    const id = '00000000-0000-4000-8000-000000000000';
    expect((await me.get(`/v1/account/data-exports/${id}/download?token=short`).expect(400)).body.code).toBe('VALIDATION_FAILED');
    expect((await me.get(`/v1/account/data-exports/${id}/download`).expect(400)).body.code).toBe('VALIDATION_FAILED');
    expect((await me.get(`/v1/account/data-exports/${id}/download?token=${'A'.repeat(43)}`).expect(404)).body.code).toBe('DATA_EXPORT_LINK_INVALID');
    expect((await me.get(`/v1/account/data-exports/${id}`).expect(404)).body.code).toBe('DATA_EXPORT_NOT_FOUND');
    const crossSite = await request(harness.gateway.app).post('/v1/account/data-exports').set('Cookie', bob.cookie).set('Origin', 'https://evil.example');
    expect(crossSite.status).toBe(403);
    expect(crossSite.body.code).toBe('ORIGIN_NOT_ALLOWED');
    await request(harness.gateway.app).post('/v1/account/data-exports').set('Origin', ACCOUNT_CENTER).expect(401);
  });
});

/** supertest: keep a JSON body as text, to scan it as bytes. */
function textParser(res: request.Response, done: (error: Error | null, body: string) => void) {
  const stream = res as unknown as NodeJS.ReadableStream;
  let text = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => (text += chunk));
  stream.on('end', () => done(null, text));
}

function propertyNames(value: unknown, into: string[] = []): string[] {
  if (Array.isArray(value)) for (const item of value) propertyNames(item, into);
  else if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      into.push(key);
      propertyNames(item, into);
    }
  }
  return into;
}
