// The event receiver URL (issue 26) is checked like the back-channel logout URL: the same
// validator (registry/rules.ts checkCalledUrl), so the same addresses are refused on create and
// update, through the API and the CLI; push delivery needs a URL (cross-field, on the merged
// record); the operator CLI lists the delivery record.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { runCli } from '../../src/cli/run.ts';
import { activatePlatform, CLI_ACTOR, updatePlatform } from '../../src/services/registry/index.ts';
import type { ApiError } from '../../src/errors/catalogue.ts';
import { platformBody, seedPlatform, startRegistryTestContext, type RegistryTestContext } from './registryHelpers.ts';

describe('eventReceiverUrl and eventDelivery in the registry', () => {
  let database: TestDatabase;
  let ctx: RegistryTestContext;

  beforeAll(async () => {
    database = await createTestDatabase();
    ctx = await startRegistryTestContext(database.db);
  }, 90_000);
  afterAll(async () => {
    await ctx?.close();
    await database?.drop();
  });

  const api = () => request(ctx.gateway.app);
  const admin = (test: request.Test) => ctx.bearerAdmin.apply(test);
  const cli = async (argv: string[], env: Record<string, string> = {}) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli(argv, { stdout: (text) => out.push(text), stderr: (text) => err.push(text), env: { DATABASE_URL: database.url, ...env } });
    return { code, out: out.join(''), err: err.join('') };
  };

  it.each([
    { host: '127.0.0.1', reason: /loopback/ },
    { host: 'localhost:3001', reason: /loopback name/ },
    { host: '169.254.169.254', reason: /cloud instance metadata/ },
    { host: '[fd00:ec2::254]', reason: /cloud instance metadata/ },
    { host: '10.0.0.5', reason: /private address/ },
    { host: '[fe80::1]', reason: /link-local/ },
  ])('400 ADDRESS_NOT_ALLOWED at /body/eventReceiverUrl on create and update: $host', async ({ host, reason }) => {
    const url = `http://${host}/security-events`;
    const body = platformBody({ eventDelivery: 'push', eventReceiverUrl: url });
    const created = await admin(api().post('/v1/platforms')).send(body).expect(400);
    expect(created.body.errors).toEqual([{ pointer: '/body/eventReceiverUrl', message: expect.stringMatching(reason), reason: 'ADDRESS_NOT_ALLOWED' }]);
    const { key, platform } = await seedPlatform(database.db);
    const patched = await admin(api().patch(`/v1/platforms/${key}`)).send({ eventReceiverUrl: url }).expect(400);
    expect(patched.body.errors).toEqual([{ pointer: '/body/eventReceiverUrl', message: expect.stringMatching(reason), reason: 'ADDRESS_NOT_ALLOWED' }]);
    expect((await admin(api().get(`/v1/platforms/${key}`)).expect(200)).body).toEqual(platform);
  });

  it('userinfo, fragments and other schemes are refused by the contract or the URL rule', async () => {
    const { key } = await seedPlatform(database.db);
    for (const url of ['https://user:pw@bff.example.test/e', 'https://bff.example.test/e#x', 'ftp://bff.example.test/e', '/relative']) {
      const refused = await admin(api().patch(`/v1/platforms/${key}`)).send({ eventReceiverUrl: url }).expect(400);
      expect(refused.body.code).toBe('VALIDATION_FAILED');
    }
  });

  it('push needs a receiver URL; poll and none do not; the platform shows both properties', async () => {
    const noUrl = await admin(api().post('/v1/platforms')).send(platformBody({ eventDelivery: 'push' })).expect(400);
    expect(noUrl.body.errors).toEqual([{ pointer: '/body/eventDelivery', message: 'cannot be push without an eventReceiverUrl', reason: 'INVALID' }]);
    const { key } = await seedPlatform(database.db);
    expect((await admin(api().get(`/v1/platforms/${key}`)).expect(200)).body).toMatchObject({ eventDelivery: 'none', eventReceiverUrl: null });
    await admin(api().patch(`/v1/platforms/${key}`)).send({ eventDelivery: 'push' }).expect(400);
    const pushing = await admin(api().patch(`/v1/platforms/${key}`)).send({ eventDelivery: 'push', eventReceiverUrl: 'https://bff.example.test/security-events' }).expect(200);
    expect(pushing.body).toMatchObject({ eventDelivery: 'push', eventReceiverUrl: 'https://bff.example.test/security-events' });
    // Clearing the URL while pushing is refused, naming the URL.
    const cleared = await admin(api().patch(`/v1/platforms/${key}`)).send({ eventReceiverUrl: null }).expect(400);
    expect(cleared.body.errors).toEqual([{ pointer: '/body/eventReceiverUrl', message: 'is required while eventDelivery is push', reason: 'INVALID' }]);
    await admin(api().patch(`/v1/platforms/${key}`)).send({ eventDelivery: 'poll', eventReceiverUrl: null }).expect(200);
    await admin(api().patch(`/v1/platforms/${key}`)).send({ eventDelivery: 'sometimes' }).expect(400);
  });

  it('production: an http receiver URL is refused, and a stored one (from before) stops the activation, naming it', async () => {
    const { key } = await seedPlatform(database.db, { active: false });
    const refused = (await updatePlatform(database.db, key, { eventDelivery: 'push', eventReceiverUrl: 'http://bff.example.test/e' }, CLI_ACTOR, { requireHttps: true }).catch((e: unknown) => e)) as ApiError;
    expect(refused.code).toBe('VALIDATION_FAILED');
    expect(refused.errors).toEqual([expect.objectContaining({ pointer: '/body/eventReceiverUrl', message: 'must use https in production' })]);
    await updatePlatform(database.db, key, { eventDelivery: 'push', eventReceiverUrl: 'http://bff.example.test/e' }, CLI_ACTOR, { requireHttps: false });
    const notActivated = (await activatePlatform(database.db, key, CLI_ACTOR, { requireHttps: true }).catch((e: unknown) => e)) as ApiError;
    expect(notActivated.code).toBe('CONFLICT');
    expect(notActivated.detail).toMatch(/eventReceiverUrl/);
  });

  it('the CLI sets and refuses the same, naming its flags, and lists the delivery record', async () => {
    const { key } = await seedPlatform(database.db);
    const refused = await cli(['platforms', 'update', key, '--event-delivery', 'push', '--event-receiver-url', 'https://169.254.169.254/latest'], { NODE_ENV: 'production' });
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(/--event-receiver-url.*cloud instance metadata/);
    const set = await cli(['platforms', 'update', key, '--event-delivery', 'push', '--event-receiver-url', 'https://bff.example.test/security-events']);
    expect(set.code).toBe(0);
    expect(set.out).toMatch(/eventDelivery\s+push/);
    const missing = await cli(['platforms', 'update', key, '--event-receiver-url', '']);
    expect(missing.err).toMatch(/--event-receiver-url: is required while eventDelivery is push/);

    const empty = await cli(['events', 'list', key]);
    expect(empty).toMatchObject({ code: 0, out: 'No security events recorded for this platform.\n' });
    const json = await cli(['events', 'list', key, '--json', '--status', 'failed']);
    expect(JSON.parse(json.out)).toEqual({ items: [] });
    expect((await cli(['events', 'list', key, '--status', 'lost'])).err).toMatch(/--status: must be one of pending, delivered, failed/);
    expect((await cli(['events', 'list', 'NO_SUCH_PLATFORM'])).code).toBe(1);
  });
});
