import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { createTestApp } from '../helpers/app.ts';
import { basic, issueTestHandoff, seedPlatform } from './registryHelpers.ts';
import { generateKeyRingSpec, sha256 } from '../../src/security/crypto.ts';
import { acceptsPublishedDevCredentials, DEV_PLATFORM_CREDENTIALS } from '../../src/security/devCredentials.ts';

// The dev stack's demo platforms use fixed, published credentials (issue 14 §1). They are
// accepted only by a gateway that runs its own dev stack (no DATABASE_URL, not production):
// a database that holds one (a dev stack pointed at it, a copied row) gives nothing away.

describe('the published development credentials', () => {
  let database: TestDatabase;
  const published = DEV_PLATFORM_CREDENTIALS.DEMO_PLATFORM!;

  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await database?.drop();
  });

  /** A platform whose stored secret digest is the published one, and an outstanding code for it. */
  async function platformWithPublishedSecret() {
    const platform = await seedPlatform(database.db);
    await database.db('platforms').where({ platform_key: platform.key }).update({ client_secret_digest: sha256(published.clientSecret) });
    return platform;
  }

  it('are refused by a gateway on DATABASE_URL, before the code is used', async () => {
    const platform = await platformWithPublishedSecret();
    const gateway = await createTestApp({ db: database.db, env: { DATABASE_URL: database.url, ENCRYPTION_KEYS: generateKeyRingSpec('t') } });
    const code = await issueTestHandoff(gateway, platform.key);
    const refused = await request(gateway.app)
      .post('/v1/auth/exchange')
      .set('Authorization', basic(platform.clientId, published.clientSecret))
      .send({ code })
      .expect(401);
    expect(refused.body.code).toBe('INVALID_CLIENT_CREDENTIALS');
    expect(refused.body.detail).toContain('published development secret');

    // The dev stack's own gateway (embedded database) accepts them: the same code redeems.
    const devStack = await createTestApp({ db: database.db, env: { NODE_ENV: 'development' } });
    const redeemed = await request(devStack.app)
      .post('/v1/auth/exchange')
      .set('Authorization', basic(platform.clientId, published.clientSecret))
      .send({ code })
      .expect(200);
    expect(redeemed.body.session.gatewayToken).toMatch(/^gwp_/);
  });

  it('are refused by the event poll as by the exchange (one check of Basic credentials), and accepted by the dev stack', async () => {
    const platform = await platformWithPublishedSecret();
    const gateway = await createTestApp({ db: database.db, env: { DATABASE_URL: database.url, ENCRYPTION_KEYS: generateKeyRingSpec('t') } });
    const refused = await request(gateway.app).post('/v1/events/poll').set('Authorization', basic(platform.clientId, published.clientSecret)).send({}).expect(401);
    expect(refused.body.code).toBe('INVALID_CLIENT_CREDENTIALS');
    expect(refused.body.detail).toContain('published development secret');

    const devStack = await createTestApp({ db: database.db, env: { NODE_ENV: 'development' } });
    const polled = await request(devStack.app).post('/v1/events/poll').set('Authorization', basic(platform.clientId, published.clientSecret)).send({}).expect(200);
    expect(polled.body).toEqual({ sets: {}, moreAvailable: false });
  });

  it('are never accepted in production', () => {
    expect(acceptsPublishedDevCredentials({ isProduction: true, databaseUrl: null })).toBe(false);
    expect(acceptsPublishedDevCredentials({ isProduction: true, databaseUrl: 'postgres://db/gateway' })).toBe(false);
    expect(acceptsPublishedDevCredentials({ isProduction: false, databaseUrl: 'postgres://db/gateway' })).toBe(false);
    expect(acceptsPublishedDevCredentials({ isProduction: false, databaseUrl: null })).toBe(true);
  });
});
