// Issue 36 in the dev stack's seeding: a demo database seeded before the central demo platform's
// work phone was the profile's phone (with `ask`), and before the demo platform bound the phone,
// gets both once; a later start changes nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { seedDemoPlatform } from '../../src/devstack/seed.ts';
import { DEMO_CENTRAL_FIELDS, DEMO_FIELDS } from '../../src/devstack/index.ts';
import { listFieldDefinitions } from '../../src/services/onboarding/schema.ts';

describe('dev stack seeding of sharing rules', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await database?.drop();
  });

  const platform = (platformKey: string) => ({ platformKey, displayName: platformKey, callbackUrl: 'http://localhost:3001/cb', allowedReturnUrls: ['http://localhost:3001/'], defaultOnboardingMode: 'central' as const });
  const phoneOf = async (platformKey: string) => {
    const list = await listFieldDefinitions(database.db, platformKey, true);
    return { version: list.requirementVersion, phone: list.items.find((field) => field.fieldKey === 'phone') };
  };

  it('binds the central demo platform\'s work phone to the profile with ask, and gives the demo platform its phone, once', async () => {
    // As seeded before issue 36: a custom work phone, and a demo platform without fields.
    const before = DEMO_CENTRAL_FIELDS.map((field) => (field.fieldKey === 'phone' ? { ...field, source: undefined, profileField: undefined, sharing: undefined } : field));
    await seedDemoPlatform(database.db, platform('SEED_CENTRAL'), null, before);
    await seedDemoPlatform(database.db, platform('SEED_DEMO'), null, []);
    expect((await phoneOf('SEED_CENTRAL')).phone).toMatchObject({ source: 'CUSTOM_FIELD', sharing: null });

    await seedDemoPlatform(database.db, platform('SEED_CENTRAL'), null, DEMO_CENTRAL_FIELDS);
    await seedDemoPlatform(database.db, platform('SEED_DEMO'), null, DEMO_FIELDS);
    const central = await phoneOf('SEED_CENTRAL');
    const demo = await phoneOf('SEED_DEMO');
    expect(central.phone).toMatchObject({ source: 'PROFILE_FIELD', profileField: 'phone', sharing: 'ask', label: 'Work phone' });
    expect(demo.phone).toMatchObject({ source: 'PROFILE_FIELD', profileField: 'phone', sharing: 'shared' });

    // A later start: nothing changes.
    await seedDemoPlatform(database.db, platform('SEED_CENTRAL'), null, DEMO_CENTRAL_FIELDS);
    await seedDemoPlatform(database.db, platform('SEED_DEMO'), null, DEMO_FIELDS);
    expect((await phoneOf('SEED_CENTRAL')).version).toBe(central.version);
    expect((await phoneOf('SEED_DEMO')).version).toBe(demo.version);
  });
});
