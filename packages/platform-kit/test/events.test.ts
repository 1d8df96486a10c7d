// The kit's Security Event Token receiver (src/events.ts) against the real gateway, dev identity
// provider and PostgreSQL (issue 26): events recorded by the gateway for a person who signed in
// to the platform are pushed by its worker (RFC 8935) to an Express app on the kit's handler, or
// polled (RFC 8936) with the typed client. The application's handler runs once per event, also
// when the gateway delivers it again; each SET the kit refuses gets RFC 8935's error; a poll
// acknowledges what was handled and reports what was refused (setErrs).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import express from 'express';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import { startHarness, addPlatform, browserLogin, type Harness, type TestPlatform } from '../../../test/helpers/flowHarness.ts';
import { OidcBrowser } from '../../../test/helpers/oidcBrowser.ts';
import { freePort } from '../../../src/db/embedded.ts';
import { createLogger } from '../../../src/logger.ts';
import { CLI_ACTOR, updatePlatform } from '../../../src/services/registry/index.ts';
import { startBackchannelWorker, type BackchannelWorker } from '../../../src/services/backchannel/worker.ts';
import { generateSigningKeySpec, parseSigningKeys } from '../../../src/security/signingKeys.ts';
import { recordPersonEvent } from '../../../src/services/events/record.ts';
import { signSecurityEventToken } from '../../../src/services/events/token.ts';
import { createSecurityEventReceiver, SecurityEventRefused, clientWithPlatformSecret, gatewayKeySet, type SecurityEvent, type SecurityEventType } from '../src/index.ts';
import { securityEventHandler } from '../src/express.ts';

const SIGNING_KEY = generateSigningKeySpec('kit-events');
const ALICE = { username: 'alice', password: 'alice-password' };
const TYPES = {
  profileChanged: 'urn:auth-gateway:secevent:profile-changed',
  consentWithdrawn: 'urn:auth-gateway:secevent:consent-withdrawn',
  platformLeft: 'urn:auth-gateway:secevent:platform-left',
} as const satisfies Record<string, SecurityEventType>;

