// The dev stack's demo branding (issue 27): seeded once with a colour, a German name and a logo
// rasterised at seed time; a platform an administrator has branded is left as it is.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { seedDemoBranding } from '../../src/devstack/branding.ts';
import { CLI_ACTOR, createPlatform, getBranding, setBranding } from '../../src/services/registry/index.ts';
import { findLogoImage } from '../../src/services/registry/platformBrandingRepository.ts';

const DEMO = { primaryColor: '#0b6e69', displayNames: { de: 'Demo-Plattform' }, logo: { fill: '#0b6e69', ring: '#ffffff' } };

describe('dev stack demo branding', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await database?.drop();
  });
  const ctx = () => ({ db: database.db, publicBaseUrl: 'http://localhost:8080' });

  it('brands an unbranded demo platform with a colour, a name and a PNG logo; a second start changes nothing', async () => {
    await createPlatform(database.db, { platformKey: 'DEMO_SEEDED', displayName: 'Demo', active: false }, CLI_ACTOR);
    await seedDemoBranding(database.db, 'http://localhost:8080', 'DEMO_SEEDED', DEMO);
    const branding = await getBranding(ctx(), 'DEMO_SEEDED', { includeInactive: true });
    expect(branding).toMatchObject({ primaryColor: '#0b6e69', displayNames: { de: 'Demo-Plattform' } });
    const logoId = new URL(branding.logoUrl!).pathname.split('/').at(-1)!;
    const logo = await findLogoImage(database.db, logoId);
    expect(await sharp(logo!.image).metadata()).toMatchObject({ format: 'png', width: 128, height: 128 });

    await seedDemoBranding(database.db, 'http://localhost:8080', 'DEMO_SEEDED', DEMO);
    expect((await getBranding(ctx(), 'DEMO_SEEDED', { includeInactive: true })).logoUrl).toBe(branding.logoUrl);
  });

  it('keeps what an administrator set', async () => {
    await createPlatform(database.db, { platformKey: 'DEMO_OWNED', displayName: 'Demo', active: false }, CLI_ACTOR);
    await setBranding(ctx(), 'DEMO_OWNED', { primaryColor: '#5a2d82', displayNames: {} }, CLI_ACTOR);
    await seedDemoBranding(database.db, 'http://localhost:8080', 'DEMO_OWNED', DEMO);
    expect(await getBranding(ctx(), 'DEMO_OWNED', { includeInactive: true })).toMatchObject({ primaryColor: '#5a2d82', displayNames: {}, logoUrl: null });
  });
});
