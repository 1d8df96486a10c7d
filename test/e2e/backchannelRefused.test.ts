// The outbound address rule at delivery time (GUIDE §5): a gateway without any allowance (no
// dev stack, no OUTBOUND_ALLOWED_PRIVATE_RANGES) never POSTs a logout token to loopback, even
// when the registered URL names a host that only resolves there later (the worker's resolver
// is injected: this machine has no DNS to change), or when the URL was stored before the rule.
// The delivery is given up at once (recorded, one error line), not retried for a day and a half.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import { Writable } from 'node:stream';
import request from 'supertest';
import { startHarness, addPlatform, browserLogin, type Harness, type TestPlatform } from '../helpers/flowHarness.ts';
import { createLogger } from '../../src/logger.ts';
import { freePort } from '../../src/db/embedded.ts';
import { CLI_ACTOR, updatePlatform } from '../../src/services/registry/index.ts';
import { startBackchannelWorker, type BackchannelWorker } from '../../src/services/backchannel/worker.ts';
import { generateSigningKeySpec } from '../../src/security/signingKeys.ts';
import type { Resolver } from '../../src/security/outboundLookup.ts';

const ALICE = { username: 'alice', password: 'alice-password' };
const ACCOUNT_CENTER = 'http://account.test';
const REBOUND_NAME = 'bff.rebind.test';

describe('back-channel logout to an address the gateway never calls', () => {
  let harness: Harness;
  let worker: BackchannelWorker;
  let listener: http.Server;
  let port: number;
  let requests = 0;
  const lookups: string[] = [];
  const lines: Record<string, unknown>[] = [];

  /** The platform's name "now resolves to" the loopback listener. */
  const resolve: Resolver = async (hostname) => {
    lookups.push(hostname);
    if (hostname === REBOUND_NAME) return [{ address: '127.0.0.1', family: 4 }];
    throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  };

  beforeAll(async () => {
    harness = await startHarness({ GATEWAY_SIGNING_KEYS: generateSigningKeySpec('refused') });
    expect(harness.gateway.config.outbound).toEqual({ allowedPrivateRanges: [], allowLoopback: false });
    port = await freePort();
    listener = http.createServer((_req, res) => {
      requests += 1;
      res.writeHead(200).end();
    });
    await new Promise<void>((done) => listener.listen(port, '127.0.0.1', done));
    const stream = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
        done();
      },
    });
    worker = await startBackchannelWorker({ ...harness.gateway.deps, logger: createLogger('info', stream) }, { pollIntervalMs: 100, resolve });
  });
  afterAll(async () => {
    await worker?.stop();
    listener?.closeAllConnections();
    await new Promise((done) => listener?.close(done));
    await harness?.close();
  });

  const db = () => harness.database.db;

  /** A login exchanged by the platform, then signed out: one delivery queued. */
  async function signInAndOut(platform: TestPlatform): Promise<string> {
    const { browser, location } = await browserLogin(harness, platform.key, ALICE);
    const exchanged = await request(harness.gateway.app).post('/v1/auth/exchange').set('Authorization', platform.basic).send({ code: location.searchParams.get('code') }).expect(200);
    const cookie = `gw_session=${browser.cookiesFor(`${harness.baseUrl}/`).gw_session}`;
    await request(harness.gateway.app).post('/v1/auth/logout').set('Cookie', cookie).set('Origin', ACCOUNT_CENTER).expect(204);
    return exchanged.body.session.id as string;
  }

  async function giveUpOf(sessionId: string) {
    await expect.poll(async () => (await db().raw(`SELECT count(*)::int AS n FROM backchannel_logout_give_ups WHERE session_id = ?`, [sessionId])).rows[0].n, { timeout: 10_000 }).toBe(1);
    return (await db().raw(`SELECT * FROM backchannel_logout_give_ups WHERE session_id = ?`, [sessionId])).rows[0];
  }

  it('a registered name that now resolves to loopback: refused after resolution, nothing reaches the listener, given up at the first attempt', async () => {
    const platform = await addPlatform(harness);
    // A name passes registration (what it resolves to can change afterwards).
    await updatePlatform(db(), platform.key, { backchannelLogoutUrl: `http://${REBOUND_NAME}:${port}/backchannel-logout?tenant=secret-ish` }, CLI_ACTOR);
    const sessionId = await signInAndOut(platform);

    const row = await giveUpOf(sessionId);
    expect(row).toMatchObject({ attempts: 1, last_error: `${REBOUND_NAME} resolves to 127.0.0.1, which is refused: the loopback address 127.0.0.1 (the gateway itself; allowed only in the dev stack)` });
    expect(lookups).toContain(REBOUND_NAME);
    expect(requests).toBe(0);
    expect((await db().raw(`SELECT count(*)::int AS n FROM graphile_worker.jobs WHERE key LIKE ?`, [`logout:${sessionId}:%`])).rows[0].n).toBe(0);
    const logged = lines.filter((line) => line.sessionId === sessionId);
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({ level: 50, platformKey: platform.key, attempt: 1, host: REBOUND_NAME, address: '127.0.0.1', addressKind: 'loopback' });
    expect(String(logged[0]!.msg)).toMatch(/refused.*OUTBOUND_ALLOWED_PRIVATE_RANGES.*given up without retrying/);
    expect(JSON.stringify(logged[0])).not.toContain('secret-ish'); // the URL's query is never logged
  });

  it('a loopback URL stored before the rule existed is refused too, without any lookup', async () => {
    const platform = await addPlatform(harness);
    await db().raw(`UPDATE platforms SET backchannel_logout_url = ? WHERE platform_key = ?`, [`http://127.0.0.1:${port}/backchannel-logout`, platform.key]);
    const before = lookups.length;
    const sessionId = await signInAndOut(platform);

    const row = await giveUpOf(sessionId);
    expect(row).toMatchObject({ attempts: 1, last_error: expect.stringMatching(/^127\.0\.0\.1 is refused: the loopback address 127\.0\.0\.1/) });
    expect(lookups.length).toBe(before);
    expect(requests).toBe(0);
  });
});
