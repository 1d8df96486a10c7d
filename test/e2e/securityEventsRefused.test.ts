// The outbound address rule at push time (GUIDE §5), for Security Event Tokens as for
// back-channel logout: a gateway without any allowance never POSTs a SET to loopback or the
// metadata service, even when the registered receiver URL names a host that only resolves there
// later (the worker's resolver is injected), or the URL was stored before the rule. The event is
// failed at once (address_refused), not retried for a day and a half.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import request from 'supertest';
import { startHarness, addPlatform, browserLogin, type Harness, type TestPlatform } from '../helpers/flowHarness.ts';
import { createLogger } from '../../src/logger.ts';
import { freePort } from '../../src/db/embedded.ts';
import { CLI_ACTOR, updatePlatform } from '../../src/services/registry/index.ts';
import { startBackchannelWorker, type BackchannelWorker } from '../../src/services/backchannel/worker.ts';
import { generateSigningKeySpec } from '../../src/security/signingKeys.ts';
import { recordPersonEvent } from '../../src/services/events/record.ts';
import { SECURITY_EVENT_TYPES } from '../../src/services/events/types.ts';
import type { Resolver } from '../../src/security/outboundLookup.ts';

const ALICE = { username: 'alice', password: 'alice-password' };
const REBOUND_NAME = 'bff.rebind.test';
const METADATA_NAME = 'metadata.rebind.test';

describe('pushed security events to an address the gateway never calls', () => {
  let harness: Harness;
  let worker: BackchannelWorker;
  let listener: http.Server;
  let port: number;
  let requests = 0;

  const resolve: Resolver = async (hostname) => {
    if (hostname === REBOUND_NAME) return [{ address: '127.0.0.1', family: 4 }];
    if (hostname === METADATA_NAME) return [{ address: '169.254.169.254', family: 4 }];
    throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  };

  beforeAll(async () => {
    harness = await startHarness({ GATEWAY_SIGNING_KEYS: generateSigningKeySpec('refused') });
    expect(harness.gateway.config.outbound).toEqual({ allowedPrivateRanges: [], allowLoopback: false });
    port = await freePort();
    listener = http.createServer((_req, res) => {
      requests += 1;
      res.writeHead(202).end();
    });
    await new Promise<void>((done) => listener.listen(port, '127.0.0.1', done));
    worker = await startBackchannelWorker({ ...harness.gateway.deps, logger: createLogger('silent') }, { pollIntervalMs: 100, resolve });
  });
  afterAll(async () => {
    await worker?.stop();
    listener?.closeAllConnections();
    await new Promise((done) => listener?.close(done));
    await harness?.close();
  });

  const db = () => harness.database.db;

  /** A person related to the platform (signed in through it), and one event recorded for it. */
  async function eventFor(platform: TestPlatform): Promise<string> {
    const { location } = await browserLogin(harness, platform.key, ALICE);
    const exchanged = await request(harness.gateway.app).post('/v1/auth/exchange').set('Authorization', platform.basic).send({ code: location.searchParams.get('code') }).expect(200);
    const ids = await db().transaction((trx) => recordPersonEvent(trx, { userId: exchanged.body.user.id, type: SECURITY_EVENT_TYPES.platformLeft, platformId: null }));
    const own = await db().raw(`SELECT e.id FROM security_events e JOIN platforms p ON p.id = e.platform_id WHERE e.id = ANY(?) AND p.platform_key = ?`, [ids, platform.key]);
    return own.rows[0].id;
  }

  async function failedRecord(jti: string) {
    await expect.poll(async () => (await db().raw(`SELECT status FROM security_events WHERE id = ?`, [jti])).rows[0].status, { timeout: 10_000 }).toBe('failed');
    return (await db().raw(`SELECT attempts, error_code AS "errorCode", last_error AS "lastError" FROM security_events WHERE id = ?`, [jti])).rows[0];
  }

  it.each([
    { name: REBOUND_NAME, address: /127\.0\.0\.1, which is refused: the loopback address/ },
    { name: METADATA_NAME, address: /169\.254\.169\.254, which is refused: .*metadata/ },
  ])('a registered name that now resolves to a refused address ($name): nothing is sent, failed at the first attempt', async ({ name, address }) => {
    const platform = await addPlatform(harness);
    await updatePlatform(db(), platform.key, { eventDelivery: 'push', eventReceiverUrl: `http://${name}:${port}/security-events` }, CLI_ACTOR);
    const jti = await eventFor(platform);
    expect(await failedRecord(jti)).toMatchObject({ attempts: 1, errorCode: 'address_refused', lastError: expect.stringMatching(address) });
    expect(requests).toBe(0);
    // The job completes right after the record says failed (no retry is queued).
    await expect.poll(async () => (await db().raw(`SELECT count(*)::int AS n FROM graphile_worker.jobs WHERE key = ?`, [`secevent:${jti}`])).rows[0].n, { timeout: 10_000 }).toBe(0);
  });

  it('a loopback URL stored before the rule is refused too', async () => {
    const platform = await addPlatform(harness);
    await db().raw(`UPDATE platforms SET event_delivery = 'push', event_receiver_url = ? WHERE platform_key = ?`, [`http://127.0.0.1:${port}/security-events`, platform.key]);
    const jti = await eventFor(platform);
    expect(await failedRecord(jti)).toMatchObject({ attempts: 1, errorCode: 'address_refused', lastError: expect.stringMatching(/^127\.0\.0\.1 is refused: the loopback address/) });
    expect(requests).toBe(0);
  });
});