describe('the kit receives Security Event Tokens', () => {
  let harness: Harness;
  let worker: BackchannelWorker;
  let server: http.Server;
  let appUrl: string;
  let pushed: TestPlatform;
  let polled: TestPlatform;
  let userId: string;
  const gatewayKeys = parseSigningKeys(SIGNING_KEY);
  const handled: SecurityEvent[] = [];
  /** What the application's push handler does with an event about a subject: refuse it, or fail once. */
  const behaviour = new Map<string, 'access_denied' | 'authentication_failed' | 'fail-once'>();

  beforeAll(async () => {
    harness = await startHarness({ GATEWAY_SIGNING_KEYS: SIGNING_KEY, OUTBOUND_ALLOWED_PRIVATE_RANGES: '127.0.0.0/8' });
    worker = await startBackchannelWorker({ ...harness.gateway.deps, logger: createLogger('silent') }, { pollIntervalMs: 100 });
    const port = await freePort();
    appUrl = `http://127.0.0.1:${port}`;
    pushed = await addPlatform(harness);
    polled = await addPlatform(harness);
    const rules = { requireHttps: false, outbound: harness.gateway.config.outbound };
    await updatePlatform(harness.database.db, pushed.key, { eventDelivery: 'push', eventReceiverUrl: `${appUrl}/security-events` }, CLI_ACTOR, rules);
    await updatePlatform(harness.database.db, polled.key, { eventDelivery: 'poll' }, CLI_ACTOR, rules);
    // The README's lines.
    const receiver = createSecurityEventReceiver({
      gatewayUrl: harness.baseUrl,
      clientId: pushed.clientId,
      onEvent: async (event) => {
        const refusal = behaviour.get(event.subject);
        if (refusal === 'fail-once') {
          behaviour.delete(event.subject);
          throw new Error('database unavailable');
        }
        if (refusal) throw new SecurityEventRefused(refusal, 'not for this platform');
        handled.push(event);
      },
    });
    const app = express();
    app.all('/security-events', securityEventHandler(receiver));
    // The same receiver, but the gateway's key set cannot be fetched (nothing listens there).
    const unreachableKeys = createSecurityEventReceiver({ gatewayUrl: harness.baseUrl, clientId: pushed.clientId, keys: gatewayKeySet(`http://127.0.0.1:${await freePort()}`), onEvent: () => expect.fail('not verified') });
    app.all('/security-events-no-keys', securityEventHandler(unreachableKeys));
    server = await new Promise((resolve) => {
      const listening = app.listen(port, '127.0.0.1', () => resolve(listening));
    });
    // Alice uses both platforms: events about her reach them.
    const browser = new OidcBrowser();
    for (const [index, platform] of [pushed, polled].entries()) {
      let code: string | null;
      if (index === 0) code = (await browserLogin(harness, platform.key, ALICE, browser)).location.searchParams.get('code');
      else {
        const start = `${harness.baseUrl}/v1/auth/start?platformKey=${platform.key}&returnTo=${encodeURIComponent('https://bff.example.test/home')}`;
        const followed = await browser.followRedirects(await browser.get(start), { stopWhen: (url) => !url.startsWith(harness.baseUrl) && !url.startsWith(harness.idp.issuer), maxHops: 10 });
        code = new URL(followed.stoppedAt!).searchParams.get('code');
      }
      const exchanged = await fetch(`${harness.baseUrl}/v1/auth/exchange`, { method: 'POST', headers: { Authorization: platform.basic, 'Content-Type': 'application/json' }, body: JSON.stringify({ code }) });
      expect(exchanged.status).toBe(200);
      userId = ((await exchanged.json()) as { user: { id: string } }).user.id;
    }
  });
  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    await worker?.stop();
    await harness?.close();
  });

  const db = () => harness.database.db;
  const record = (type: SecurityEventType, payload: Record<string, string | number | string[]> = {}) => db().transaction((trx) => recordPersonEvent(trx, { userId, type, payload }));
  const recordOf = async (jti: string) => (await db().raw(`SELECT e.status, e.error_code AS "errorCode", p.platform_key AS "platformKey" FROM security_events e JOIN platforms p ON p.id = e.platform_id WHERE e.id = ?`, [jti])).rows[0];
  const post = (token: string, contentType = 'application/secevent+jwt') => fetch(`${appUrl}/security-events`, { method: 'POST', headers: { 'Content-Type': contentType }, body: token });
  /** The SET the gateway sends for a recorded event (same jti and iat at every redelivery). */
  async function setOf(jti: string): Promise<string> {
    const row = (await db().raw(`SELECT id, user_id AS "userId", event_type AS "eventType", payload, occurred_at AS "occurredAt", created_at AS "createdAt" FROM security_events WHERE id = ?`, [jti])).rows[0];
    return signSecurityEventToken(gatewayKeys, row, { issuer: harness.baseUrl, audience: pushed.clientId });
  }

  it('push: the gateway’s SET is verified, the handler gets the typed event once, and a redelivery does not call it again', async () => {
    const jtis = await record(TYPES.profileChanged, { fields: ['given_name'] });
    const ids = await Promise.all(jtis.map(async (id) => [id, (await recordOf(id)).platformKey] as const));
    const pushedJti = ids.find(([, key]) => key === pushed.key)![0];
    await expect.poll(async () => (await recordOf(pushedJti)).status, { timeout: 10_000 }).toBe('delivered');
    expect(handled).toEqual([expect.objectContaining({ jti: pushedJti, type: TYPES.profileChanged, subject: userId, payload: { fields: ['given_name'] }, issuedAt: expect.any(Date), occurredAt: expect.any(Date) })]);
    // The gateway delivers at least once: the same SET again, twice at once, is taken (202) and not handled again.
    const again = await setOf(pushedJti);
    const answers = await Promise.all([post(again), post(again)]);
    expect(answers.map((res) => res.status)).toEqual([202, 202]);
    expect(handled.filter((event) => event.jti === pushedJti)).toHaveLength(1);
  });

  it('push: each SET it refuses gets RFC 8935’s error, and the handler is not called', async () => {
    const now = Math.floor(Date.now() / 1000);
    const claims = { iss: harness.baseUrl, aud: pushed.clientId, iat: now, jti: randomUUID(), sub: userId, events: { [TYPES.platformLeft]: {} } };
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const forge = (kid: string) => new SignJWT(claims).setProtectedHeader({ alg: 'ES256', kid, typ: 'secevent+jwt' }).sign(privateKey);
    const refusedSubject = randomUUID();
    const deniedSubject = randomUUID();
    behaviour.set(refusedSubject, 'authentication_failed');
    behaviour.set(deniedSubject, 'access_denied');
    const { jti: _noJti, ...withoutJti } = claims;
    const cases: [string, Promise<string> | string, string, string?][] = [
      ['signed by another key under the gateway’s kid', forge('kit-events'), 'invalid_key'],
      ['signed by a key the gateway does not publish', forge('unknown-kid'), 'invalid_key'],
      ['from another issuer', gatewayKeys.sign({ ...claims, iss: 'https://elsewhere.example' }, 'secevent+jwt'), 'invalid_issuer'],
      ['for another platform', gatewayKeys.sign({ ...claims, aud: 'pc_someone_else' }, 'secevent+jwt'), 'invalid_audience'],
      ['of another type (a logout token)', gatewayKeys.sign(claims, 'logout+jwt'), 'invalid_request'],
      ['with two events', gatewayKeys.sign({ ...claims, events: { [TYPES.platformLeft]: {}, [TYPES.profileChanged]: { fields: [] } } }, 'secevent+jwt'), 'invalid_request'],
      ['without a jti', gatewayKeys.sign(withoutJti, 'secevent+jwt'), 'invalid_request'],
      ['without an iat', gatewayKeys.sign({ ...claims, iat: undefined }, 'secevent+jwt'), 'invalid_request'],
      ['that is not a JWT', 'not.a.jwt', 'invalid_request'],
      ['sent as JSON', gatewayKeys.sign(claims, 'secevent+jwt'), 'invalid_request', 'application/json'],
      ['the application refuses (its transport check failed)', gatewayKeys.sign({ ...claims, jti: randomUUID(), sub: refusedSubject }, 'secevent+jwt'), 'authentication_failed'],
      ['the application refuses (not its person)', gatewayKeys.sign({ ...claims, jti: randomUUID(), sub: deniedSubject }, 'secevent+jwt'), 'access_denied'],
    ];
    const before = handled.length;
    for (const [why, token, err, contentType] of cases) {
      const res = await post(await token, contentType);
      expect({ why, status: res.status, body: await res.json() }).toEqual({ why, status: 400, body: { err, description: expect.any(String) } });
    }
    expect(handled.length).toBe(before);
    expect((await fetch(`${appUrl}/security-events`)).status).toBe(405);
    // The same claims signed by the gateway are taken.
    expect((await post(await gatewayKeys.sign(claims, 'secevent+jwt'))).status).toBe(202);
    expect(handled.at(-1)).toMatchObject({ jti: claims.jti, type: TYPES.platformLeft, payload: {} });
  });

  it('push: a handler that fails answers 500 and the gateway retries (the handler runs again); keys that cannot be fetched answer 503, never 400', async () => {
    behaviour.set(userId, 'fail-once');
    const jtis = await record(TYPES.profileChanged, { fields: ['picture'] });
    let jti = '';
    for (const id of jtis) if ((await recordOf(id)).platformKey === pushed.key) jti = id;
    // The first attempt failed (500): the event waits for graphile-worker's retry, brought forward here.
    // graphile-worker counts the attempt when it takes the job, before the POST: wait for the
    // failure it records afterwards, or the handler may not have run yet.
    await expect
      .poll(async () => (await db().raw(`SELECT attempts, last_error IS NOT NULL AS failed FROM graphile_worker.jobs WHERE key = ?`, [`secevent:${jti}`])).rows[0] ?? null, { timeout: 10_000 })
      .toEqual({ attempts: 1, failed: true });
    expect(behaviour.has(userId)).toBe(false);
    expect(await recordOf(jti)).toMatchObject({ status: 'pending' });
    await db().raw(`SELECT graphile_worker.reschedule_jobs(ARRAY(SELECT id FROM graphile_worker.jobs WHERE key = ?), run_at => now())`, [`secevent:${jti}`]);
    await expect.poll(async () => (await recordOf(jti)).status, { timeout: 10_000 }).toBe('delivered');
    expect(handled.filter((event) => event.jti === jti)).toHaveLength(1);

    const res = await fetch(`${appUrl}/security-events-no-keys`, { method: 'POST', headers: { 'Content-Type': 'application/secevent+jwt' }, body: await setOf(jti) });
    expect(res.status).toBe(503);
  });

  it('poll: fetches, handles and acknowledges (a second poll gets nothing); refused SETs are reported in setErrs, a failed handler leaves its event pending', async () => {
    const polledJti = async (type: SecurityEventType, payload?: Record<string, string | number | string[]>) => {
      const ids = await record(type, payload);
      for (const id of ids) if ((await recordOf(id)).platformKey === polled.key) return id;
      throw new Error('no event for the polling platform');
    };
    const client = clientWithPlatformSecret({ gatewayUrl: harness.baseUrl }, polled);
    // What earlier tests recorded for the polling platform is taken first (raw RFC 8936 acknowledgement).
    const earlier = await client.POST('/v1/events/poll', { body: { maxEvents: 100 } });
    await client.POST('/v1/events/poll', { body: { ack: Object.keys(earlier.data!.sets), maxEvents: 0 } });
    const changed = await polledJti(TYPES.profileChanged, { fields: ['family_name'] });
    const withdrawn = await polledJti(TYPES.consentWithdrawn, { document: 'terms', version: 2 });
    const left = await polledJti(TYPES.platformLeft);
    const calls: string[] = [];
    let failOnce = true;
    const receiver = createSecurityEventReceiver({
      gatewayUrl: harness.baseUrl,
      clientId: polled.clientId,
      onEvent: (event) => {
        calls.push(event.jti);
        if (event.type === TYPES.consentWithdrawn) throw new SecurityEventRefused('access_denied', 'we hold no agreements');
        if (event.type === TYPES.platformLeft && failOnce) {
          failOnce = false;
          throw new Error('database unavailable');
        }
      },
    });

    const first = await receiver.poll(client, { maxEvents: 2 });
    expect(first).toEqual({ acknowledged: [changed], refused: { [withdrawn]: { err: 'access_denied', description: 'we hold no agreements' } }, failed: [left] });
    expect(await recordOf(changed)).toMatchObject({ status: 'delivered' });
    expect(await recordOf(withdrawn)).toMatchObject({ status: 'failed', errorCode: 'access_denied' });
    expect(await recordOf(left)).toMatchObject({ status: 'pending' });

    const second = await receiver.poll(client);
    expect(second).toEqual({ acknowledged: [left], refused: {}, failed: [] });
    expect(await recordOf(left)).toMatchObject({ status: 'delivered' });
    expect(calls).toEqual([changed, withdrawn, left, left]);

    expect(await receiver.poll(client)).toEqual({ acknowledged: [], refused: {}, failed: [] });
    expect(calls).toHaveLength(4);
  });

  it('poll: a SET the receiver cannot accept (another audience configured) is reported, not acknowledged', async () => {
    const ids = await record(TYPES.profileChanged, { fields: ['email'] });
    let jti = '';
    const client = clientWithPlatformSecret({ gatewayUrl: harness.baseUrl }, polled);
    await client.POST('/v1/events/poll', { body: { ack: Object.keys((await client.POST('/v1/events/poll', { body: { maxEvents: 100 } })).data!.sets).filter((id) => !ids.includes(id)), maxEvents: 0 } });
    for (const id of ids) if ((await recordOf(id)).platformKey === polled.key) jti = id;
    const misconfigured = createSecurityEventReceiver({ gatewayUrl: harness.baseUrl, clientId: 'pc_not_this_platform', onEvent: () => expect.fail('not handled') });
    const outcome = await misconfigured.poll(client);
    expect(outcome).toEqual({ acknowledged: [], refused: { [jti]: { err: 'invalid_audience', description: expect.any(String) } }, failed: [] });
    expect(await recordOf(jti)).toMatchObject({ status: 'failed', errorCode: 'invalid_audience' });
  });
});
