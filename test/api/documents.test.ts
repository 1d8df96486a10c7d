// Issue 25: document administration and the agreement record over real HTTP against real
// PostgreSQL. Every response is checked against the contract (createTestApp).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import { createHash, randomBytes } from 'node:crypto';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { startFakeIdp, type FakeIdp } from '../helpers/fakeIdp.ts';
import { upsertUserFromIdp } from '../../src/services/account/usersRepository.ts';
import { createSession } from '../../src/services/sessions/create.ts';
import { createPlatform, CLI_ACTOR } from '../../src/services/registry/index.ts';
import { sha256, randomToken } from '../../src/security/crypto.ts';
import type { Permission } from '../../src/domain/types.ts';

const ACCOUNT_CENTER = 'http://account.test';
const GATEWAY_CLIENT = 'documents-gateway';

describe('documents and agreements (issue 25)', () => {
  let database: TestDatabase;
  let idp: FakeIdp;
  let gateway: TestApp;
  let seq = 0;
  let adminCookie: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    idp = await startFakeIdp({ clientId: GATEWAY_CLIENT, clientSecret: randomBytes(24).toString('base64url') });
    gateway = await createTestApp({ db: database.db, oidc: { issuer: idp.issuer, clientId: GATEWAY_CLIENT, clientSecret: idp.clientSecret } });
    adminCookie = (await user(['onboarding:schema:read', 'onboarding:schema:write'])).cookie;
  });
  afterAll(async () => {
    await idp?.close();
    await database?.drop();
  });

  const db = () => database.db;

  async function platform(defaultOnboardingMode: 'central' | 'platform' = 'central'): Promise<string> {
    const key = `DOC_${++seq}_${randomBytes(2).toString('hex').toUpperCase()}`;
    await createPlatform(db(), { platformKey: key, displayName: key, callbackUrl: 'https://p.example/cb', allowedReturnUrls: ['https://p.example/app/'], defaultOnboardingMode }, CLI_ACTOR);
    return key;
  }

  async function user(permissions: Permission[] = []) {
    const sub = `documents-user-${++seq}`;
    const row = await upsertUserFromIdp(db(), { sub, email: null, emailVerified: false, displayName: null, givenName: null, familyName: null });
    const session = await createSession(db(), { userId: row.id, permissions, ttlSeconds: 3600 });
    return { id: row.id, sub, sessionId: session.id, cookie: `gw_session=${session.token}` };
  }

  /** What signing in to the platform does to the membership (the login's provisioning). */
  async function signedInTo(person: { id: string }, platformKey: string): Promise<void> {
    await db().raw(`INSERT INTO platform_memberships (user_id, platform_id) SELECT ?, id FROM platforms WHERE platform_key = ? ON CONFLICT DO NOTHING`, [person.id, platformKey]);
  }

  async function platformCredential(owner: { sessionId: string }, platformKey: string): Promise<string> {
    const token = `gwp_${randomToken()}`;
    await db().raw(`INSERT INTO platform_credentials (session_id, platform_id, token_digest) SELECT ?, id, ? FROM platforms WHERE platform_key = ?`, [owner.sessionId, sha256(token), platformKey]);
    return `gw_session=${token}`;
  }

  const as = (cookie: string, req: request.Test) => req.set('Cookie', cookie).set('Origin', ACCOUNT_CENTER);
  const app = () => request(gateway.app);
  const versions = (key: string, documentKey: string) => `/v1/platforms/${key}/documents/${documentKey}/versions`;
  const requirementVersion = async (key: string) => Number((await db().raw('SELECT requirement_version FROM platforms WHERE platform_key = ?', [key])).rows[0].requirement_version);
  const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

  function draft(key: string, documentKey: string, body: Record<string, unknown>) {
    return as(adminCookie, app().post(versions(key, documentKey))).send(body);
  }

  async function published(key: string, documentKey: string, kind: string, material: boolean, markdown: string): Promise<number> {
    const created = await draft(key, documentKey, { kind, material, defaultLanguage: 'en', texts: { en: { title: 'T', markdown } } }).expect(201);
    await as(adminCookie, app().post(`${versions(key, documentKey)}/${created.body.version}/publish`)).expect(200);
    return created.body.version;
  }

  it('a draft is edited and previewed, the dry run says who would have to accept, publishing raises the requirement version once, and a published version never changes', async () => {
    const key = await platform();
    const member = await user();
    await as(member.cookie, app().get(`/v1/onboarding/${key}/status`)).expect(200); // a member of the platform

    const created = await draft(key, 'terms', {
      kind: 'terms',
      material: true,
      defaultLanguage: 'en',
      texts: { en: { title: 'Terms', markdown: 'First words.' }, de: { title: 'Bedingungen', url: 'https://p.example/de/agb', sha256: 'a'.repeat(64) } },
    }).expect(201);
    expect(created.body).toMatchObject({ status: 'draft', version: 1, publishedAt: null, texts: { en: { sha256: digest('First words.') }, de: { url: 'https://p.example/de/agb' } } });

    const edited = await as(adminCookie, app().patch(`${versions(key, 'terms')}/1`)).send({ texts: { en: { title: 'Terms', markdown: 'Better words.' } } }).expect(200);
    expect(edited.body.texts).toEqual({ en: { title: 'Terms', markdown: 'Better words.', sha256: digest('Better words.') } });
    const preview = await as(adminCookie, app().get(`${versions(key, 'terms')}/1`)).expect(200);
    expect(preview.body.texts.en.markdown).toBe('Better words.');

    const before = await requirementVersion(key);
    const dryRun = await as(adminCookie, app().post(`${versions(key, 'terms')}/1/publish?dryRun=true`)).expect(200);
    expect(dryRun.body).toMatchObject({ dryRun: true, blocking: true, mustAccept: 1, activeUsers: 1, requirementVersion: before + 1 });
    expect(await requirementVersion(key)).toBe(before);
    expect((await db().raw(`SELECT count(*)::int AS n FROM audit_events WHERE platform_key = ? AND action = 'document.publish'`, [key])).rows[0].n).toBe(0);

    const publishedVersion = await as(adminCookie, app().post(`${versions(key, 'terms')}/1/publish`)).expect(200);
    expect(publishedVersion.body).toMatchObject({ status: 'published', version: 1 });
    // A retried publication changes nothing.
    await as(adminCookie, app().post(`${versions(key, 'terms')}/1/publish`)).expect(200);
    expect(await requirementVersion(key)).toBe(before + 1);
    expect((await db().raw(`SELECT count(*)::int AS n FROM audit_events WHERE platform_key = ? AND action = 'document.publish' AND document_key = 'terms' AND document_version = 1`, [key])).rows[0].n).toBe(1);

    const refused = await as(adminCookie, app().patch(`${versions(key, 'terms')}/1`)).send({ material: false }).expect(409);
    expect(refused.body.code).toBe('CONFLICT');
    // The database refuses it too, whatever code writes.
    await expect(db().raw(`UPDATE document_versions SET texts = '{"en":{"title":"x","markdown":"y","sha256":"${'0'.repeat(64)}"}}' WHERE version = 1 AND published_at IS NOT NULL`)).rejects.toThrow(/cannot be changed/);
    await expect(db().raw(`DELETE FROM document_versions WHERE published_at IS NOT NULL`)).rejects.toThrow(/cannot be changed or deleted/);
    // Nor can a statement empty them (TRUNCATE fires no row trigger), or turn the terms into another kind.
    await expect(db().raw('TRUNCATE document_versions CASCADE')).rejects.toThrow(/cannot be truncated/);
    await expect(db().raw('TRUNCATE agreement_records')).rejects.toThrow(/cannot be truncated/);
    await expect(db().raw(`UPDATE platform_documents SET kind = 'custom' WHERE document_key = 'terms'`)).rejects.toThrow(/keeps its platform, key and kind/);

    // One draft at a time; a non-material publication does not raise the requirement version.
    await draft(key, 'terms', { kind: 'terms', material: false, defaultLanguage: 'en', texts: { en: { title: 'Terms', markdown: 'Typo fixed.' } } }).expect(201);
    expect((await draft(key, 'terms', { kind: 'terms', material: false, defaultLanguage: 'en', texts: { en: { title: 'T', markdown: 'x' } } }).expect(409)).body.code).toBe('CONFLICT');
    await as(adminCookie, app().post(`${versions(key, 'terms')}/2/publish`)).expect(200);
    expect(await requirementVersion(key)).toBe(before + 1);
  });

  it('malformed input is refused: bad keys, languages, non-https or foreign links, a default language without text, raw HTML as no special case', async () => {
    const key = await platform();
    const text = { en: { title: 'T', markdown: 'x' } };
    const refuse = async (documentKey: string, body: Record<string, unknown>) => expect((await draft(key, documentKey, body).expect(400)).body.code).toBe('VALIDATION_FAILED');
    await refuse('terms', { kind: 'terms', material: true, defaultLanguage: 'en' });
    await refuse('terms', { kind: 'contract', material: true, defaultLanguage: 'en', texts: text });
    await refuse('terms', { kind: 'terms', material: true, defaultLanguage: 'english!', texts: text });
    await refuse('terms', { kind: 'terms', material: true, defaultLanguage: 'de', texts: text });
    await refuse('terms', { kind: 'terms', material: true, defaultLanguage: 'en', texts: { en: { title: 'T', url: 'http://p.example/terms', sha256: 'a'.repeat(64) } } });
    await refuse('terms', { kind: 'terms', material: true, defaultLanguage: 'en', texts: { en: { title: 'T', url: 'https://evil.example/terms', sha256: 'a'.repeat(64) } } });
    await refuse('terms', { kind: 'terms', material: true, defaultLanguage: 'en', texts: { en: { title: 'T', url: 'https://p.example/terms', sha256: 'nothex' } } });
    await refuse('terms', { kind: 'terms', material: true, defaultLanguage: 'en', texts: { en: { title: 'T', markdown: 'x', url: 'https://p.example/t', sha256: 'a'.repeat(64) } } });
    await refuse('1bad', { kind: 'terms', material: true, defaultLanguage: 'en', texts: text });
    await as(adminCookie, app().get(`${versions(key, 'terms')}/0`)).expect(400);
    // A second terms document, or a kind that does not match, is a conflict.
    await draft(key, 'terms', { kind: 'terms', material: true, defaultLanguage: 'en', texts: text }).expect(201);
    expect((await draft(key, 'conditions', { kind: 'terms', material: true, defaultLanguage: 'en', texts: text }).expect(409)).body.code).toBe('CONFLICT');
    expect((await draft(key, 'terms', { kind: 'custom', material: true, defaultLanguage: 'en', texts: text }).expect(409)).body.code).toBe('CONFLICT');
    // A long text fits (the draft routes read up to 1 MiB; other bodies stay within 64 KiB).
    const long = 'Lorem ipsum dolor sit amet. '.repeat(3500);
    await draft(key, 'long', { kind: 'custom', material: false, defaultLanguage: 'en', texts: { en: { title: 'Long', markdown: long.slice(0, 100000) } } }).expect(201);
    expect((await as(adminCookie, app().put(`/v1/onboarding/${key}/values`)).send({ values: { x: long } })).status).toBe(413);
    // Markdown is stored as given: it is never HTML to the gateway (the account center renders a safe subset).
    const html = await draft(key, 'news', { kind: 'custom', material: false, defaultLanguage: 'en', texts: { en: { title: 'N', markdown: '<script>alert(1)</script>' } } }).expect(201);
    expect(html.body.texts.en.markdown).toBe('<script>alert(1)</script>');
    // Administration needs the schema permission.
    const stranger = await user();
    expect((await as(stranger.cookie, app().get(`/v1/platforms/${key}/documents`)).expect(403)).body.code).toBe('FORBIDDEN');
    await as(stranger.cookie, app().post(versions(key, 'other'))).send({ kind: 'custom', material: false, defaultLanguage: 'en', texts: text }).expect(403);
  });

  it('accept: one explicit request per document with the digest shown; two tabs at once record one row; an older version or another digest is refused', async () => {
    const key = await platform();
    await published(key, 'terms', 'terms', true, 'Terms v1.');
    const person = await user();
    const body = { documentKey: 'terms', version: 1, language: 'en', sha256: digest('Terms v1.') };

    const status = await as(person.cookie, app().get(`/v1/onboarding/${key}/status`)).expect(200);
    expect(status.body).toMatchObject({ status: 'NOT_STARTED', missingDocuments: [{ documentKey: 'terms', kind: 'terms', version: 1 }] });

    expect((await as(person.cookie, app().post(`/v1/agreements/${key}/acceptances`)).send({ ...body, sha256: 'b'.repeat(64) }).expect(409)).body.code).toBe('CONFLICT');
    expect((await as(person.cookie, app().post(`/v1/agreements/${key}/acceptances`)).send({ ...body, language: 'de' }).expect(409)).body.code).toBe('CONFLICT');
    expect((await as(person.cookie, app().post(`/v1/agreements/${key}/acceptances`)).send({ ...body, version: 2 }).expect(409)).body.code).toBe('CONFLICT');
    expect((await as(person.cookie, app().post(`/v1/agreements/${key}/acceptances`)).send({ ...body, documentKey: 'nope' }).expect(404)).body.code).toBe('DOCUMENT_NOT_FOUND');
    await as(person.cookie, app().post(`/v1/agreements/${key}/acceptances`)).send({ ...body, extra: true }).expect(400);
    // From a foreign origin: refused before anything is written.
    await app().post(`/v1/agreements/${key}/acceptances`).set('Cookie', person.cookie).set('Origin', 'http://evil.test').send(body).expect(403);

    const answers = await Promise.all(Array.from({ length: 8 }, () => as(person.cookie, app().post(`/v1/agreements/${key}/acceptances`)).send(body)));
    expect(answers.map((answer) => answer.status)).toEqual(Array(8).fill(200));
    expect(answers[0]!.body).toMatchObject({ state: 'accepted', acceptedVersion: 1, required: true, withdrawable: false });
    const rows = (await db().raw(`SELECT action, version, language, text_digest, session_id FROM agreement_records WHERE user_id = ?`, [person.id])).rows;
    expect(rows).toEqual([{ action: 'accept', version: 1, language: 'en', text_digest: digest('Terms v1.'), session_id: person.sessionId }]);
    expect((await db().raw(`SELECT count(*)::int AS n FROM audit_events WHERE platform_key = ? AND action = 'document.accept'`, [key])).rows[0].n).toBe(1);

    expect((await as(person.cookie, app().get(`/v1/onboarding/${key}/status`)).expect(200)).body).toMatchObject({ status: 'COMPLETE', missingDocuments: [], acceptedDocuments: [{ documentKey: 'terms', version: 1 }] });

    // The record is append-only while the account exists.
    await expect(db().raw(`UPDATE agreement_records SET version = 2 WHERE user_id = ?`, [person.id])).rejects.toThrow(/append-only/);
    await expect(db().raw(`DELETE FROM agreement_records WHERE user_id = ?`, [person.id])).rejects.toThrow(/append-only/);
    // Once the account is deleted, its rows may go with its purge.
    const gone = await user();
    await signedInTo(gone, key);
    await as(gone.cookie, app().post(`/v1/agreements/${key}/acceptances`)).send(body).expect(200);
    await db().raw('UPDATE users SET deleted_at = now() WHERE id = ?', [gone.id]);
    expect((await db().raw(`DELETE FROM agreement_records WHERE user_id = ?`, [gone.id])).rowCount).toBe(1);

    // Counts per version, for administrators: "1 of 1 active users accepted version 1".
    const list = await as(adminCookie, app().get(`/v1/platforms/${key}/documents`)).expect(200);
    expect(list.body.activeUsers).toBe(1);
    expect(list.body.items[0]).toMatchObject({ documentKey: 'terms', currentVersion: 1, versions: [{ version: 1, acceptedBy: 1 }] });
    const record = await as(adminCookie, app().get(`/v1/platforms/${key}/acceptances?sub=${person.sub}`)).expect(200);
    expect(record.body.records).toMatchObject([{ documentKey: 'terms', version: 1, action: 'accept', sha256: digest('Terms v1.'), text: { markdown: 'Terms v1.' } }]);
    expect((await as(adminCookie, app().get(`/v1/platforms/${key}/acceptances?sub=nobody`)).expect(200)).body.records).toEqual([]);
  });

  it('withdraw: a custom consent only, as a new row; withdrawing twice records one; the terms cannot be withdrawn', async () => {
    const key = await platform();
    await published(key, 'terms', 'terms', true, 'Terms.');
    await published(key, 'newsletter', 'custom', false, 'Newsletter.');
    const person = await user();
    await signedInTo(person, key);
    const accept = (documentKey: string, text: string) =>
      as(person.cookie, app().post(`/v1/agreements/${key}/acceptances`)).send({ documentKey, version: 1, language: 'en', sha256: digest(text) }).expect(200);
    await accept('terms', 'Terms.');
    // An optional consent blocks nothing.
    expect((await as(person.cookie, app().get(`/v1/onboarding/${key}/status`)).expect(200)).body.status).toBe('COMPLETE');
    await accept('newsletter', 'Newsletter.');

    expect((await as(person.cookie, app().post(`/v1/agreements/${key}/withdrawals`)).send({ documentKey: 'terms' }).expect(409)).body.code).toBe('CONFLICT');
    const withdrawn = await as(person.cookie, app().post(`/v1/agreements/${key}/withdrawals`)).send({ documentKey: 'newsletter' }).expect(200);
    expect(withdrawn.body).toMatchObject({ state: 'withdrawn', acceptedVersion: null, withdrawable: true });
    await as(person.cookie, app().post(`/v1/agreements/${key}/withdrawals`)).send({ documentKey: 'newsletter' }).expect(200);
    const actions = (await db().raw(`SELECT r.action FROM agreement_records r JOIN platform_documents d ON d.id = r.document_id WHERE r.user_id = ? AND d.document_key = 'newsletter' ORDER BY r.id`, [person.id])).rows;
    expect(actions.map((row: { action: string }) => row.action)).toEqual(['accept', 'withdraw']);
    expect((await db().raw(`SELECT count(*)::int AS n FROM audit_events WHERE platform_key = ? AND action = 'document.withdraw'`, [key])).rows[0].n).toBe(1);

    // The person's Agreements: every platform, the record with the text as it was.
    const second = await platform();
    await published(second, 'privacy', 'privacy', true, 'Privacy.');
    await signedInTo(person, second);
    await as(person.cookie, app().post(`/v1/agreements/${second}/acceptances`)).send({ documentKey: 'privacy', version: 1, language: 'en', sha256: digest('Privacy.') }).expect(200);
    const mine = await as(person.cookie, app().get('/v1/agreements')).expect(200);
    expect(mine.body.items).toHaveLength(2);
    // Each platform with its own documents and record (read for every platform at once).
    const secondItem = mine.body.items.find((item: { platformKey: string }) => item.platformKey === second);
    expect(secondItem.documents).toMatchObject([{ documentKey: 'privacy', state: 'accepted', acceptedVersion: 1, current: { platformKey: second, version: 1 } }]);
    expect(secondItem.records.map((row: { documentKey: string }) => row.documentKey)).toEqual(['privacy']);
    const firstItem = mine.body.items.find((item: { platformKey: string }) => item.platformKey === key);
    expect(firstItem.documents.map((row: { documentKey: string; state: string }) => `${row.documentKey}:${row.state}`)).toEqual(['newsletter:withdrawn', 'terms:accepted']);
    expect(firstItem.records.map((row: { documentKey: string; action: string }) => `${row.documentKey}:${row.action}`)).toEqual(['newsletter:withdraw', 'newsletter:accept', 'terms:accept']);
    // The exchange's accepted documents (from the status) no longer carry the withdrawn consent.
    expect((await as(person.cookie, app().get(`/v1/onboarding/${key}/status`)).expect(200)).body.acceptedDocuments).toEqual([{ documentKey: 'terms', kind: 'terms', version: 1 }]);
  });

  it('a material version asks again, and a platform credential reads only its own platform', async () => {
    const key = await platform();
    const other = await platform();
    await published(key, 'terms', 'terms', true, 'One.');
    await published(other, 'terms', 'terms', true, 'Other.');
    const person = await user();
    await signedInTo(person, key);
    await as(person.cookie, app().post(`/v1/agreements/${key}/acceptances`)).send({ documentKey: 'terms', version: 1, language: 'en', sha256: digest('One.') }).expect(200);
    await published(key, 'terms', 'terms', true, 'Two.');
    const agreements = await as(person.cookie, app().get(`/v1/agreements/${key}`)).expect(200);
    expect(agreements.body.documents[0]).toMatchObject({ state: 'pending', acceptedVersion: 1, current: { version: 2 } });
    expect((await as(person.cookie, app().get(`/v1/onboarding/${key}/status`)).expect(200)).body).toMatchObject({ status: 'IN_PROGRESS', missingDocuments: [{ documentKey: 'terms', version: 2 }] });

    const credential = await platformCredential(person, key);
    await app().get(`/v1/agreements/${key}`).set('Cookie', credential).expect(200);
    expect((await app().get(`/v1/agreements/${other}`).set('Cookie', credential).expect(403)).body.code).toBe('FORBIDDEN');
    await app().get('/v1/agreements').set('Cookie', credential).expect(403);
    // Nor may it administer documents, without the schema permission.
    await app().get(`/v1/platforms/${key}/documents`).set('Cookie', credential).expect(403);
  });

  it('a person who never signed in to a platform can neither accept nor withdraw there, and is not made a member by trying', async () => {
    const key = await platform();
    await published(key, 'terms', 'terms', true, 'Terms.');
    await published(key, 'newsletter', 'custom', false, 'Newsletter.');
    const stranger = await user();
    const accepted = await as(stranger.cookie, app().post(`/v1/agreements/${key}/acceptances`)).send({ documentKey: 'terms', version: 1, language: 'en', sha256: digest('Terms.') }).expect(404);
    expect(accepted.body.code).toBe('PLATFORM_NOT_FOUND');
    const withdrawn = await as(stranger.cookie, app().post(`/v1/agreements/${key}/withdrawals`)).send({ documentKey: 'newsletter' }).expect(404);
    expect(withdrawn.body.code).toBe('PLATFORM_NOT_FOUND');
    const memberships = await db().raw(`SELECT count(*)::int AS n FROM platform_memberships WHERE user_id = ?`, [stranger.id]);
    expect(memberships.rows[0].n).toBe(0);
    const records = await db().raw(`SELECT count(*)::int AS n FROM agreement_records WHERE user_id = ?`, [stranger.id]);
    expect(records.rows[0].n).toBe(0);
    // Once signed in, the same request records the acceptance.
    await signedInTo(stranger, key);
    await as(stranger.cookie, app().post(`/v1/agreements/${key}/acceptances`)).send({ documentKey: 'terms', version: 1, language: 'en', sha256: digest('Terms.') }).expect(200);
  });

  it('who recorded it: a central platform\'s credential is refused (403), a platform-mode platform records and is named, in the record, its views and the audit log', async () => {
    const central = await platform('central');
    await published(central, 'terms', 'terms', true, 'Central terms.');
    await published(central, 'newsletter', 'custom', false, 'Central news.');
    const own = await platform('platform');
    await published(own, 'terms', 'terms', true, 'Own terms.');
    await published(own, 'newsletter', 'custom', false, 'Own news.');
    const person = await user();
    await signedInTo(person, central);
    await signedInTo(person, own);
    const accept = (documentKey: string, text: string) => ({ documentKey, version: 1, language: 'en', sha256: digest(text) });

    // A central platform's people accept in the account center: its credential cannot speak for them.
    const centralCredential = await platformCredential(person, central);
    const refused = await app().post(`/v1/agreements/${central}/acceptances`).set('Cookie', centralCredential).send(accept('terms', 'Central terms.')).expect(403);
    expect(refused.body.code).toBe('AGREEMENT_RECORDING_NOT_ALLOWED');
    await as(person.cookie, app().post(`/v1/agreements/${central}/acceptances`)).send(accept('newsletter', 'Central news.')).expect(200);
    expect((await app().post(`/v1/agreements/${central}/withdrawals`).set('Cookie', centralCredential).send({ documentKey: 'newsletter' }).expect(403)).body.code).toBe('AGREEMENT_RECORDING_NOT_ALLOWED');
    expect((await db().raw(`SELECT r.action, r.recorded_via FROM agreement_records r JOIN platforms p ON p.id = r.platform_id WHERE p.platform_key = ?`, [central])).rows).toEqual([{ action: 'accept', recorded_via: 'session' }]);

    // A platform-mode platform records what the person did on its pages, and is named for it.
    const ownCredential = await platformCredential(person, own);
    await app().post(`/v1/agreements/${own}/acceptances`).set('Cookie', ownCredential).send(accept('terms', 'Own terms.')).expect(200);
    await app().post(`/v1/agreements/${own}/acceptances`).set('Cookie', ownCredential).send(accept('newsletter', 'Own news.')).expect(200);
    await app().post(`/v1/agreements/${own}/withdrawals`).set('Cookie', ownCredential).send({ documentKey: 'newsletter' }).expect(200);
    const bearer = await idp.signJwt({ iss: idp.issuer, aud: GATEWAY_CLIENT, client_id: GATEWAY_CLIENT, sub: person.sub, iat: Math.floor(Date.now() / 1000), exp: Math.floor(Date.now() / 1000) + 300, scope: 'openid' });
    await app().post(`/v1/agreements/${own}/acceptances`).set('Authorization', `Bearer ${bearer}`).send(accept('newsletter', 'Own news.')).expect(200);

    const expected = [
      { documentKey: 'newsletter', action: 'accept', recordedVia: 'bearer', recordedByPlatformKey: null },
      { documentKey: 'newsletter', action: 'withdraw', recordedVia: 'platform', recordedByPlatformKey: own },
      { documentKey: 'newsletter', action: 'accept', recordedVia: 'platform', recordedByPlatformKey: own },
      { documentKey: 'terms', action: 'accept', recordedVia: 'platform', recordedByPlatformKey: own },
    ];
    const pick = (records: Record<string, unknown>[]) => records.map(({ documentKey, action, recordedVia, recordedByPlatformKey }) => ({ documentKey, action, recordedVia, recordedByPlatformKey }));
    // The person's own views, the platform's view, and the administrator's view of the person.
    const mine = (await as(person.cookie, app().get('/v1/agreements')).expect(200)).body.items;
    expect(pick(mine.find((item: { platformKey: string }) => item.platformKey === own).records)).toEqual(expected);
    expect(pick(mine.find((item: { platformKey: string }) => item.platformKey === central).records)).toEqual([{ documentKey: 'newsletter', action: 'accept', recordedVia: 'session', recordedByPlatformKey: null }]);
    expect(pick((await app().get(`/v1/agreements/${own}`).set('Cookie', ownCredential).expect(200)).body.records)).toEqual(expected);
    const schemaAdmin = await user(['onboarding:schema:read']);
    expect(pick((await as(schemaAdmin.cookie, app().get(`/v1/platforms/${own}/acceptances?sub=${person.sub}`)).expect(200)).body.records)).toEqual(expected);

    // The audit log says the same: which credential, and which platform's.
    const audit = (await db().raw(
      `SELECT action, document_key, actor_type, actor_user_id, actor_via, actor_platform_key FROM audit_events WHERE platform_key = ? AND action LIKE 'document.%' AND action <> 'document.publish' ORDER BY occurred_at, id`,
      [own],
    )).rows;
    expect(audit).toEqual([
      { action: 'document.accept', document_key: 'terms', actor_type: 'user', actor_user_id: person.id, actor_via: 'platform', actor_platform_key: own },
      { action: 'document.accept', document_key: 'newsletter', actor_type: 'user', actor_user_id: person.id, actor_via: 'platform', actor_platform_key: own },
      { action: 'document.withdraw', document_key: 'newsletter', actor_type: 'user', actor_user_id: person.id, actor_via: 'platform', actor_platform_key: own },
      { action: 'document.accept', document_key: 'newsletter', actor_type: 'user', actor_user_id: person.id, actor_via: 'bearer', actor_platform_key: null },
    ]);
    const operator = await user(['platforms:admin']);
    const events = (await as(operator.cookie, app().get(`/v1/audit-events?platformKey=${own}&action=document.withdraw`)).expect(200)).body.items;
    expect(events.map((event: { actor: unknown }) => event.actor)).toEqual([{ type: 'user', userId: person.id, sub: person.sub, via: 'platform', platformKey: own }]);

    // A row without who recorded it is refused from now on (rows from before the migration keep NULL).
    await expect(db().raw(
      `INSERT INTO agreement_records (user_id, platform_id, document_id, version_id, version, action, text_digest, language)
       SELECT user_id, platform_id, document_id, version_id, version, 'accept', text_digest, language FROM agreement_records WHERE user_id = ? LIMIT 1`,
      [person.id],
    )).rejects.toThrow(/agreement_records_recorded_via_required/);
  });
});
