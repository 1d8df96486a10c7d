// Issue: PostgreSQL failover (docs/operations.md, "PostgreSQL failover"). The failover test
// (npm run test:failover) found logins lost when the primary died in the middle of an exchange:
// the redeem had committed, and reached the synchronous standby that took over, but its answer
// never came back; the gateway answered 503, and the BFF's retry got 404 HANDOFF_CODE_INVALID
// (the code was spent). Here the same thing, deterministically: a relay in front of a real
// PostgreSQL cuts the connection when the redeem's answer comes back (after its commit).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import net from 'node:net';
import type { Server } from 'node:http';
import { randomBytes } from 'node:crypto';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { createTestApp } from '../helpers/app.ts';
import { addPlatform, browserLogin, type Harness, type TestPlatform } from '../helpers/flowHarness.ts';
import { createDb, type Db } from '../../src/db/knex.ts';
import { freePort } from '../../src/db/embedded.ts';
import { startDevIdp, PERMISSION_SCOPES } from '../../src/devidp/index.ts';
import { sha256 } from '../../src/security/crypto.ts';

/** A TCP relay to PostgreSQL that, once armed, cuts the next connection that has an answer to send (the answer is dropped). */
async function cuttingRelay(targetUrl: string): Promise<{ url: string; armCut(): void; close(): Promise<void> }> {
  const target = new URL(targetUrl);
  const sockets = new Set<net.Socket>();
  let armed = false;
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => {});
    }
    client.pipe(upstream);
    upstream.on('data', (chunk: Buffer) => {
      if (armed) {
        armed = false;
        client.destroy();
        upstream.destroy();
        return;
      }
      client.write(chunk);
    });
    upstream.on('end', () => client.end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(targetUrl);
  url.hostname = '127.0.0.1';
  url.port = String((server.address() as net.AddressInfo).port);
  return {
    url: url.href,
    armCut: () => (armed = true),
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('an exchange whose database connection dies after its commit', () => {
  let database: TestDatabase;
  let relay: Awaited<ReturnType<typeof cuttingRelay>>;
  let db: Db;
  let harness: Harness;
  let server: Server;
  let platform: TestPlatform;

  beforeAll(async () => {
    database = await createTestDatabase();
    relay = await cuttingRelay(database.url);
    // One connection: the one the relay cuts is the redeem's.
    db = createDb(relay.url, { poolMax: 1 });
    const port = await freePort();
    const baseUrl = `http://127.0.0.1:${port}`;
    const clientId = 'gateway-exchange-failover';
    const clientSecret = randomBytes(24).toString('base64url');
    const idp = await startDevIdp({ port: 0, clients: [{ clientId, clientSecret, redirectUris: [`${baseUrl}/v1/auth/callback`], postLogoutRedirectUris: [`${baseUrl}/v1/auth/logged-out`] }] });
    const gateway = await createTestApp({ db, env: { PUBLIC_BASE_URL: baseUrl }, oidc: { issuer: idp.issuer, clientId, clientSecret, scopes: ['openid', 'profile', 'email', ...PERMISSION_SCOPES] } });
    server = await new Promise((resolve) => {
      const listening = gateway.app.listen(port, '127.0.0.1', () => resolve(listening));
    });
    harness = {
      database,
      idp,
      gateway,
      baseUrl,
      async close() {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
        await idp.close();
      },
    };
    platform = await addPlatform(harness);
  });
  afterAll(async () => {
    await harness?.close();
    await db?.destroy();
    await relay?.close();
    await database?.drop();
  });

  it('answers 200 with the committed result instead of a 503 that would lose the login', async () => {
    const login = await browserLogin(harness, platform.key, { username: 'alice', password: 'alice-password' });
    const code = login.location.searchParams.get('code')!;
    expect(code).toMatch(/^handoff_/);

    relay.armCut();
    const res = await fetch(`${harness.baseUrl}/v1/auth/exchange`, {
      method: 'POST',
      headers: { authorization: platform.basic, 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ code }),
    });
    const body = (await res.json()) as { code?: string; session?: { id: string; gatewayToken: string } };
    expect([res.status, body.code]).toEqual([200, undefined]);
    // The credential answered is the one stored with the session, and the code is spent once.
    const stored = await database.db('platform_credentials').where('session_id', body.session!.id).select('token_digest');
    expect(stored.map((row: { token_digest: Buffer }) => row.token_digest.toString('hex'))).toEqual([sha256(body.session!.gatewayToken).toString('hex')]);
    const again = await fetch(`${harness.baseUrl}/v1/auth/exchange`, {
      method: 'POST',
      headers: { authorization: platform.basic, 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ code }),
    });
    expect([again.status, ((await again.json()) as { code: string }).code]).toEqual([404, 'HANDOFF_CODE_INVALID']);
  });
});
