// A deactivated platform and its Security Event Tokens (issue 37): its poll is refused like its
// exchange (the one check of Basic credentials, 401), nothing is recorded for it while it is
// deactivated, its pending events wait for a reactivation for 90 days after the event (then the
// purge removes them), and a reactivated platform polls what waited, never what happened while
// it was deactivated. Real HTTP, real PostgreSQL; responses checked against the contract.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import { randomUUID } from 'node:crypto';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { basic, seedPlatform } from '../api/registryHelpers.ts';
import { upsertUserFromIdp } from '../../src/services/account/usersRepository.ts';
import { activatePlatform, CLI_ACTOR, deactivatePlatform } from '../../src/services/registry/index.ts';
import { recordPersonEvent, recordPlatformLeft, recordProfileChange } from '../../src/services/events/record.ts';
import { createFieldDefinition } from '../../src/services/onboarding/schema.ts';
import { purgeSettledEvents, SETTLED_EVENT_RETENTION_DAYS } from '../../src/services/events/repository.ts';
import { SECURITY_EVENT_TYPES } from '../../src/services/events/types.ts';

describe('a deactivated platform and its security events', () => {
  let database: TestDatabase;
  let gateway: TestApp;

  beforeAll(async () => {
    database = await createTestDatabase();
    gateway = await createTestApp({ db: database.db });
  });
  afterAll(async () => {
    await database?.drop();
  });

  const db = () => database.db;

  /** A poll platform with one member. */
  async function pollPlatformWithMember() {
    const platform = await seedPlatform(db());
    await db()('platforms').where({ platform_key: platform.key }).update({ event_delivery: 'poll' });
    const id = (await db()('platforms').where({ platform_key: platform.key }).first('id')).id as string;
    const user = await upsertUserFromIdp(db(), { sub: `events-${randomUUID()}`, email: null, emailVerified: false, displayName: null, givenName: null, familyName: null });
    await db()('platform_memberships').insert({ user_id: user.id, platform_id: id });
    const poll = (body: Record<string, unknown> = {}) => request(gateway.app).post('/v1/events/poll').set('Authorization', basic(platform.clientId, platform.clientSecret)).send(body);
    return { ...platform, id, userId: user.id, poll };
  }

  const record = (userId: string) => db().transaction((trx) => recordPersonEvent(trx, { userId, type: SECURITY_EVENT_TYPES.consentWithdrawn, payload: { document: 'news', version: 1 } }));
  const eventsOf = async (platformId: string) => (await db()('security_events').where({ platform_id: platformId }).orderBy('created_at').select('id', 'status')) as { id: string; status: string }[];

  it('its poll gets the same 401 as its exchange, before anything is acknowledged or read; a wrong secret says nothing about the deactivation', async () => {
    const platform = await pollPlatformWithMember();
    const [pending] = await record(platform.userId);
    await deactivatePlatform(db(), platform.key, CLI_ACTOR);

    const refused = await platform.poll({ ack: [pending] }).expect(401);
    expect(refused.body.code).toBe('INVALID_CLIENT_CREDENTIALS');
    expect(refused.body.detail).toContain('deactivated');
    expect(refused.headers['www-authenticate']).toBe('Basic realm="auth-gateway"');
    expect(await eventsOf(platform.id)).toEqual([{ id: pending, status: 'pending' }]);

    const wrong = await request(gateway.app).post('/v1/events/poll').set('Authorization', basic(platform.clientId, 'pcs_wrong-secret-wrong-secret-wrong-secret-xx')).send({}).expect(401);
    expect(wrong.body.detail).not.toContain('deactivated');

    // The exchange gives the same answer: one check for every Basic-credential operation.
    const exchange = await request(gateway.app).post('/v1/auth/exchange').set('Authorization', basic(platform.clientId, platform.clientSecret)).send({ code: 'handoff_unknown' }).expect(401);
    expect({ code: exchange.body.code, detail: exchange.body.detail }).toEqual({ code: refused.body.code, detail: refused.body.detail });
  });

  it('records nothing for it while it is deactivated (person events, a leave, a profile change), in the same statement as for the others', async () => {
    const platform = await pollPlatformWithMember();
    const other = await seedPlatform(db());
    await db()('platforms').where({ platform_key: other.key }).update({ event_delivery: 'poll' });
    const otherId = (await db()('platforms').where({ platform_key: other.key }).first('id')).id as string;
    await db()('platform_memberships').insert({ user_id: platform.userId, platform_id: otherId });
    await createFieldDefinition(db(), platform.key, { fieldKey: 'given', label: 'Given name', fieldType: 'TEXT', source: 'PROFILE_FIELD', profileField: 'firstName' }, CLI_ACTOR);
    await deactivatePlatform(db(), platform.key, CLI_ACTOR);

    const recorded = await record(platform.userId);
    expect(recorded).toHaveLength(1); // the active platform only
    expect(await db().transaction((trx) => recordPlatformLeft(trx, { userId: platform.userId, platformId: platform.id }))).toEqual([]);
    expect(await db().transaction((trx) => recordProfileChange(trx, { userId: platform.userId, changed: ['firstName'] }))).toEqual([]);
    expect(await eventsOf(platform.id)).toEqual([]);
    expect((await eventsOf(otherId)).map((event) => event.id)).toEqual(recorded);
  });

  it('after a reactivation it polls what was pending before, never what happened while it was deactivated', async () => {
    const platform = await pollPlatformWithMember();
    const [before] = await record(platform.userId);
    await deactivatePlatform(db(), platform.key, CLI_ACTOR);
    await record(platform.userId);
    await platform.poll().expect(401);
    await activatePlatform(db(), platform.key, CLI_ACTOR);

    const polled = await platform.poll({ maxEvents: 10 }).expect(200);
    expect(Object.keys(polled.body.sets)).toEqual([before]);
    await platform.poll({ ack: [before], maxEvents: 0 }).expect(200);
    // Recording works again for what happens from now on.
    const [after] = await record(platform.userId);
    expect(Object.keys((await platform.poll().expect(200)).body.sets)).toEqual([after]);
  });

  it("keeps a deactivated platform's pending events 90 days after the event, then the purge removes them; an active platform's pending ones stay", async () => {
    const deactivated = await pollPlatformWithMember();
    const active = await pollPlatformWithMember();
    const [old] = await record(deactivated.userId);
    const [recent] = await record(deactivated.userId);
    const [activeOld] = await record(active.userId);
    await deactivatePlatform(db(), deactivated.key, CLI_ACTOR);
    const age = `${SETTLED_EVENT_RETENTION_DAYS + 1} days`;
    await db().raw(`UPDATE security_events SET created_at = now() - CAST(? AS interval) WHERE id IN (?, ?)`, [age, old!, activeOld!]);

    await purgeSettledEvents(db(), SETTLED_EVENT_RETENTION_DAYS);
    expect(await eventsOf(deactivated.id)).toEqual([{ id: recent, status: 'pending' }]);
    expect(await eventsOf(active.id)).toEqual([{ id: activeOld, status: 'pending' }]);
  });
});
