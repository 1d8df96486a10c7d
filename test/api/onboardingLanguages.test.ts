// Issue 27: onboarding field definitions in several languages, over real HTTP against real
// PostgreSQL; every response is checked against the contract (createTestApp).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import { randomBytes } from 'node:crypto';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { startFakeIdp, type FakeIdp } from '../helpers/fakeIdp.ts';
import { upsertUserFromIdp } from '../../src/services/account/usersRepository.ts';
import { createSession } from '../../src/services/sessions/create.ts';
import { createPlatform, CLI_ACTOR } from '../../src/services/registry/index.ts';
import type { Permission } from '../../src/domain/types.ts';

const ACCOUNT_CENTER = 'http://account.test';
const GATEWAY_CLIENT = 'languages-gateway';

describe('onboarding field translations (issue 27)', () => {
  let database: TestDatabase;
  let idp: FakeIdp;
  let gateway: TestApp;
  let seq = 0;

  beforeAll(async () => {
    database = await createTestDatabase();
    idp = await startFakeIdp({ clientId: GATEWAY_CLIENT, clientSecret: randomBytes(24).toString('base64url') });
    gateway = await createTestApp({ db: database.db, oidc: { issuer: idp.issuer, clientId: GATEWAY_CLIENT, clientSecret: idp.clientSecret } });
  });
  afterAll(async () => {
    await idp?.close();
    await database?.drop();
  });

  const db = () => database.db;

  async function platform(): Promise<string> {
    const key = `LANG_${++seq}_${randomBytes(2).toString('hex').toUpperCase()}`;
    await createPlatform(db(), { platformKey: key, displayName: key, callbackUrl: 'https://p.example/cb', allowedReturnUrls: ['https://p.example/'], defaultOnboardingMode: 'central' }, CLI_ACTOR);
    return key;
  }

  async function user(permissions: Permission[] = [], locale: string | null = null) {
    const row = await upsertUserFromIdp(db(), { sub: `languages-user-${++seq}`, email: null, emailVerified: false, displayName: null, givenName: null, familyName: null });
    const session = await createSession(db(), { userId: row.id, permissions, ttlSeconds: 3600 });
    await db().raw('INSERT INTO profiles (user_id, locale) VALUES (?, ?) ON CONFLICT (user_id) DO UPDATE SET locale = excluded.locale', [row.id, locale]);
    return { cookie: `gw_session=${session.token}` };
  }

  const as = (who: { cookie: string }, method: 'get' | 'post' | 'patch', path: string) =>
    request(gateway.app)[method](path).set('Cookie', who.cookie).set('Origin', ACCOUNT_CENTER);
  const fields = (key: string) => `/v1/platforms/${key}/onboarding/fields`;

  const TEAM_SIZE = {
    fieldKey: 'teamSize',
    label: 'Team size',
    fieldType: 'SELECT',
    required: true,
    sortOrder: 20,
    options: [{ value: 'small', label: 'Small' }, { value: 'large', label: 'Large' }],
    uiConfig: { width: 'half', helpText: 'Roughly.' },
    placeholder: null,
    description: 'Used to size your workspace.',
    translations: {
      de: { label: 'Teamgröße', helpText: 'Ungefähr.', description: 'Damit wir Ihren Arbeitsbereich passend einrichten.', options: { small: 'Klein', large: 'Groß' } },
      'de-ch': { label: 'Teamgrösse' },
    },
  };
  const COMPANY = { fieldKey: 'company', label: 'Company', fieldType: 'TEXT', sortOrder: 10, placeholder: 'Acme Ltd' };

  describe('schema administration', () => {
    it('stores translations with canonical tags and drops languages left without text; a field without them has {}', async () => {
      const admin = await user(['platforms:admin']);
      const key = await platform();
      const created = await as(admin, 'post', fields(key)).send({ ...TEAM_SIZE, translations: { ...TEAM_SIZE.translations, fr: {}, it: { options: {} } } }).expect(201);
      expect(created.body.translations).toEqual({ de: TEAM_SIZE.translations.de, 'de-CH': { label: 'Teamgrösse' } });
      const plain = await as(admin, 'post', fields(key)).send(COMPANY).expect(201);
      expect(plain.body.translations).toEqual({});
      const list = await as(admin, 'get', fields(key)).expect(200);
      expect(list.body.items.map((item: { translations: unknown }) => item.translations)).toEqual([{}, created.body.translations]);
    });

    it('refuses an option label for a value the field does not have, two spellings of one tag, and blank texts, each at its pointer', async () => {
      const admin = await user(['platforms:admin']);
      const key = await platform();
      const refused = await as(admin, 'post', fields(key))
        .send({ ...TEAM_SIZE, translations: { de: { label: ' ' }, 'DE-ch': { label: 'A' }, 'de-CH': { label: 'B' } } })
        .expect(400);
      expect(refused.body.code).toBe('VALIDATION_FAILED');
      expect(refused.body.errors.map((error: { pointer: string }) => error.pointer)).toEqual(['/body/translations/de/label', '/body/translations/de-CH']);
      const unknownOption = await as(admin, 'post', fields(key)).send({ ...TEAM_SIZE, translations: { de: { options: { small: 'Klein', medium: 'Mittel' } } } }).expect(400);
      expect(unknownOption.body.errors).toEqual([expect.objectContaining({ pointer: '/body/translations/de/options/medium', message: "is not the value of one of the field's options" })]);
      const badTag = await as(admin, 'post', fields(key)).send({ ...COMPANY, translations: { 'not a tag': { label: 'x' } } }).expect(400);
      expect(badTag.body.errors[0]).toMatchObject({ reason: 'PATTERN' });
      const unknownKey = await as(admin, 'post', fields(key)).send({ ...COMPANY, translations: { de: { label: 'Firma', title: 'x' } } }).expect(400);
      expect(unknownKey.body.errors[0]).toMatchObject({ pointer: '/body/translations/de/title' });
    });

    it("a change of options alone drops the removed options' labels; the change is audited and raises the version like any other", async () => {
      const admin = await user(['platforms:admin']);
      const key = await platform();
      await as(admin, 'post', fields(key)).send(TEAM_SIZE).expect(201);
      const patched = await as(admin, 'patch', `${fields(key)}/teamSize`).send({ options: [{ value: 'small', label: 'Small' }] }).expect(200);
      expect(patched.body.translations.de.options).toEqual({ small: 'Klein' });
      const translated = await as(admin, 'patch', `${fields(key)}/teamSize`).send({ translations: { de: { label: 'Größe des Teams' } } }).expect(200);
      expect(translated.body.translations).toEqual({ de: { label: 'Größe des Teams' } });
      const { rows } = await db().raw(`SELECT changed_fields FROM audit_events WHERE platform_key = ? AND action = 'onboarding_field.update' ORDER BY occurred_at`, [key]);
      expect(rows.map((row: { changed_fields: string[] }) => row.changed_fields)).toEqual([['options', 'translations'], ['translations']]);
    });

    it('keeps an option value such as __proto__ an ordinary key', async () => {
      const admin = await user(['platforms:admin']);
      const key = await platform();
      const body = JSON.parse('{"fieldKey":"odd","label":"Odd","fieldType":"SELECT","options":[{"value":"__proto__","label":"Proto"},{"value":"constructor","label":"Ctor"}],"translations":{"de":{"options":{"__proto__":"Urbild"}}}}');
      const created = await as(admin, 'post', fields(key)).send(body).expect(201);
      expect(created.body.translations).toEqual(JSON.parse('{"de":{"options":{"__proto__":"Urbild"}}}'));
      const person = await user([], 'de');
      const requirements = await as(person, 'get', `/v1/onboarding/${key}/requirements`).expect(200);
      expect(requirements.body.fields[0].options).toEqual([{ value: '__proto__', label: 'Urbild' }, { value: 'constructor', label: 'Ctor' }]);
    });
  });

  describe('the requirements in the person\'s language', () => {
    let key: string;
    beforeAll(async () => {
      const admin = await user(['platforms:admin']);
      key = await platform();
      await as(admin, 'post', fields(key)).send(TEAM_SIZE).expect(201);
      await as(admin, 'post', fields(key)).send(COMPANY).expect(201);
    });
    const requirements = (who: { cookie: string }, acceptLanguage?: string, query = '') => {
      const call = as(who, 'get', `/v1/onboarding/${key}/requirements${query}`);
      return (acceptLanguage ? call.set('Accept-Language', acceptLanguage) : call).expect(200);
    };
    const texts = (body: { fields: { fieldKey: string; label: string; placeholder: string | null; description: string | null; uiConfig: { helpText?: string }; options: { label: string }[] }[] }) =>
      body.fields.map((field) => [field.fieldKey, field.label, field.placeholder, field.description, field.uiConfig.helpText ?? null, field.options.map((option) => option.label)]);

    it('follows Accept-Language without a profile language: translated texts, the default text where a language leaves one out', async () => {
      const response = await requirements(await user(), 'fr-FR, de-DE;q=0.8, en;q=0.5');
      expect(response.body.language).toBe('de');
      expect(texts(response.body)).toEqual([
        ['company', 'Company', 'Acme Ltd', null, null, []],
        ['teamSize', 'Teamgröße', null, 'Damit wir Ihren Arbeitsbereich passend einrichten.', 'Ungefähr.', ['Klein', 'Groß']],
      ]);
      // The definition itself still carries every language (the form can offer them).
      expect(Object.keys(response.body.fields[1].translations)).toEqual(['de', 'de-CH']);
    });

    it("the profile's language decides before Accept-Language, by lookup (de-AT takes de; de-CH its own)", async () => {
      expect((await requirements(await user([], 'de-AT'), 'en-US')).body.language).toBe('de');
      const swiss = await requirements(await user([], 'de-CH'), 'en-US');
      expect(swiss.body.language).toBe('de-CH');
      // A text de-CH leaves out is the default text, not the de one: de-CH is its own translation.
      expect(texts(swiss.body)[1]).toEqual(['teamSize', 'Teamgrösse', null, 'Used to size your workspace.', 'Roughly.', ['Small', 'Large']]);
    });

    it('the `language` parameter decides before the profile; a language not on offer gets the default texts, not the next source', async () => {
      const german = await user([], 'de');
      expect((await requirements(german, 'de', '?language=en')).body.language).toBeNull();
      expect(texts((await requirements(german, 'de', '?language=en')).body)[1]![1]).toBe('Team size');
      expect((await requirements(await user(), 'en', '?language=de-DE')).body.language).toBe('de');
      expect((await requirements(await user([], 'fr'), 'de')).body.language).toBeNull();
    });

    it('without any language named, the default texts', async () => {
      const response = await requirements(await user());
      expect(response.body.language).toBeNull();
      expect(texts(response.body)[1]![1]).toBe('Team size');
    });

    it('a wildcard alone (Node\'s fetch sends `Accept-Language: *`) is no preference: the default texts, not the first translation', async () => {
      for (const wildcard of ['*', '*;q=0.5', '*, *;q=0.1', ' * ']) {
        const response = await requirements(await user(), wildcard);
        expect(response.body.language, wildcard).toBeNull();
        expect(texts(response.body)[1]![1], wildcard).toBe('Team size');
      }
      // A named language before the wildcard still decides.
      expect((await requirements(await user(), 'de, *;q=0.1')).body.language).toBe('de');
    });

    it('refuses a language parameter that is not a tag', async () => {
      const response = await as(await user(), 'get', `/v1/onboarding/${key}/requirements?language=${encodeURIComponent('<script>')}`).expect(400);
      expect(response.body.code).toBe('VALIDATION_FAILED');
    });
  });

  describe("the platform's default language", () => {
    it('is set in its canonical form, cleared with null, and a malformed tag is refused at its pointer', async () => {
      const admin = await user(['platforms:admin']);
      const key = await platform();
      expect((await as(admin, 'get', `/v1/platforms/${key}`).expect(200)).body.defaultLanguage).toBeNull();
      expect((await as(admin, 'patch', `/v1/platforms/${key}`).send({ defaultLanguage: 'de-at' }).expect(200)).body.defaultLanguage).toBe('de-AT');
      for (const malformed of ['german', 'de_AT', '<b>de</b>', 'x'.repeat(40), 42]) {
        const refused = await as(admin, 'patch', `/v1/platforms/${key}`).send({ defaultLanguage: malformed }).expect(400);
        expect(refused.body.code).toBe('VALIDATION_FAILED');
        expect(new Set(refused.body.errors.map((error: { pointer: string }) => error.pointer))).toEqual(new Set(['/body/defaultLanguage']));
      }
      expect((await as(admin, 'get', `/v1/platforms/${key}`).expect(200)).body.defaultLanguage).toBe('de-AT');
      expect((await as(admin, 'patch', `/v1/platforms/${key}`).send({ defaultLanguage: null }).expect(200)).body.defaultLanguage).toBeNull();
      const createdRefused = await as(admin, 'post', '/v1/platforms').send({ platformKey: `LANG_BAD_${++seq}`, displayName: 'x', active: false, defaultLanguage: 'de--AT' }).expect(400);
      expect(createdRefused.body.errors.map((error: { pointer: string }) => error.pointer)).toEqual(['/body/defaultLanguage']);
    });

    it("decides the texts when neither the profile nor Accept-Language matches a translation; never over a match or the language parameter", async () => {
      const admin = await user(['platforms:admin']);
      const key = await platform();
      await as(admin, 'post', fields(key)).send(TEAM_SIZE).expect(201);
      await as(admin, 'patch', `/v1/platforms/${key}`).send({ defaultLanguage: 'de' }).expect(200);
      const requirements = async (who: { cookie: string }, acceptLanguage?: string, query = '') => {
        const call = as(who, 'get', `/v1/onboarding/${key}/requirements${query}`);
        return (await (acceptLanguage ? call.set('Accept-Language', acceptLanguage) : call).expect(200)).body;
      };
      const unmatched = await requirements(await user(), 'fr-FR, it;q=0.5');
      expect(unmatched.language).toBe('de');
      expect(unmatched.fields[0].label).toBe('Teamgröße');
      expect((await requirements(await user([], 'fr'), 'it')).language).toBe('de');
      expect((await requirements(await user())).language).toBe('de');
      // A wildcard alone names no language: the platform's default, as without the header.
      expect((await requirements(await user(), '*')).language).toBe('de');
      // A match of the person's own sources still wins, and so does the caller's language.
      expect((await requirements(await user([], 'de-CH'), 'fr')).language).toBe('de-CH');
      expect((await requirements(await user(), 'fr', '?language=en')).language).toBeNull();
    });
  });
});
