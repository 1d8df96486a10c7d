// Issue 10: GET /v1/me and the canonical profile, with each credential, over real HTTP on
// real PostgreSQL (responses checked against the contract by createTestApp).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import { randomBytes } from 'node:crypto';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { startFakeIdp, type FakeIdp } from '../helpers/fakeIdp.ts';
import { upsertUserFromIdp } from '../../src/services/account/usersRepository.ts';
import { createSession } from '../../src/services/sessions/create.ts';
import { createPlatform, CLI_ACTOR } from '../../src/services/registry/index.ts';
import { createFieldDefinition } from '../../src/services/onboarding/schema.ts';
import { randomToken, sha256 } from '../../src/security/crypto.ts';
import type { Permission } from '../../src/domain/types.ts';

const ACCOUNT_CENTER = 'http://account.test';
const CLIENT = 'profile-gateway';

describe('the caller and the profile (issue 10)', () => {
  let database: TestDatabase;
  let idp: FakeIdp;
  let gateway: TestApp;
  let seq = 0;

  beforeAll(async () => {
    database = await createTestDatabase();
    idp = await startFakeIdp({ clientId: CLIENT, clientSecret: randomBytes(24).toString('base64url') });
    gateway = await createTestApp({ db: database.db, oidc: { issuer: idp.issuer, clientId: CLIENT, clientSecret: idp.clientSecret } });
  });
  afterAll(async () => {
    await idp?.close();
    await database?.drop();
  });

  async function user(permissions: Permission[] = [], claims: Partial<{ givenName: string; familyName: string; name: string; email: string }> = {}) {
    const sub = `profile-user-${++seq}`;
    const row = await upsertUserFromIdp(database.db, {
      sub,
      email: claims.email ?? null,
      emailVerified: false,
      displayName: claims.name ?? null,
      givenName: claims.givenName ?? null,
      familyName: claims.familyName ?? null,
    });
    const session = await createSession(database.db, { userId: row.id, permissions, ttlSeconds: 3600 });
    return { id: row.id, sub, sessionId: session.id, cookie: `gw_session=${session.token}` };
  }

  async function platformCredential(owner: { sessionId: string }, platformKey: string): Promise<string> {
    const token = `gwp_${randomToken()}`;
    await database.db.raw(`INSERT INTO platform_credentials (session_id, platform_id, token_digest) SELECT ?, id, ? FROM platforms WHERE platform_key = ?`, [owner.sessionId, sha256(token), platformKey]);
    return `gw_session=${token}`;
  }

  const bearer = async (sub: string, extra: Record<string, unknown> = {}) => {
    const now = Math.floor(Date.now() / 1000);
    return idp.signJwt({ iss: idp.issuer, aud: CLIENT, client_id: CLIENT, sub, iat: now - 60, exp: now + 300, ...extra });
  };

  describe('GET /v1/me', () => {
    it('with the browser session: the user, the permissions, when they were read, the session and each platform with its status', async () => {
      const admin = await user(['platforms:admin'], { name: 'Ada Lovelace', givenName: 'Ada', familyName: 'Lovelace', email: 'ada@example.test' });
      const key = `ME_${++seq}`;
      await createPlatform(database.db, { platformKey: key, displayName: 'Me platform', callbackUrl: 'https://p.example/cb', allowedReturnUrls: ['https://p.example/'] }, CLI_ACTOR);
      await createFieldDefinition(database.db, key, { fieldKey: 'company', label: 'Company', fieldType: 'TEXT', required: true }, CLI_ACTOR);
      await database.db.raw(`INSERT INTO platform_memberships (user_id, platform_id) SELECT ?, id FROM platforms WHERE platform_key = ?`, [admin.id, key]);

      const res = await request(gateway.app).get('/v1/me').set('Cookie', admin.cookie).expect(200);
      expect(res.body).toEqual({
        user: { id: admin.id, sub: admin.sub, email: 'ada@example.test', displayName: 'Ada Lovelace', pictureUrl: null, locale: null },
        permissions: ['platforms:admin'],
        permissionsReadAt: expect.any(String),
        authentication: 'session',
        platform: null,
        session: { id: admin.sessionId, expiresAt: expect.any(String) },
        memberships: [{ platformKey: key, displayName: 'Me platform', onboarding: { status: 'NOT_STARTED', requirementVersion: 2, missingFields: ['company'], canCompleteCentrally: true, missingDocuments: [], acceptedDocuments: [] } }],
      });
      expect(Math.abs(Date.parse(res.body.permissionsReadAt) - Date.now())).toBeLessThan(60_000);
    });

    it("with a platform credential: platforms:admin is not in effect, and the bound platform is named", async () => {
      const admin = await user(['platforms:admin', 'onboarding:schema:read']);
      const key = `MEP_${++seq}`;
      await createPlatform(database.db, { platformKey: key, displayName: key, callbackUrl: 'https://p.example/cb', allowedReturnUrls: ['https://p.example/'] }, CLI_ACTOR);
      const res = await request(gateway.app).get('/v1/me').set('Cookie', await platformCredential(admin, key)).expect(200);
      expect(res.body).toMatchObject({ permissions: ['onboarding:schema:read'], authentication: 'platform', platform: key, session: { id: admin.sessionId } });
    });

    it('with a Bearer token: no session; the permissions were read when the token was issued', async () => {
      const member = await user();
      const token = await bearer(member.sub, { scope: 'onboarding:schema:read' });
      const res = await request(gateway.app).get('/v1/me').set('Authorization', `Bearer ${token}`).expect(200);
      expect(res.body).toMatchObject({ authentication: 'bearer', session: null, permissions: ['onboarding:schema:read'], platform: null });
      // The token's own iat (a minute before it was minted), not the clock when the answer came.
      const { iat } = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { iat: number };
      expect(Date.parse(res.body.permissionsReadAt)).toBe(iat * 1000);
    });

    it('without credentials 401; a Bearer subject who never signed in 403', async () => {
      await request(gateway.app).get('/v1/me').expect(401);
      const stranger = await bearer('never-signed-in');
      expect((await request(gateway.app).get('/v1/me').set('Authorization', `Bearer ${stranger}`).expect(403)).body.code).toBe('FORBIDDEN');
    });
  });

  describe('the profile', () => {
    it('is prefilled from the ID token at the first login; a later login refreshes the e-mail only', async () => {
      const member = await user([], { givenName: 'Grace', familyName: 'Hopper', name: 'Grace Hopper', email: 'grace@old.example' });
      await request(gateway.app).patch('/v1/profile/me').set('Cookie', member.cookie).set('Origin', ACCOUNT_CENTER).send({ firstName: 'Amazing Grace' }).expect(200);
      await upsertUserFromIdp(database.db, { sub: member.sub, email: 'grace@new.example', emailVerified: true, displayName: 'G. Hopper', givenName: 'G.', familyName: 'H.' });
      const profile = await request(gateway.app).get('/v1/profile/me').set('Cookie', member.cookie).expect(200);
      expect(profile.body).toMatchObject({ firstName: 'Amazing Grace', lastName: 'Hopper', displayName: 'Grace Hopper', email: 'grace@new.example', pictureUrl: null });
    });

    it('PATCH changes only what is sent, with the onboarding value rules (E.164, countries, dates)', async () => {
      const member = await user([], { givenName: 'Alan', familyName: 'Turing' });
      const patch = (body: Record<string, unknown>) => request(gateway.app).patch('/v1/profile/me').set('Cookie', member.cookie).set('Origin', ACCOUNT_CENTER).send(body);
      const updated = await patch({ phone: '+44 20 7183 8750', country: 'GB', dateOfBirth: '1912-06-23', locale: 'en-GB' }).expect(200);
      expect(updated.body).toMatchObject({ firstName: 'Alan', lastName: 'Turing', phone: '+442071838750', country: 'GB', dateOfBirth: '1912-06-23', locale: 'en-GB' });
      const cleared = await patch({ phone: null }).expect(200);
      expect(cleared.body).toMatchObject({ phone: null, country: 'GB' });
    });

    it('a refused PATCH changes nothing: one error per property with pointer and reason', async () => {
      const member = await user([], { givenName: 'Kay' });
      const res = await request(gateway.app).patch('/v1/profile/me').set('Cookie', member.cookie).set('Origin', ACCOUNT_CENTER)
        .send({ firstName: 'Ok', phone: '+1234', country: 'XK', dateOfBirth: '2001-02-29' }).expect(400);
      expect(res.body.errors).toEqual(expect.arrayContaining([
        { pointer: '/body/phone', reason: 'INVALID_PHONE', message: expect.any(String) },
        { pointer: '/body/country', reason: 'INVALID_COUNTRY', message: expect.any(String) },
        { pointer: '/body/dateOfBirth', reason: expect.stringMatching(/INVALID_DATE|WRONG_TYPE/), message: expect.any(String) },
      ]));
      const profile = await request(gateway.app).get('/v1/profile/me').set('Cookie', member.cookie).expect(200);
      expect(profile.body.firstName).toBe('Kay');
      const readOnly = await request(gateway.app).patch('/v1/profile/me').set('Cookie', member.cookie).set('Origin', ACCOUNT_CENTER).send({ email: 'x@y.z' }).expect(400);
      expect(readOnly.body.errors).toEqual([expect.objectContaining({ pointer: '/body/email' })]);
    });

    it('a date of birth is not after today (anywhere on Earth) nor more than 150 years back', async () => {
      const member = await user([], { givenName: 'Future' });
      const patch = (dateOfBirth: string) => request(gateway.app).patch('/v1/profile/me').set('Cookie', member.cookie).set('Origin', ACCOUNT_CENTER).send({ dateOfBirth });
      const day = (offsetDays: number, years = 0) => {
        const date = new Date(Date.now() + offsetDays * 86_400_000);
        date.setUTCFullYear(date.getUTCFullYear() + years);
        return date.toISOString().slice(0, 10);
      };
      const future = await patch(day(2)).expect(400);
      expect(future.body.errors).toEqual([{ pointer: '/body/dateOfBirth', reason: 'ABOVE_MAX', message: expect.stringMatching(/after today/) }]);
      const ancient = await patch(day(-2, -150)).expect(400);
      expect(ancient.body.errors).toEqual([{ pointer: '/body/dateOfBirth', reason: 'BELOW_MIN', message: expect.any(String) }]);
      await patch(day(0)).expect(200);
      await patch(day(2, -150)).expect(200);
      // An onboarding DATE field that is not a birth date keeps its own rules (a future date is fine).
      const key = `DOB_${++seq}`;
      await createPlatform(database.db, { platformKey: key, displayName: key, callbackUrl: 'https://p.example/cb', allowedReturnUrls: ['https://p.example/'] }, CLI_ACTOR);
      await createFieldDefinition(database.db, key, { fieldKey: 'startDate', label: 'Start', fieldType: 'DATE', source: 'CUSTOM_FIELD', required: false }, CLI_ACTOR);
      await createFieldDefinition(database.db, key, { fieldKey: 'born', label: 'Born', fieldType: 'DATE', source: 'PROFILE_FIELD', profileField: 'dateOfBirth', required: false }, CLI_ACTOR);
      const values = (body: Record<string, unknown>) => request(gateway.app).put(`/v1/onboarding/${key}/values`).set('Cookie', member.cookie).set('Origin', ACCOUNT_CENTER).send({ values: body });
      await values({ startDate: day(30) }).expect(200);
      // A field bound to the profile's date of birth writes it: the birth-date rule applies there too.
      const bound = await values({ born: day(30) }).expect(400);
      expect(bound.body.errors).toEqual([expect.objectContaining({ pointer: '/body/values/born', reason: 'ABOVE_MAX' })]);
    });

    it('every refusal of a property carries its reason, the contract schema\'s too (maxLength, type, unknown)', async () => {
      const member = await user([], { givenName: 'Long' });
      const patch = (body: Record<string, unknown>) => request(gateway.app).patch('/v1/profile/me').set('Cookie', member.cookie).set('Origin', ACCOUNT_CENTER).send(body);
      const tooLong = await patch({ firstName: 'x'.repeat(1001) }).expect(400);
      expect(tooLong.body.errors).toEqual([{ pointer: '/body/firstName', reason: 'TOO_LONG', message: expect.any(String) }]);
      const locale = await patch({ locale: `en-${'x'.repeat(40)}` }).expect(400);
      expect(locale.body.errors.every((error: { reason?: string }) => typeof error.reason === 'string')).toBe(true);
      const wrongType = await patch({ lastName: 42 }).expect(400);
      expect(wrongType.body.errors).toEqual([{ pointer: '/body/lastName', reason: 'WRONG_TYPE', message: expect.any(String) }]);
      const unknown = await patch({ nickname: 'x' }).expect(400);
      expect(unknown.body.errors).toEqual([{ pointer: '/body/nickname', reason: 'UNKNOWN_PROPERTY', message: expect.any(String) }]);
      const empty = await patch({}).expect(400);
      expect(empty.body.errors).toEqual([expect.objectContaining({ pointer: '/body', reason: 'TOO_FEW' })]);
    });

    it('a lone UTF-16 surrogate in a JSON string is 400 VALIDATION_FAILED with its pointer, not a 500 from PostgreSQL', async () => {
      const member = await user([], { givenName: 'Lone' });
      const res = await request(gateway.app).patch('/v1/profile/me').set('Cookie', member.cookie).set('Origin', ACCOUNT_CENTER)
        .set('Content-Type', 'application/json').send('{"locale":"en-GB","displayName":"a\\ud800b"}').expect(400);
      expect(res.body).toMatchObject({ code: 'VALIDATION_FAILED', errors: [{ pointer: '/body/displayName', reason: 'ILL_FORMED_UNICODE', message: expect.any(String) }] });
      // A well-formed pair (an emoji written as escapes) is fine.
      await request(gateway.app).patch('/v1/profile/me').set('Cookie', member.cookie).set('Origin', ACCOUNT_CENTER)
        .set('Content-Type', 'application/json').send('{"displayName":"a\\ud83d\\ude00b"}').expect(200);
    });

    it('a profile change is seen at once by every platform that binds the property', async () => {
      const member = await user();
      const key = `PRF_${++seq}`;
      await createPlatform(database.db, { platformKey: key, displayName: key, callbackUrl: 'https://p.example/cb', allowedReturnUrls: ['https://p.example/'] }, CLI_ACTOR);
      await createFieldDefinition(database.db, key, { fieldKey: 'homeCountry', label: 'Country', fieldType: 'COUNTRY', source: 'PROFILE_FIELD', profileField: 'country', required: true }, CLI_ACTOR);
      await request(gateway.app).patch('/v1/profile/me').set('Cookie', member.cookie).set('Origin', ACCOUNT_CENTER).send({ country: 'NL' }).expect(200);
      const requirements = await request(gateway.app).get(`/v1/onboarding/${key}/requirements`).set('Cookie', member.cookie).expect(200);
      expect(requirements.body.fields[0]).toMatchObject({ fieldKey: 'homeCountry', currentValue: 'NL' });
    });

    it('Bearer and platform credentials read and write the profile; a cookie write from another origin is refused', async () => {
      const member = await user();
      const token = await bearer(member.sub);
      await request(gateway.app).patch('/v1/profile/me').set('Authorization', `Bearer ${token}`).set('Origin', 'https://evil.example').send({ lastName: 'Bearer' }).expect(200);
      const key = `PRC_${++seq}`;
      await createPlatform(database.db, { platformKey: key, displayName: key, callbackUrl: 'https://p.example/cb', allowedReturnUrls: ['https://p.example/'] }, CLI_ACTOR);
      const credential = await platformCredential(member, key);
      const read = await request(gateway.app).get('/v1/profile/me').set('Cookie', credential).expect(200);
      expect(read.body.lastName).toBe('Bearer');
      await request(gateway.app).patch('/v1/profile/me').set('Cookie', credential).send({ firstName: 'Platform' }).expect(200);
      const evil = await request(gateway.app).patch('/v1/profile/me').set('Cookie', member.cookie).set('Origin', 'https://evil.example').send({ firstName: 'Evil' }).expect(403);
      expect(evil.body.code).toBe('ORIGIN_NOT_ALLOWED');
      await request(gateway.app).get('/v1/profile/me').expect(401);
    });
  });

  describe('account deletion (local effects)', () => {
    it('revokes every session and platform credential at once, expires pending handoffs, refuses the deleted Bearer subject', async () => {
      const member = await user();
      const other = await createSession(database.db, { userId: member.id, permissions: [], ttlSeconds: 3600 });
      const key = `DEL_${++seq}`;
      await createPlatform(database.db, { platformKey: key, displayName: key, callbackUrl: 'https://p.example/cb', allowedReturnUrls: ['https://p.example/'] }, CLI_ACTOR);
      const credential = await platformCredential(member, key);
      // A pending handoff of the user
      const tx = await database.db.raw(
        `INSERT INTO auth_transactions (platform_id, state_digest, nonce_digest, onboarding_mode, platform_callback_url, return_to, user_id, session_id, expires_at, consumed_at)
         SELECT id, ?, ?, 'none', 'https://p.example/cb', 'https://p.example/', ?, ?, now() + interval '10 minutes', now() FROM platforms WHERE platform_key = ? RETURNING id, platform_id`,
        [sha256(randomToken()), sha256(randomToken()), member.id, member.sessionId, key],
      );
      await database.db.raw(`INSERT INTO handoff_codes (code_digest, transaction_id, platform_id, user_id, session_id, onboarding, expires_at) VALUES (?, ?, ?, ?, ?, '{}', now() + interval '1 minute')`,
        [sha256(randomToken()), tx.rows[0].id, tx.rows[0].platform_id, member.id, member.sessionId]);

      const deleted = await request(gateway.app).delete('/v1/account/me').set('Cookie', member.cookie).set('Origin', ACCOUNT_CENTER).expect(204);
      expect(deleted.headers['set-cookie']?.[0]).toMatch(/^gw_session=; .*Expires=Thu, 01 Jan 1970/);

      await request(gateway.app).get('/v1/me').set('Cookie', member.cookie).expect(401);
      await request(gateway.app).get('/v1/me').set('Cookie', `gw_session=${other.token}`).expect(401);
      await request(gateway.app).get('/v1/me').set('Cookie', credential).expect(401);
      const { rows } = await database.db.raw(`SELECT count(*) AS n FROM handoff_codes WHERE user_id = ? AND consumed_at IS NULL AND expires_at > now()`, [member.id]);
      expect(Number(rows[0].n)).toBe(0);
      const refused = await request(gateway.app).get('/v1/me').set('Authorization', `Bearer ${await bearer(member.sub)}`).expect(403);
      expect(refused.body.code).toBe('ACCOUNT_DELETED');
      const userRow = await database.db.raw("SELECT deleted_at FROM users WHERE id = ?", [member.id]);
      expect(userRow.rows[0].deleted_at).toBeInstanceOf(Date);
    });

    it('a platform credential cannot delete the account', async () => {
      const member = await user();
      const key = `DLP_${++seq}`;
      await createPlatform(database.db, { platformKey: key, displayName: key, callbackUrl: 'https://p.example/cb', allowedReturnUrls: ['https://p.example/'] }, CLI_ACTOR);
      await request(gateway.app).delete('/v1/account/me').set('Cookie', await platformCredential(member, key)).expect(403);
      await request(gateway.app).get('/v1/me').set('Cookie', member.cookie).expect(200);
    });
  });
});
