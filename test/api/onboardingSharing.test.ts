// Issue 36, part 2: asking before sharing a profile value another platform was told. Real HTTP
// against real PostgreSQL; every response is checked against the contract (createTestApp).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import { randomBytes } from 'node:crypto';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { startFakeIdp, type FakeIdp } from '../helpers/fakeIdp.ts';
import { upsertUserFromIdp } from '../../src/services/account/usersRepository.ts';
import { createSession } from '../../src/services/sessions/create.ts';
import { createPlatform, CLI_ACTOR } from '../../src/services/registry/index.ts';
import { archiveFieldDefinition, createFieldDefinition } from '../../src/services/onboarding/schema.ts';
import { writeDataExportDocument } from '../../src/services/dataRights/document.ts';
import { sha256, randomToken } from '../../src/security/crypto.ts';

const ACCOUNT_CENTER = 'http://account.test';
const GATEWAY_CLIENT = 'sharing-gateway';
/** A platform's own app: trusted (its tokens are accepted), not central. */
const PLATFORM_APP = 'sharing-platform-app';
const PHONE_A = '+4930123456';
const PHONE_OWN = '+4940987654';

type Sharing = 'shared' | 'ask' | 'own';

describe('asking before sharing (issue 36)', () => {
  let database: TestDatabase;
  let idp: FakeIdp;
  let gateway: TestApp;
  let seq = 0;

  beforeAll(async () => {
    database = await createTestDatabase();
    idp = await startFakeIdp({ clientId: GATEWAY_CLIENT, clientSecret: randomBytes(24).toString('base64url') });
    gateway = await createTestApp({
      db: database.db,
      oidc: { issuer: idp.issuer, clientId: GATEWAY_CLIENT, clientSecret: idp.clientSecret },
      env: { OIDC_TRUSTED_CLIENT_IDS: `${GATEWAY_CLIENT},${PLATFORM_APP}` },
    });
  });
  afterAll(async () => {
    await idp?.close();
    await database?.drop();
  });
  const db = () => database.db;

  /** A platform (receiving events by poll) whose schema binds the phone with `sharing`. */
  async function platform(sharing: Sharing): Promise<string> {
    const key = `SHR_${++seq}_${randomBytes(2).toString('hex').toUpperCase()}`;
    await createPlatform(db(), { platformKey: key, displayName: `Platform ${key}`, callbackUrl: 'https://p.example/cb', allowedReturnUrls: ['https://p.example/'], defaultOnboardingMode: 'central', eventDelivery: 'poll' }, CLI_ACTOR);
    await createFieldDefinition(db(), key, { fieldKey: 'mobile', label: 'Mobile', fieldType: 'PHONE', source: 'PROFILE_FIELD', profileField: 'phone', required: true, sharing }, CLI_ACTOR);
    return key;
  }

  async function person() {
    const sub = `sharing-user-${++seq}`;
    const row = await upsertUserFromIdp(db(), { sub, email: null, emailVerified: false, displayName: null, givenName: null, familyName: null });
    const session = await createSession(db(), { userId: row.id, permissions: [], ttlSeconds: 3600 });
    return { id: row.id, sub, sessionId: session.id, cookie: `gw_session=${session.token}` };
  }

  /** An access token of the person for `clientId`, with the platform claim when given. */
  function bearerOf(owner: { sub: string }, clientId: string, platformKey?: string | string[]): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    return idp.signJwt({ iss: idp.issuer, aud: GATEWAY_CLIENT, iat: now, exp: now + 300, sub: owner.sub, client_id: clientId, ...(platformKey ? { platform_key: platformKey } : {}) });
  }
  const asBearer = (method: 'get' | 'put' | 'post' | 'patch', path: string, token: string) => request(gateway.app)[method](path).set('Authorization', `Bearer ${token}`);

  /** The platform's own credential for the person's session (as the exchange stores it). */
  async function credentialOf(owner: { sessionId: string }, platformKey: string): Promise<string> {
    const token = `gwp_${randomToken()}`;
    await db().raw(`INSERT INTO platform_credentials (session_id, platform_id, token_digest) SELECT ?, id, ? FROM platforms WHERE platform_key = ?`, [owner.sessionId, sha256(token), platformKey]);
    return `gw_session=${token}`;
  }

  /** As the person's browser (with the account center's Origin), or as the platform's back end (credential, no Origin). */
  const asPerson = (method: 'get' | 'put' | 'post' | 'patch', path: string, cookie: string) => request(gateway.app)[method](path).set('Cookie', cookie).set('Origin', ACCOUNT_CENTER);
  const asPlatform = (method: 'get' | 'put' | 'post' | 'patch', path: string, credential: string) => request(gateway.app)[method](path).set('Cookie', credential);
  const mobileOf = (body: { fields: { fieldKey: string; currentValue: unknown; sharedOffer: unknown; sharing: string }[] }) => body.fields.find((field) => field.fieldKey === 'mobile')!;

  /** A person who gave platform A (phone `shared`) their number. */
  async function gaveA() {
    const a = await platform('shared');
    const someone = await person();
    await asPerson('put', `/v1/onboarding/${a}/values`, someone.cookie).send({ values: { mobile: PHONE_A } }).expect(200);
    return { a, someone };
  }

  const storedRow = async (userId: string, key: string) =>
    (await db().raw(`SELECT v.value, v.shared, s.platform_key AS "from" FROM onboarding_values v JOIN platforms p ON p.id = v.platform_id
                      LEFT JOIN platforms s ON s.id = v.shared_from_platform_id WHERE v.user_id = ? AND p.platform_key = ?`, [userId, key])).rows;
  const profileEvents = async (userId: string, key: string) =>
    Number((await db().raw(`SELECT count(*) AS n FROM security_events e JOIN platforms p ON p.id = e.platform_id WHERE e.user_id = ? AND p.platform_key = ? AND e.event_type LIKE '%profile%'`, [userId, key])).rows[0].n);

  describe('the schema', () => {
    it('a profile-bound field is shared unless told otherwise; a sharing rule on a custom field is refused with NOT_PROFILE_BOUND', async () => {
      const key = await platform('ask');
      const bound = await createFieldDefinition(db(), key, { fieldKey: 'born', label: 'Born', fieldType: 'DATE', source: 'PROFILE_FIELD', profileField: 'dateOfBirth' }, CLI_ACTOR);
      expect(bound.applied && bound.field.sharing).toBe('shared');
      await expect(createFieldDefinition(db(), key, { fieldKey: 'company', label: 'Company', fieldType: 'TEXT', sharing: 'ask' }, CLI_ACTOR)).rejects.toMatchObject({
        code: 'VALIDATION_FAILED',
        errors: [{ pointer: '/body/sharing', reason: 'NOT_PROFILE_BOUND', message: expect.any(String) }],
      });
      const custom = await createFieldDefinition(db(), key, { fieldKey: 'company', label: 'Company', fieldType: 'TEXT' }, CLI_ACTOR);
      expect(custom.applied && custom.field.sharing).toBeNull();
    });
  });

  describe('shared (as before)', () => {
    it('the value given to A is B\'s value at once, and B hears of A\'s changes', async () => {
      const { a, someone } = await gaveA();
      const b = await platform('shared');
      await asPerson('get', `/v1/onboarding/${b}/status`, someone.cookie).expect(200);
      const requirements = await asPlatform('get', `/v1/onboarding/${b}/requirements`, await credentialOf(someone, b)).expect(200);
      expect(mobileOf(requirements.body)).toMatchObject({ sharing: 'shared', currentValue: PHONE_A, sharedOffer: null });
      await asPerson('put', `/v1/onboarding/${a}/values`, someone.cookie).send({ values: { mobile: PHONE_OWN } }).expect(200);
      expect(await profileEvents(someone.id, b)).toBe(1);
    });
  });

  describe('ask', () => {
    it('B never receives A\'s value before the person confirms; only the person sees the offer, naming A', async () => {
      const { a, someone } = await gaveA();
      const b = await platform('ask');
      const credential = await credentialOf(someone, b);
      // The platform (its credential) reads nothing: no value, no offer, the field is missing.
      const byPlatform = await asPlatform('get', `/v1/onboarding/${b}/requirements`, credential).expect(200);
      expect(mobileOf(byPlatform.body)).toMatchObject({ sharing: 'ask', currentValue: null, sharedOffer: null });
      expect(JSON.stringify(byPlatform.body)).not.toContain(PHONE_A);
      const status = await asPlatform('get', `/v1/onboarding/${b}/status`, credential).expect(200);
      expect(status.body.missingFields).toEqual(['mobile']);
      // The person sees the offer.
      const byPerson = await asPerson('get', `/v1/onboarding/${b}/requirements`, someone.cookie).expect(200);
      expect(mobileOf(byPerson.body)).toMatchObject({ currentValue: null, sharedOffer: { value: PHONE_A, fromPlatform: { platformKey: a, displayName: `Platform ${a}` } } });
      // Nor through the profile: its credential reads its own (empty) phone, not A's.
      const profile = await asPlatform('get', '/v1/profile/me', credential).expect(200);
      expect(profile.body.phone).toBeNull();
      // The platform cannot confirm for the person.
      const forged = await asPlatform('put', `/v1/onboarding/${b}/values`, credential).send({ values: {}, acceptShared: ['mobile'] }).expect(403);
      expect(forged.body.code).toBe('FORBIDDEN');
      expect(await storedRow(someone.id, b)).toEqual([]);
      // A's value changing is not B's business before (or after) it was shared.
      await asPerson('put', `/v1/onboarding/${a}/values`, someone.cookie).send({ values: { mobile: PHONE_A } }).expect(200);
      expect(await profileEvents(someone.id, b)).toBe(0);
    });

    it('confirm: B gets A\'s value as its own copy, marked shared from A; A changing it later does not change B\'s', async () => {
      const { a, someone } = await gaveA();
      const b = await platform('ask');
      const confirmed = await asPerson('put', `/v1/onboarding/${b}/values`, someone.cookie).send({ values: {}, acceptShared: ['mobile'] }).expect(200);
      expect(confirmed.body).toMatchObject({ values: { mobile: PHONE_A }, onboarding: { missingFields: [] } });
      expect(await storedRow(someone.id, b)).toEqual([{ value: PHONE_A, shared: true, from: a }]);
      // The page sends the whole map back: an unchanged copy stays shared.
      await asPerson('put', `/v1/onboarding/${b}/values`, someone.cookie).send({ values: { mobile: PHONE_A } }).expect(200);
      expect(await storedRow(someone.id, b)).toEqual([{ value: PHONE_A, shared: true, from: a }]);
      await asPerson('put', `/v1/onboarding/${a}/values`, someone.cookie).send({ values: { mobile: PHONE_OWN } }).expect(200);
      const credential = await credentialOf(someone, b);
      const byPlatform = await asPlatform('get', `/v1/onboarding/${b}/requirements`, credential).expect(200);
      expect(mobileOf(byPlatform.body)).toMatchObject({ currentValue: PHONE_A, sharedOffer: null });
      expect((await asPlatform('get', '/v1/profile/me', credential).expect(200)).body.phone).toBe(PHONE_A);
    });

    it('enter another: it is B\'s own, the profile (and A) keep theirs, and a later confirmation does not overwrite it', async () => {
      const { a, someone } = await gaveA();
      const b = await platform('ask');
      await asPerson('put', `/v1/onboarding/${b}/values`, someone.cookie).send({ values: { mobile: PHONE_OWN } }).expect(200);
      expect(await storedRow(someone.id, b)).toEqual([{ value: PHONE_OWN, shared: false, from: null }]);
      const profile = await asPerson('get', '/v1/profile/me', someone.cookie).expect(200);
      expect(profile.body.phone).toBe(PHONE_A);
      const onA = await asPerson('get', `/v1/onboarding/${a}/requirements`, someone.cookie).expect(200);
      expect(mobileOf(onA.body).currentValue).toBe(PHONE_A);
      // A stale second tab confirming the offer: the first answer stands.
      const stale = await asPerson('put', `/v1/onboarding/${b}/values`, someone.cookie).send({ values: {}, acceptShared: ['mobile'] }).expect(200);
      expect(stale.body.values).toEqual({ mobile: PHONE_OWN });
      expect(await storedRow(someone.id, b)).toEqual([{ value: PHONE_OWN, shared: false, from: null }]);
    });

    it('a number changed in the account center is offered as the profile\'s, no longer as the one given to A', async () => {
      const { someone } = await gaveA();
      const b = await platform('ask');
      await asPerson('patch', '/v1/profile/me', someone.cookie).send({ phone: PHONE_OWN }).expect(200);
      const byPerson = await asPerson('get', `/v1/onboarding/${b}/requirements`, someone.cookie).expect(200);
      expect(mobileOf(byPerson.body).sharedOffer).toEqual({ value: PHONE_OWN, fromPlatform: null });
    });

    it('double submission: two confirmations at once record one answer and the same value', async () => {
      const { a, someone } = await gaveA();
      const b = await platform('ask');
      const put = () => asPerson('put', `/v1/onboarding/${b}/values`, someone.cookie).send({ values: {}, acceptShared: ['mobile'] });
      const answers = await Promise.all([put(), put(), put()]);
      expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200]);
      expect(answers.map((answer) => answer.body.values.mobile)).toEqual([PHONE_A, PHONE_A, PHONE_A]);
      expect(await storedRow(someone.id, b)).toEqual([{ value: PHONE_A, shared: true, from: a }]);
    });

    it('refuses a confirmation with nothing to share, of a field that does not ask, or together with a value', async () => {
      const b = await platform('ask');
      const nobody = await person();
      const empty = await asPerson('put', `/v1/onboarding/${b}/values`, nobody.cookie).send({ values: {}, acceptShared: ['mobile'] }).expect(400);
      expect(empty.body.errors).toEqual([{ pointer: '/body/acceptShared/0', reason: 'NOTHING_TO_SHARE', message: expect.any(String) }]);
      const { someone } = await gaveA();
      const both = await asPerson('put', `/v1/onboarding/${b}/values`, someone.cookie).send({ values: { mobile: PHONE_OWN }, acceptShared: ['mobile'] }).expect(400);
      expect(both.body.errors[0]).toMatchObject({ pointer: '/body/acceptShared/0', reason: 'NOTHING_TO_SHARE' });
      const shared = await platform('shared');
      const notAsk = await asPerson('put', `/v1/onboarding/${shared}/values`, someone.cookie).send({ values: {}, acceptShared: ['mobile'] }).expect(400);
      expect(notAsk.body.errors[0]).toMatchObject({ pointer: '/body/acceptShared/0', reason: 'NOTHING_TO_SHARE' });
      expect(await storedRow(someone.id, b)).toEqual([]);
    });
  });

  describe('own', () => {
    it('never takes nor offers the profile\'s value, and its own value stays with it', async () => {
      const { a, someone } = await gaveA();
      const c = await platform('own');
      const byPerson = await asPerson('get', `/v1/onboarding/${c}/requirements`, someone.cookie).expect(200);
      expect(mobileOf(byPerson.body)).toMatchObject({ sharing: 'own', currentValue: null, sharedOffer: null });
      const refused = await asPerson('put', `/v1/onboarding/${c}/values`, someone.cookie).send({ values: {}, acceptShared: ['mobile'] }).expect(400);
      expect(refused.body.errors[0]).toMatchObject({ reason: 'NOTHING_TO_SHARE' });
      await asPerson('put', `/v1/onboarding/${c}/values`, someone.cookie).send({ values: { mobile: PHONE_OWN } }).expect(200);
      expect(await storedRow(someone.id, c)).toEqual([{ value: PHONE_OWN, shared: false, from: null }]);
      const onA = await asPerson('get', `/v1/onboarding/${a}/requirements`, someone.cookie).expect(200);
      expect(mobileOf(onA.body).currentValue).toBe(PHONE_A);
    });
  });

  describe('who may read a value the person did not share (review of issue 36)', () => {
    /** A person who gave A (shared) their number, and B (`ask`) and C (`own`) their own numbers. */
    async function gaveEveryone() {
      const { a, someone } = await gaveA();
      const b = await platform('ask');
      const c = await platform('own');
      await asPerson('put', `/v1/onboarding/${c}/values`, someone.cookie).send({ values: { mobile: PHONE_OWN } }).expect(200);
      return { a, b, c, someone };
    }

    it('a platform credential writing the profile gets back what it may read, not the value given to another platform', async () => {
      const { b, someone } = await gaveEveryone();
      const patched = await asPlatform('patch', '/v1/profile/me', await credentialOf(someone, b)).send({ country: 'DE', lastName: 'Platform' }).expect(200);
      // B's schema binds the phone (ask), not the country: it wrote the country for the person, and reads neither.
      expect(patched.body).toMatchObject({ country: null, phone: null, lastName: 'Platform' });
      expect((await asPerson('get', '/v1/profile/me', someone.cookie).expect(200)).body).toMatchObject({ country: 'DE', phone: PHONE_A });
    });

    it('a platform reads the date of birth, phone and country only where its schema binds them (the names come with the sign-in)', async () => {
      const { a, someone } = await gaveA();
      await asPerson('patch', '/v1/profile/me', someone.cookie).send({ country: 'DE', dateOfBirth: '1990-04-01', firstName: 'Ada' }).expect(200);
      // A binds the phone (shared): it reads the phone, not the country or the date of birth the person gave elsewhere.
      expect((await asPlatform('get', '/v1/profile/me', await credentialOf(someone, a)).expect(200)).body).toMatchObject({ phone: PHONE_A, country: null, dateOfBirth: null, firstName: 'Ada' });
      // A platform whose schema binds nothing of the profile reads none of the three.
      const bare = `SHR_${++seq}_NONE`;
      await createPlatform(db(), { platformKey: bare, displayName: bare, callbackUrl: 'https://p.example/cb', allowedReturnUrls: ['https://p.example/'], defaultOnboardingMode: 'central', eventDelivery: 'poll' }, CLI_ACTOR);
      expect((await asPlatform('get', '/v1/profile/me', await credentialOf(someone, bare)).expect(200)).body).toMatchObject({ phone: null, country: null, dateOfBirth: null, firstName: 'Ada' });
      expect((await asBearer('get', '/v1/profile/me', await bearerOf(someone, PLATFORM_APP, bare)).expect(200)).body).toMatchObject({ phone: null, country: null, dateOfBirth: null });
      // Once its schema binds the country, it reads it; an archived binding gives it up again.
      await createFieldDefinition(db(), bare, { fieldKey: 'land', label: 'Country', fieldType: 'COUNTRY', source: 'PROFILE_FIELD', profileField: 'country', required: false }, CLI_ACTOR);
      expect((await asPlatform('get', '/v1/profile/me', await credentialOf(someone, bare)).expect(200)).body).toMatchObject({ country: 'DE', phone: null, dateOfBirth: null });
      await archiveFieldDefinition(db(), bare, 'land', CLI_ACTOR);
      expect((await asPlatform('get', '/v1/profile/me', await credentialOf(someone, bare)).expect(200)).body.country).toBeNull();
      // The person and central clients read everything.
      expect((await asBearer('get', '/v1/profile/me', await bearerOf(someone, GATEWAY_CLIENT)).expect(200)).body).toMatchObject({ phone: PHONE_A, country: 'DE', dateOfBirth: '1990-04-01' });
    });

    it('a platform whose schema binds a property with ask or own cannot write it into the profile (where the platforms sharing it would read it)', async () => {
      const { a, b, c, someone } = await gaveEveryone();
      const byC = await asPlatform('patch', '/v1/profile/me', await credentialOf(someone, c)).send({ phone: '+4989111111', country: 'DE' }).expect(400);
      expect(byC.body).toMatchObject({ code: 'VALIDATION_FAILED', errors: [{ pointer: '/body/phone', reason: 'UNKNOWN_PROPERTY' }] });
      await asBearer('patch', '/v1/profile/me', await bearerOf(someone, PLATFORM_APP, b)).send({ phone: null }).expect(400);
      await asBearer('patch', '/v1/profile/me', await bearerOf(someone, PLATFORM_APP)).send({ phone: null }).expect(400);
      // Nothing changed: A still reads the number the person gave it; C may still write a property it does not bind with ask or own.
      const onA = await asPlatform('get', `/v1/onboarding/${a}/requirements`, await credentialOf(someone, a)).expect(200);
      expect(mobileOf(onA.body).currentValue).toBe(PHONE_A);
      await asPlatform('patch', '/v1/profile/me', await credentialOf(someone, c)).send({ country: 'DE' }).expect(200);
      expect((await asPerson('get', '/v1/profile/me', someone.cookie).expect(200)).body.country).toBe('DE');
    });

    it('a Bearer token of a platform\'s app reads the profile as that platform does (its claim), and reads nothing asked for elsewhere without one', async () => {
      const { b, c, someone } = await gaveEveryone();
      const ofB = await bearerOf(someone, PLATFORM_APP, b);
      expect((await asBearer('get', '/v1/profile/me', ofB).expect(200)).body.phone).toBeNull();
      expect((await asBearer('patch', '/v1/profile/me', ofB).send({ country: 'DE' }).expect(200)).body.phone).toBeNull();
      expect((await asBearer('get', '/v1/profile/me', await bearerOf(someone, PLATFORM_APP, c)).expect(200)).body.phone).toBe(PHONE_OWN);
      // Acting for B and C at once: they disagree, so neither number.
      expect((await asBearer('get', '/v1/profile/me', await bearerOf(someone, PLATFORM_APP, [b, c])).expect(200)).body.phone).toBeNull();
      // No platform claim: a property some platform asks before sharing is not given out.
      expect((await asBearer('get', '/v1/profile/me', await bearerOf(someone, PLATFORM_APP)).expect(200)).body.phone).toBeNull();
      // The account center's own client (central) reads the person's profile.
      expect((await asBearer('get', '/v1/profile/me', await bearerOf(someone, GATEWAY_CLIENT)).expect(200)).body.phone).toBe(PHONE_A);
    });

    it('a Bearer token of a platform\'s app acts only on the onboarding of the platforms it claims', async () => {
      const { b, c, someone } = await gaveEveryone();
      const ofB = await bearerOf(someone, PLATFORM_APP, b);
      await asBearer('get', `/v1/onboarding/${b}/requirements`, ofB).expect(200);
      const read = await asBearer('get', `/v1/onboarding/${c}/requirements`, ofB).expect(403);
      expect(read.body.code).toBe('FORBIDDEN');
      expect(JSON.stringify(read.body)).not.toContain(PHONE_OWN);
      expect((await asBearer('put', `/v1/onboarding/${c}/values`, ofB).send({ values: { mobile: PHONE_A } }).expect(403)).body.code).toBe('FORBIDDEN');
      await asBearer('post', `/v1/onboarding/${c}/complete`, ofB).expect(403);
      await asBearer('get', `/v1/onboarding/${c}/status`, await bearerOf(someone, PLATFORM_APP)).expect(403);
      expect(await storedRow(someone.id, c)).toEqual([{ value: PHONE_OWN, shared: false, from: null }]);
      // The central client acts for the person on every platform.
      await asBearer('get', `/v1/onboarding/${c}/requirements`, await bearerOf(someone, GATEWAY_CLIENT)).expect(200);
    });

    it('GET /v1/me gives a platform the display name as its schema\'s sharing rule allows, not the one given elsewhere', async () => {
      const someone = await person();
      const a = await platform('shared');
      const b = await platform('shared');
      await createFieldDefinition(db(), a, { fieldKey: 'nick', label: 'Nickname', fieldType: 'TEXT', source: 'PROFILE_FIELD', profileField: 'displayName' }, CLI_ACTOR);
      await createFieldDefinition(db(), b, { fieldKey: 'nick', label: 'Nickname', fieldType: 'TEXT', source: 'PROFILE_FIELD', profileField: 'displayName', sharing: 'own' }, CLI_ACTOR);
      await asPerson('put', `/v1/onboarding/${a}/values`, someone.cookie).send({ values: { nick: 'Given to A' } }).expect(200);
      await asPerson('get', `/v1/onboarding/${b}/status`, someone.cookie).expect(200);
      const byB = await asPlatform('get', '/v1/me', await credentialOf(someone, b)).expect(200);
      expect(byB.body.user.displayName).toBeNull();
      expect(JSON.stringify(byB.body)).not.toContain('Given to A');
      expect((await asBearer('get', '/v1/me', await bearerOf(someone, PLATFORM_APP, b)).expect(200)).body.user.displayName).toBeNull();
      expect((await asPlatform('get', '/v1/me', await credentialOf(someone, a)).expect(200)).body.user.displayName).toBe('Given to A');
      expect((await asPerson('get', '/v1/me', someone.cookie).expect(200)).body.user.displayName).toBe('Given to A');
      // Nor does a platform learn which other platforms the person uses, or their onboarding there.
      const keys = (body: { memberships: { platformKey: string }[] }) => body.memberships.map((membership) => membership.platformKey).sort();
      expect(keys(byB.body)).toEqual([b]);
      expect(keys((await asBearer('get', '/v1/me', await bearerOf(someone, PLATFORM_APP)).expect(200)).body)).toEqual([]);
      expect(keys((await asPerson('get', '/v1/me', someone.cookie).expect(200)).body)).toEqual([a, b].sort());
    });

    it('a Bearer token of a platform\'s app cannot reach the person\'s own operations (the data export holds every platform\'s values), as a platform credential cannot', async () => {
      const { b, someone } = await gaveEveryone();
      const ofB = await bearerOf(someone, PLATFORM_APP, b);
      const started = await asBearer('post', '/v1/account/data-exports', ofB).send({}).expect(403);
      expect(started.body.code).toBe('FORBIDDEN');
      expect((await asBearer('get', '/v1/account/data-exports', ofB).expect(403)).body.code).toBe('FORBIDDEN');
      expect((await asBearer('get', '/v1/account/data-exports', await bearerOf(someone, PLATFORM_APP)).expect(403)).body.code).toBe('FORBIDDEN');
      // The account center's own client (central) may.
      await asBearer('get', '/v1/account/data-exports', await bearerOf(someone, GATEWAY_CLIENT)).expect(200);
    });

    it('an operator in a support session of the person does not see the offer of a value given to another platform', async () => {
      const { someone } = await gaveA();
      const b = await platform('ask');
      const operator = await person();
      const { rows: [grant] } = await db().raw(
        `INSERT INTO support_access (platform_id, user_id, operator_user_id, operator_sub, reason, duration_seconds, mode, ends_at)
         SELECT id, ?, ?, ?, 'a ticket', 600, 'notify', now() + interval '10 minutes' FROM platforms WHERE platform_key = ? RETURNING id`,
        [someone.id, operator.id, operator.sub, b],
      );
      await db().raw(`UPDATE gateway_sessions SET support_access_id = ?, support_actor = CAST(? AS jsonb) WHERE id = ?`, [grant.id, JSON.stringify({ sub: operator.sub, name: null }), someone.sessionId]);
      const seen = await asPerson('get', `/v1/onboarding/${b}/requirements`, someone.cookie).expect(200);
      expect(mobileOf(seen.body)).toMatchObject({ currentValue: null, sharedOffer: null });
      expect(JSON.stringify(seen.body)).not.toContain(PHONE_A);
    });
  });

  describe('the data export', () => {
    it('says per platform which values it has and whether they were shared, and from where', async () => {
      const { a, someone } = await gaveA();
      const b = await platform('ask');
      const c = await platform('own');
      await asPerson('put', `/v1/onboarding/${b}/values`, someone.cookie).send({ values: {}, acceptShared: ['mobile'] }).expect(200);
      await asPerson('put', `/v1/onboarding/${c}/values`, someone.cookie).send({ values: { mobile: PHONE_OWN } }).expect(200);
      let text = '';
      await writeDataExportDocument(db(), someone.id, { write: async (chunk) => void (text += chunk), close: async () => text.length });
      const document = JSON.parse(text) as { onboarding: { platformKey: string; values: unknown[]; profileValuesShared: unknown[] }[] };
      const of = (key: string) => document.onboarding.find((entry) => entry.platformKey === key);
      expect(of(a)).toMatchObject({ values: [], profileValuesShared: [{ fieldKey: 'mobile', profileField: 'phone' }] });
      expect(of(b)).toMatchObject({ values: [{ fieldKey: 'mobile', profileField: 'phone', sharing: 'ask', value: PHONE_A, shared: true, sharedFrom: a }], profileValuesShared: [] });
      expect(of(c)).toMatchObject({ values: [{ fieldKey: 'mobile', sharing: 'own', value: PHONE_OWN, shared: false, sharedFrom: null }], profileValuesShared: [] });
    });
  });
});
