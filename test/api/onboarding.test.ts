// Issue 9: onboarding schema administration and the user's onboarding, over real HTTP
// against real PostgreSQL. Every response is checked against the contract (createTestApp).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import { randomBytes } from 'node:crypto';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { startFakeIdp, type FakeIdp } from '../helpers/fakeIdp.ts';
import { upsertUserFromIdp } from '../../src/services/account/usersRepository.ts';
import { createSession } from '../../src/services/sessions/create.ts';
import { createPlatform, CLI_ACTOR } from '../../src/services/registry/index.ts';
import { sha256, randomToken } from '../../src/security/crypto.ts';
import type { Permission } from '../../src/domain/types.ts';

const ACCOUNT_CENTER = 'http://account.test';
const GATEWAY_CLIENT = 'onboarding-gateway';
const SERVICE_CLIENT = 'platform-service'; // trusted, not central: needs a platform claim

type Auth = { cookie: string } | { bearer: string };

describe('onboarding (issue 9)', () => {
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
      env: { OIDC_TRUSTED_CLIENT_IDS: `${GATEWAY_CLIENT},${SERVICE_CLIENT}` },
    });
  });
  afterAll(async () => {
    await idp?.close();
    await database?.drop();
  });

  const db = () => database.db;

  async function platform(mode: 'none' | 'platform' | 'central' = 'central'): Promise<string> {
    const key = `ONB_${++seq}_${randomBytes(2).toString('hex').toUpperCase()}`;
    await createPlatform(db(), { platformKey: key, displayName: key, callbackUrl: 'https://p.example/cb', allowedReturnUrls: ['https://p.example/'], defaultOnboardingMode: mode }, CLI_ACTOR);
    return key;
  }

  async function user(permissions: Permission[] = []) {
    const sub = `onboarding-user-${++seq}`;
    const row = await upsertUserFromIdp(db(), { sub, email: null, emailVerified: false, displayName: null, givenName: null, familyName: null });
    const session = await createSession(db(), { userId: row.id, permissions, ttlSeconds: 3600 });
    return { id: row.id, sub, sessionId: session.id, cookie: `gw_session=${session.token}` };
  }

  /** A platform's own credential for a user's session (as the exchange stores it). */
  async function platformCredential(owner: { sessionId: string }, platformKey: string): Promise<string> {
    const token = `gwp_${randomToken()}`;
    await db().raw(`INSERT INTO platform_credentials (session_id, platform_id, token_digest) SELECT ?, id, ? FROM platforms WHERE platform_key = ?`, [owner.sessionId, sha256(token), platformKey]);
    return `gw_session=${token}`;
  }

  function bearer(claims: Record<string, unknown>): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    return idp.signJwt({ iss: idp.issuer, aud: GATEWAY_CLIENT, iat: now, exp: now + 300, ...claims });
  }

  function call(method: 'get' | 'post' | 'put' | 'patch' | 'delete', path: string, auth: Auth, origin: string | null = ACCOUNT_CENTER) {
    let req = request(gateway.app)[method](path);
    if ('cookie' in auth) {
      req = req.set('Cookie', auth.cookie);
      if (origin) req = req.set('Origin', origin);
    } else req = req.set('Authorization', `Bearer ${auth.bearer}`);
    return req;
  }

  const fields = (key: string) => `/v1/platforms/${key}/onboarding/fields`;
  const version = async (key: string) => Number((await db().raw('SELECT requirement_version FROM platforms WHERE platform_key = ?', [key])).rows[0].requirement_version);
  const auditCount = async (key: string) => Number((await db().raw(`SELECT count(*) AS n FROM audit_events WHERE platform_key = ? AND action LIKE 'onboarding_field.%'`, [key])).rows[0].n);

  describe('schema administration', () => {
    let admin: Awaited<ReturnType<typeof user>>;
    beforeAll(async () => {
      admin = await user(['platforms:admin']);
    });

    it('create, list, update, archive: each bumps requirementVersion by one and is audited with the field key', async () => {
      const key = await platform();
      const created = await call('post', fields(key), admin).send({ fieldKey: 'company', label: 'Company', fieldType: 'TEXT', required: true, validation: { maxLength: 80 } }).expect(201);
      expect(created.body).toMatchObject({ fieldKey: 'company', source: 'CUSTOM_FIELD', profileField: null, required: true, sortOrder: 0, options: [], archived: false });
      expect(await version(key)).toBe(2);
      const patched = await call('patch', `${fields(key)}/company`, admin).send({ label: 'Company name', sortOrder: 5 }).expect(200);
      expect(patched.body).toMatchObject({ label: 'Company name', sortOrder: 5 });
      expect(await version(key)).toBe(3);
      const archived = await call('delete', `${fields(key)}/company`, admin).expect(200);
      expect(archived.body).toMatchObject({ archived: true, archivedAt: expect.any(String) });
      expect(await version(key)).toBe(4);

      const list = await call('get', fields(key), admin).expect(200);
      expect(list.body).toEqual({ platformKey: key, requirementVersion: 4, items: [] });
      const all = await call('get', `${fields(key)}?includeArchived=true`, admin).expect(200);
      expect(all.body.items.map((item: { fieldKey: string }) => item.fieldKey)).toEqual(['company']);

      const { rows } = await db().raw(`SELECT action, field_key, changed_fields FROM audit_events WHERE platform_key = ? AND action LIKE 'onboarding_field.%' ORDER BY occurred_at`, [key]);
      expect(rows).toEqual([
        { action: 'onboarding_field.create', field_key: 'company', changed_fields: ['fieldKey', 'label', 'fieldType', 'required', 'validation'] },
        { action: 'onboarding_field.update', field_key: 'company', changed_fields: ['label', 'sortOrder'] },
        { action: 'onboarding_field.archive', field_key: 'company', changed_fields: ['archived'] },
      ]);
      const events = await call('get', `/v1/audit-events?platformKey=${key}&action=onboarding_field.update`, admin).expect(200);
      expect(events.body.items[0]).toMatchObject({ fieldKey: 'company', changedFields: ['label', 'sortOrder'] });
    });

    it('an update that changes nothing and a repeated archive change nothing: no bump, no audit', async () => {
      const key = await platform();
      await call('post', fields(key), admin).send({ fieldKey: 'team', label: 'Team', fieldType: 'TEXT' }).expect(201);
      await call('patch', `${fields(key)}/team`, admin).send({ label: 'Team' }).expect(200);
      await call('delete', `${fields(key)}/team`, admin).expect(200);
      const before = [await version(key), await auditCount(key)];
      await call('delete', `${fields(key)}/team`, admin).expect(200);
      expect([await version(key), await auditCount(key)]).toEqual(before);
      expect(before).toEqual([3, 2]);
    });

    it('refuses a duplicate key (409), a PATCH naming fieldKey (400), and a PATCH whose merged definition breaks a rule (400)', async () => {
      const key = await platform();
      await call('post', fields(key), admin).send({ fieldKey: 'plan', label: 'Plan', fieldType: 'SELECT', options: [{ value: 'a', label: 'A' }] }).expect(201);
      expect((await call('post', fields(key), admin).send({ fieldKey: 'plan', label: 'Other', fieldType: 'TEXT' }).expect(409)).body.code).toBe('CONFLICT');
      const named = await call('patch', `${fields(key)}/plan`, admin).send({ fieldKey: 'other' }).expect(400);
      expect(named.body.errors).toEqual([expect.objectContaining({ pointer: '/body/fieldKey' })]);
      const merged = await call('patch', `${fields(key)}/plan`, admin).send({ options: [] }).expect(400);
      expect(merged.body.errors).toEqual([expect.objectContaining({ pointer: '/body/options' })]);
      expect(await version(key)).toBe(2);
      expect((await call('patch', `${fields(key)}/unknown`, admin).send({ label: 'x' }).expect(404)).body.code).toBe('FIELD_NOT_FOUND');
      expect((await call('get', fields('NO_SUCH_PLATFORM'), admin).expect(404)).body.code).toBe('PLATFORM_NOT_FOUND');
    });

    it('a platform binds each profile property with one active field at most', async () => {
      const key = await platform();
      await call('post', fields(key), admin).send({ fieldKey: 'givenName', label: 'First name', fieldType: 'TEXT', source: 'PROFILE_FIELD', profileField: 'firstName' }).expect(201);
      const second = await call('post', fields(key), admin).send({ fieldKey: 'first', label: 'First', fieldType: 'TEXT', source: 'PROFILE_FIELD', profileField: 'firstName' }).expect(400);
      expect(second.body.errors).toEqual([expect.objectContaining({ pointer: '/body/profileField', message: expect.stringContaining('givenName') })]);
      await call('post', fields(key), admin).send({ fieldKey: 'first', label: 'First', fieldType: 'TEXT' }).expect(201);
      await call('patch', `${fields(key)}/first`, admin).send({ source: 'PROFILE_FIELD', profileField: 'firstName' }).expect(400);
      await call('delete', `${fields(key)}/givenName`, admin).expect(200);
      await call('patch', `${fields(key)}/first`, admin).send({ source: 'PROFILE_FIELD', profileField: 'firstName' }).expect(200);
    });

    it('ten concurrent schema writes raise requirementVersion by exactly ten', async () => {
      const key = await platform();
      const writes = Array.from({ length: 10 }, (_, i) => call('post', fields(key), admin).send({ fieldKey: `field${i}`, label: `Field ${i}`, fieldType: 'TEXT' }));
      const results = await Promise.all(writes);
      expect(results.map((res) => res.status)).toEqual(Array(10).fill(201));
      expect(await version(key)).toBe(11);
      expect(await auditCount(key)).toBe(10);
    });

    it('a dry run answers what would happen, and writes and audits nothing', async () => {
      const key = await platform();
      await call('post', fields(key), admin).send({ fieldKey: 'company', label: 'Company', fieldType: 'TEXT', required: true }).expect(201);
      // Two users complete onboarding; a third does not.
      for (const name of ['Acme', 'Initech']) {
        const member = await user();
        await call('put', `/v1/onboarding/${key}/values`, member).send({ values: { company: name } }).expect(200);
        expect((await call('post', `/v1/onboarding/${key}/complete`, member).expect(200)).body.status).toBe('COMPLETE');
      }
      await call('get', `/v1/onboarding/${key}/status`, await user()).expect(200);
      const before = [await version(key), await auditCount(key)];

      const create = await call('post', `${fields(key)}?dryRun=true`, admin).send({ fieldKey: 'vat', label: 'VAT number', fieldType: 'TEXT' }).expect(200);
      expect(create.body).toMatchObject({ dryRun: true, changed: true, requirementVersion: 3, reopenedUsers: 2, field: { fieldKey: 'vat', archived: false } });
      const update = await call('patch', `${fields(key)}/company?dryRun=true`, admin).send({ required: false }).expect(200);
      expect(update.body).toMatchObject({ dryRun: true, changed: true, changedFields: ['required'], reopenedUsers: 2, field: { required: false } });
      const same = await call('patch', `${fields(key)}/company?dryRun=true`, admin).send({ required: true }).expect(200);
      expect(same.body).toMatchObject({ dryRun: true, changed: false, requirementVersion: 2, reopenedUsers: 0 });
      const archive = await call('delete', `${fields(key)}/company?dryRun=true`, admin).expect(200);
      expect(archive.body).toMatchObject({ dryRun: true, changed: true, field: { archived: true } });
      expect((await call('post', `${fields(key)}?dryRun=true`, admin).send({ fieldKey: 'company', label: 'x', fieldType: 'TEXT' }).expect(409)).body.code).toBe('CONFLICT');

      expect([await version(key), await auditCount(key)]).toEqual(before);
      const list = await call('get', `${fields(key)}?includeArchived=true`, admin).expect(200);
      expect(list.body.items).toHaveLength(1);
      expect(list.body.items[0]).toMatchObject({ required: true, archived: false });
    });
  });

  describe('permissions', () => {
    let key: string;
    let other: string;
    beforeAll(async () => {
      key = await platform();
      other = await platform();
    });

    it('reads need onboarding:schema:read, writes onboarding:schema:write; platforms:admin grants both', async () => {
      const reader = await user(['onboarding:schema:read']);
      const writer = await user(['onboarding:schema:write']);
      const nobody = await user();
      await call('get', fields(key), reader).expect(200);
      expect((await call('post', fields(key), reader).send({ fieldKey: 'a1', label: 'A', fieldType: 'TEXT' }).expect(403)).body.code).toBe('FORBIDDEN');
      await call('post', fields(key), writer).send({ fieldKey: 'a2', label: 'A', fieldType: 'TEXT' }).expect(201);
      await call('get', fields(key), nobody).expect(403);
      await call('delete', `${fields(key)}/a2`, nobody).expect(403);
    });

    it('a non-central Bearer caller needs a platform claim equal to the path (a string or an array), unless it holds platforms:admin', async () => {
      const scope = 'onboarding:schema:read onboarding:schema:write';
      const unclaimed = await bearer({ sub: 'svc-1', client_id: SERVICE_CLIENT, scope });
      expect((await call('get', fields(key), { bearer: unclaimed }).expect(403)).body.code).toBe('FORBIDDEN');
      const claimed = await bearer({ sub: 'svc-1', client_id: SERVICE_CLIENT, scope, platform_key: key });
      await call('get', fields(key), { bearer: claimed }).expect(200);
      await call('get', fields(other), { bearer: claimed }).expect(403);
      // Refused before the path is validated: the refusal names no part of it.
      const unchecked = await call('get', '/v1/platforms/%3Cimg%20src%3Dx%3E/onboarding/fields', { bearer: claimed }).expect(403);
      expect(JSON.stringify(unchecked.body)).not.toContain('<img');
      const several = await bearer({ sub: 'svc-1', client_id: SERVICE_CLIENT, scope, platform_key: [other, key] });
      await call('post', fields(other), { bearer: several }).send({ fieldKey: 'b1', label: 'B', fieldType: 'TEXT' }).expect(201);
      const adminService = await bearer({ sub: 'svc-2', client_id: SERVICE_CLIENT, scope: 'platforms:admin' });
      await call('get', fields(other), { bearer: adminService }).expect(200);
    });

    it('a central caller needs no claim: the browser session, and a Bearer token of a central client', async () => {
      const scope = 'onboarding:schema:read';
      await call('get', fields(key), await user(['onboarding:schema:read'])).expect(200);
      await call('get', fields(key), { bearer: await bearer({ sub: 'central-1', client_id: GATEWAY_CLIENT, scope }) }).expect(200);
      // azp names the client when client_id is absent
      await call('get', fields(key), { bearer: await bearer({ sub: 'central-1', azp: GATEWAY_CLIENT, scope }) }).expect(200);
    });

    it("a platform credential may use the user's schema permissions for its own platform only, never platforms:admin", async () => {
      const editor = await user(['onboarding:schema:read', 'onboarding:schema:write']);
      const own = await platformCredential(editor, key);
      await call('get', fields(key), { cookie: own }, null).expect(200);
      await call('post', fields(key), { cookie: own }, null).send({ fieldKey: 'c1', label: 'C', fieldType: 'TEXT' }).expect(201);
      await call('get', fields(other), { cookie: own }, null).expect(403);
      const administrator = await user(['platforms:admin']);
      const adminCredential = await platformCredential(administrator, key);
      await call('get', fields(key), { cookie: adminCredential }, null).expect(403);
    });

    it("the user's onboarding routes take a platform credential for its own platform only", async () => {
      const member = await user();
      const own = await platformCredential(member, key);
      await call('get', `/v1/onboarding/${key}/requirements`, { cookie: own }, null).expect(200);
      await call('put', `/v1/onboarding/${key}/values`, { cookie: own }, null).send({ values: {} }).expect(200);
      expect((await call('get', `/v1/onboarding/${other}/status`, { cookie: own }, null).expect(403)).body.code).toBe('FORBIDDEN');
    });

    it('cookie-authenticated writes pass the origin check; Bearer writes are not origin checked; CORS answers the exact origin', async () => {
      const member = await user();
      const path = `/v1/onboarding/${key}/values`;
      expect((await call('put', path, member, 'https://evil.example').send({ values: {} }).expect(403)).body.code).toBe('ORIGIN_NOT_ALLOWED');
      const allowed = await call('put', path, member, ACCOUNT_CENTER).send({ values: {} }).expect(200);
      expect(allowed.headers['access-control-allow-origin']).toBe(ACCOUNT_CENTER);
      expect(allowed.headers['access-control-allow-credentials']).toBe('true');
      const evilPreflight = await request(gateway.app).options(path).set('Origin', 'https://evil.example').set('Access-Control-Request-Method', 'PUT');
      expect(evilPreflight.headers['access-control-allow-origin']).toBeUndefined();
      await call('post', `/v1/onboarding/${key}/complete`, member, 'https://evil.example').expect(403);
      const token = await bearer({ sub: member.sub, client_id: GATEWAY_CLIENT });
      await request(gateway.app).put(path).set('Authorization', `Bearer ${token}`).set('Origin', 'https://evil.example').send({ values: {} }).expect(200);
    });

    it('a Bearer caller who never signed in through the gateway has no onboarding (403)', async () => {
      const stranger = await bearer({ sub: 'never-signed-in', client_id: GATEWAY_CLIENT });
      expect((await call('get', `/v1/onboarding/${key}/status`, { bearer: stranger }).expect(403)).body.code).toBe('FORBIDDEN');
    });
  });

  describe("the user's onboarding", () => {
    let admin: Awaited<ReturnType<typeof user>>;
    beforeAll(async () => {
      admin = await user(['platforms:admin']);
    });

    async function define(key: string, definitions: Record<string, unknown>[]) {
      for (const definition of definitions) await call('post', fields(key), admin).send(definition).expect(201);
    }

    it('requirements in sortOrder with currentValue; status NOT_STARTED → IN_PROGRESS at the first value → COMPLETE after complete', async () => {
      const key = await platform();
      await define(key, [
        { fieldKey: 'teamSize', label: 'Team size', fieldType: 'NUMBER', required: true, sortOrder: 20, validation: { min: 1, max: 1000 } },
        { fieldKey: 'interests', label: 'Interests', fieldType: 'MULTI_SELECT', sortOrder: 10, options: [{ value: 'a', label: 'A' }, { value: 'b', label: 'B' }] },
        { fieldKey: 'phone', label: 'Phone', fieldType: 'PHONE', required: true, sortOrder: 30 },
      ]);
      const member = await user();
      const requirements = await call('get', `/v1/onboarding/${key}/requirements`, member).expect(200);
      expect(requirements.body.requirementVersion).toBe(4);
      expect(requirements.body.fields.map((f: { fieldKey: string; currentValue: unknown }) => [f.fieldKey, f.currentValue])).toEqual([
        ['interests', []],
        ['teamSize', null],
        ['phone', null],
      ]);
      expect((await call('get', `/v1/onboarding/${key}/status`, member).expect(200)).body).toEqual({ status: 'NOT_STARTED', requirementVersion: 4, missingFields: ['teamSize', 'phone'], canCompleteCentrally: true, missingDocuments: [], acceptedDocuments: [] });

      const partial = await call('put', `/v1/onboarding/${key}/values`, member).send({ values: { teamSize: 12, interests: ['b'] } }).expect(200);
      expect(partial.body).toEqual({
        values: { interests: ['b'], teamSize: 12, phone: null },
        onboarding: { status: 'IN_PROGRESS', requirementVersion: 4, missingFields: ['phone'], canCompleteCentrally: true, missingDocuments: [], acceptedDocuments: [] },
      });
      const early = await call('post', `/v1/onboarding/${key}/complete`, member).expect(200);
      expect(early.body).toMatchObject({ status: 'IN_PROGRESS', missingFields: ['phone'] });

      // Keys left out keep their values; the phone is stored in E.164.
      const rest = await call('put', `/v1/onboarding/${key}/values`, member).send({ values: { phone: '+44 20 7183 8750' } }).expect(200);
      expect(rest.body.values).toEqual({ interests: ['b'], teamSize: 12, phone: '+442071838750' });
      expect(rest.body.onboarding.status).toBe('IN_PROGRESS'); // writing never completes
      expect((await call('post', `/v1/onboarding/${key}/complete`, member).expect(200)).body).toEqual({ status: 'COMPLETE', requirementVersion: 4, missingFields: [], canCompleteCentrally: true, missingDocuments: [], acceptedDocuments: [] });
      expect((await call('post', `/v1/onboarding/${key}/complete`, member).expect(200)).body.status).toBe('COMPLETE');

      // A schema change reopens it; the user goes back through onboarding.
      await define(key, [{ fieldKey: 'newsletter', label: 'Newsletter', fieldType: 'BOOLEAN' }]);
      expect((await call('get', `/v1/onboarding/${key}/status`, member).expect(200)).body).toMatchObject({ status: 'IN_PROGRESS', requirementVersion: 5, missingFields: [] });
      expect((await call('post', `/v1/onboarding/${key}/complete`, member).expect(200)).body.status).toBe('COMPLETE');

      // Emptying a required value takes the completion back.
      const cleared = await call('put', `/v1/onboarding/${key}/values`, member).send({ values: { phone: null } }).expect(200);
      expect(cleared.body.onboarding).toMatchObject({ status: 'IN_PROGRESS', missingFields: ['phone'] });
    });

    it('a refused write changes nothing: one error per failing field with pointer, reason and message', async () => {
      const key = await platform();
      await define(key, [
        { fieldKey: 'company', label: 'Company', fieldType: 'TEXT', validation: { maxLength: 5 } },
        { fieldKey: 'country', label: 'Country', fieldType: 'COUNTRY' },
        { fieldKey: 'old', label: 'Old', fieldType: 'TEXT' },
      ]);
      await call('delete', `${fields(key)}/old`, admin).expect(200);
      const member = await user();
      await call('put', `/v1/onboarding/${key}/values`, member).send({ values: { company: 'Acme', country: 'GB' } }).expect(200);
      const refused = await call('put', `/v1/onboarding/${key}/values`, member).send({ values: { company: 'Initech', country: 'gb', old: 'x', ghost: 1 } }).expect(400);
      expect(refused.body.code).toBe('VALIDATION_FAILED');
      expect(refused.body.errors).toEqual(expect.arrayContaining([
        { pointer: '/body/values/company', reason: 'TOO_LONG', message: expect.any(String) },
        { pointer: '/body/values/country', reason: 'INVALID_COUNTRY', message: expect.any(String) },
        { pointer: '/body/values/old', reason: 'ARCHIVED_FIELD', message: expect.any(String) },
        { pointer: '/body/values/ghost', reason: 'UNKNOWN_FIELD', message: expect.any(String) },
      ]));
      expect(refused.body.errors).toHaveLength(4);
      expect(JSON.stringify(refused.body)).not.toContain('Initech'); // values are never echoed
      const requirements = await call('get', `/v1/onboarding/${key}/requirements`, member).expect(200);
      expect(Object.fromEntries(requirements.body.fields.map((f: { fieldKey: string; currentValue: unknown }) => [f.fieldKey, f.currentValue]))).toEqual({ company: 'Acme', country: 'GB' });
    });

    it('a PROFILE_FIELD value is the canonical profile: a second platform binding the same property sees it', async () => {
      const first = await platform();
      const second = await platform('none');
      await define(first, [{ fieldKey: 'givenName', label: 'First name', fieldType: 'TEXT', source: 'PROFILE_FIELD', profileField: 'firstName', required: true }]);
      await define(second, [{ fieldKey: 'firstName', label: 'Your first name', fieldType: 'TEXT', source: 'PROFILE_FIELD', profileField: 'firstName' }]);
      const member = await user();
      await call('put', `/v1/onboarding/${first}/values`, member).send({ values: { givenName: 'Ada' } }).expect(200);
      const seen = await call('get', `/v1/onboarding/${second}/requirements`, member).expect(200);
      expect(seen.body.fields[0]).toMatchObject({ fieldKey: 'firstName', currentValue: 'Ada' });
      const { rows } = await db().raw('SELECT first_name FROM profiles WHERE user_id = ?', [member.id]);
      expect(rows[0].first_name).toBe('Ada');
      const custom = await db().raw('SELECT count(*) AS n FROM onboarding_values WHERE user_id = ?', [member.id]);
      expect(Number(custom.rows[0].n)).toBe(0);
    });

    it('an inactive or unknown platform gives 404; a platform with no fields is COMPLETE at once', async () => {
      const member = await user();
      const empty = await platform('none');
      expect((await call('get', `/v1/onboarding/${empty}/status`, member).expect(200)).body.status).toBe('COMPLETE');
      await db().raw('UPDATE platforms SET active = false WHERE platform_key = ?', [empty]);
      expect((await call('get', `/v1/onboarding/${empty}/requirements`, member).expect(404)).body.code).toBe('PLATFORM_NOT_FOUND');
      await call('get', '/v1/onboarding/NO_SUCH/status', member).expect(404);
    });
  });
});
