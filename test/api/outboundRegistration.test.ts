// Registration half of the outbound address rule (GUIDE §5, src/security/outboundAddresses.ts):
// a backchannelLogoutUrl whose host is loopback, link-local, a cloud metadata address or (unless
// OUTBOUND_ALLOWED_PRIVATE_RANGES lists its range) a private address is refused on create and
// update, through the API and the operator CLI, with a reason under its own pointer.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { createApp } from '../../src/app.ts';
import { runCli } from '../../src/cli/run.ts';
import { platformBody, seedPlatform, startRegistryTestContext, type RegistryTestContext } from './registryHelpers.ts';

describe('backchannelLogoutUrl: addresses the gateway never calls', () => {
  let database: TestDatabase;
  let ctx: RegistryTestContext;
  let withPrivateRange: Awaited<ReturnType<typeof createApp>>;

  beforeAll(async () => {
    database = await createTestDatabase();
    ctx = await startRegistryTestContext(database.db);
    const deps = ctx.gateway.deps;
    // The same gateway with OUTBOUND_ALLOWED_PRIVATE_RANGES=10.0.0.0/24.
    withPrivateRange = await createApp(
      { ...deps, config: { ...deps.config, outbound: { allowedPrivateRanges: ['10.0.0.0/24'], allowLoopback: false } } },
      { validateResponses: true },
    );
  }, 90_000); // a second app compiles the whole contract
  afterAll(async () => {
    await ctx?.close();
    await database?.drop();
  });

  const api = () => request(ctx.gateway.app);
  const admin = (test: request.Test) => ctx.bearerAdmin.apply(test);

  const refused: { host: string; reason: RegExp }[] = [
    { host: '127.0.0.1', reason: /loopback address 127\.0\.0\.1/ },
    { host: '127.1.2.3:8443', reason: /loopback/ },
    { host: '[::1]', reason: /loopback address ::1/ },
    { host: '[::ffff:7f00:1]', reason: /loopback address ::ffff:7f00:1/ }, // IPv4-mapped 127.0.0.1
    // The same written with a dotted quad: already refused by the spelling rule (urls.ts).
    { host: '[::ffff:127.0.0.1]', reason: /shortest form/ },
    { host: 'localhost:3001', reason: /localhost, a loopback name/ },
    { host: 'bff.localhost', reason: /loopback name/ },
    { host: '169.254.169.254', reason: /cloud instance metadata/ },
    { host: '[fd00:ec2::254]', reason: /cloud instance metadata/ },
    { host: '100.100.100.200', reason: /cloud instance metadata/ },
    { host: '169.254.10.1', reason: /link-local/ },
    { host: '[fe80::1]', reason: /link-local/ },
    { host: '0.0.0.0', reason: /unspecified/ },
    { host: '10.0.0.5', reason: /private address 10\.0\.0\.5 unless .*OUTBOUND_ALLOWED_PRIVATE_RANGES/ },
    { host: '192.168.1.20', reason: /private address/ },
    { host: '[fd12::5]', reason: /private address/ },
  ];

  it.each(refused)('400 VALIDATION_FAILED at /body/backchannelLogoutUrl on create and update: $host', async ({ host, reason: message }) => {
    // The host-spelling rule (not an address rule) refuses the non-canonical IPv4-mapped form first.
    const reason = host === '[::ffff:127.0.0.1]' ? 'INVALID' : 'ADDRESS_NOT_ALLOWED';
    const url = `http://${host}/backchannel-logout`;
    const body = platformBody({ backchannelLogoutUrl: url });
    const created = await admin(api().post('/v1/platforms')).send(body).expect(400);
    expect(created.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(created.body.code).toBe('VALIDATION_FAILED');
    expect(created.body.errors).toEqual([{ pointer: '/body/backchannelLogoutUrl', message: expect.stringMatching(message), reason }]);
    expect((await database.db.raw('SELECT 1 FROM platforms WHERE platform_key = ?', [body.platformKey])).rows).toHaveLength(0);

    const { key, platform } = await seedPlatform(database.db);
    const patched = await admin(api().patch(`/v1/platforms/${key}`)).send({ backchannelLogoutUrl: url }).expect(400);
    expect(patched.body.errors).toEqual([{ pointer: '/body/backchannelLogoutUrl', message: expect.stringMatching(message), reason }]);
    expect((await admin(api().get(`/v1/platforms/${key}`)).expect(200)).body).toEqual(platform);
  });

  it('a private address is accepted once OUTBOUND_ALLOWED_PRIVATE_RANGES lists its range, and only inside it', async () => {
    const body = platformBody({ backchannelLogoutUrl: 'http://10.0.0.5:8080/backchannel-logout' });
    const created = await admin(request(withPrivateRange).post('/v1/platforms')).send(body).expect(201);
    expect(created.body.backchannelLogoutUrl).toBe('http://10.0.0.5:8080/backchannel-logout');
    const outside = await admin(request(withPrivateRange).patch(`/v1/platforms/${body.platformKey}`)).send({ backchannelLogoutUrl: 'http://10.0.1.5/bc' }).expect(400);
    expect(outside.body.errors).toEqual([{ pointer: '/body/backchannelLogoutUrl', message: expect.stringMatching(/private address 10\.0\.1\.5/), reason: 'ADDRESS_NOT_ALLOWED' }]);
    // Listing a private range never opens loopback or the metadata service.
    for (const host of ['127.0.0.1', '169.254.169.254', 'localhost']) {
      await admin(request(withPrivateRange).patch(`/v1/platforms/${body.platformKey}`)).send({ backchannelLogoutUrl: `http://${host}/bc` }).expect(400);
    }
  });

  it('public addresses and names are accepted (a name is checked again after resolution, at every delivery)', async () => {
    for (const url of ['https://bff.example.test/bc', 'http://8.8.8.8/bc', 'https://[2606:4700:4700::1111]/bc', 'https://localhost.example.test/bc']) {
      await admin(api().post('/v1/platforms')).send(platformBody({ backchannelLogoutUrl: url })).expect(201);
    }
  });

  it('the operator CLI refuses the same, naming its flag', async () => {
    const { key } = await seedPlatform(database.db);
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli(['platforms', 'update', key, '--backchannel-logout-url', 'https://169.254.169.254/latest'], {
      stdout: (text) => out.push(text),
      stderr: (text) => err.push(text),
      env: { NODE_ENV: 'production', DATABASE_URL: database.url },
    });
    expect(code).not.toBe(0);
    expect(err.join('')).toMatch(/--backchannel-logout-url.*cloud instance metadata/);
    expect((await database.db.raw('SELECT backchannel_logout_url FROM platforms WHERE platform_key = ?', [key])).rows[0].backchannel_logout_url).toBeNull();
  });
});
