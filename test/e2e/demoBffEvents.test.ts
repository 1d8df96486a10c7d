// The example BFF's Security Event Token receiver (src/devstack/demoBffEvents.ts): a person signs
// in through the BFF and deletes their account; the gateway pushes the deletion event, the BFF
// verifies it against the gateway's published keys and shows it on its page. SETs that fail a
// check (another key, another audience, another type, not a SET) are refused with RFC 8935's 400.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import { SignJWT } from 'jose';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { startHarness, type Harness } from '../helpers/flowHarness.ts';
import { OidcBrowser } from '../helpers/oidcBrowser.ts';
import { startDemoBff, type DemoBff } from '../../src/devstack/demoBff.ts';
import { createPlatform, CLI_ACTOR } from '../../src/services/registry/index.ts';
import { freePort } from '../../src/db/embedded.ts';
import { createLogger } from '../../src/logger.ts';
import { startBackchannelWorker, type BackchannelWorker } from '../../src/services/backchannel/worker.ts';
import { generateSigningKeySpec, parseSigningKeys } from '../../src/security/signingKeys.ts';
import { SECURITY_EVENT_TYPES } from '../../src/services/events/types.ts';

const ALICE = { username: 'alice', password: 'alice-password' };
const SIGNING_KEY = generateSigningKeySpec('bff-events');

describe('the example BFF receives Security Event Tokens', () => {
  let harness: Harness;
  let bff: DemoBff;
  let worker: BackchannelWorker;
  let clientId: string;

  beforeAll(async () => {
    harness = await startHarness({ GATEWAY_SIGNING_KEYS: SIGNING_KEY, OUTBOUND_ALLOWED_PRIVATE_RANGES: '127.0.0.0/8' });
    const bffUrl = `http://127.0.0.1:${await freePort()}`;
    const created = await createPlatform(
      harness.database.db,
      {
        platformKey: 'BFF_EVENTS',
        displayName: 'BFF events',
        callbackUrl: `${bffUrl}/auth/callback`,
        allowedReturnUrls: [`${bffUrl}/`],
        defaultOnboardingMode: 'none',
        eventDelivery: 'push',
        eventReceiverUrl: `${bffUrl}/security-events`,
      },
      CLI_ACTOR,
      { requireHttps: false, outbound: harness.gateway.config.outbound },
    );
    clientId = created.platform.clientId!;
    bff = await startDemoBff({ port: Number(new URL(bffUrl).port), gatewayUrl: harness.baseUrl, platformKey: 'BFF_EVENTS', clientId, clientSecret: created.clientSecret, publicUrl: bffUrl });
    worker = await startBackchannelWorker({ ...harness.gateway.deps, logger: createLogger('silent') }, { pollIntervalMs: 100 });
  });
  afterAll(async () => {
    await worker?.stop();
    await bff?.close();
    await harness?.close();
  });

  const post = (body: string, contentType = 'application/secevent+jwt') => fetch(`${bff.url}/security-events`, { method: 'POST', headers: { 'Content-Type': contentType }, body });

  it('a person who signed in through the BFF deletes the account: the BFF shows the verified deletion event', async () => {
    const browser = new OidcBrowser();
    const login = await browser.get(`${bff.url}/login`);
    const toIdp = await browser.followRedirects(login, { maxHops: 10 });
    const afterLogin = await browser.loginAtDevIdp(toIdp.response, ALICE.username, ALICE.password);
    const followed = await browser.followRedirects(afterLogin, { stopWhen: (url) => url.startsWith(`${bff.url}/auth/callback`), maxHops: 10 });
    expect((await browser.get(followed.stoppedAt!)).status).toBe(303);

    const gatewayCookie = `gw_session=${browser.cookiesFor(`${harness.baseUrl}/`).gw_session}`;
    await request(harness.gateway.app).delete('/v1/account/me').set('Cookie', gatewayCookie).set('Origin', 'http://account.test').expect(204);

    await expect.poll(async () => (await fetch(`${bff.url}/`).then((res) => res.text())).includes('account-deletion-scheduled'), { timeout: 10_000 }).toBe(true);
    const home = await fetch(`${bff.url}/`).then((res) => res.text());
    expect(home).toContain('Events from the gateway');
    const { rows } = await harness.database.db.raw(`SELECT status FROM security_events e JOIN platforms p ON p.id = e.platform_id WHERE p.platform_key = 'BFF_EVENTS'`);
    expect(rows).toEqual([{ status: 'delivered' }]);
  });

  it('refuses a SET signed by another key, for another audience, of another type, or not sent as a SET', async () => {
    const claims = { iss: harness.baseUrl, aud: clientId, jti: randomUUID(), sub: randomUUID(), events: { [SECURITY_EVENT_TYPES.platformLeft]: {} } };
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const forged = await new SignJWT(claims).setProtectedHeader({ alg: 'ES256', kid: 'bff-events', typ: 'secevent+jwt' }).setIssuedAt().sign(privateKey);
    const gatewayKeys = parseSigningKeys(SIGNING_KEY);
    const otherAudience = await gatewayKeys.sign({ ...claims, aud: 'someone-else', iat: Math.floor(Date.now() / 1000) }, 'secevent+jwt');
    const otherType = await gatewayKeys.sign({ ...claims, iat: Math.floor(Date.now() / 1000) }, 'logout+jwt');
    const twoEvents = await gatewayKeys.sign({ ...claims, iat: Math.floor(Date.now() / 1000), events: { a: {}, b: {} } }, 'secevent+jwt');
    for (const [token, err] of [[forged, 'invalid_key'], [otherAudience, 'invalid_audience'], [otherType, 'invalid_request'], [twoEvents, 'invalid_request']] as const) {
      const res = await post(token);
      expect(res.status).toBe(400);
      expect(((await res.json()) as { err: string }).err).toBe(err);
    }
    expect((await post('x', 'application/json')).status).toBe(400);
    expect((await fetch(`${bff.url}/security-events`)).status).toBe(405);
    const valid = await gatewayKeys.sign({ ...claims, iat: Math.floor(Date.now() / 1000) }, 'secevent+jwt');
    expect((await post(valid)).status).toBe(202);
    expect((await post(valid)).status).toBe(202); // at least once: a repeat is taken again
  });
});
