// Issue 13 §2 and §7: a shutdown drains keep-alive connections instead of resetting them, and
// slow clients cannot hold a connection for minutes. Real sockets against the real app.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { createTestApp } from '../helpers/app.ts';
import { drain, Lifecycle, listen } from '../../src/server.ts';
import { createApp } from '../../src/app.ts';
import { handlers } from '../../src/api/handlers.ts';
import type { HandlerMap } from '../../src/api/types.ts';

interface Answer {
  status: number;
  connection: string | undefined;
  body: string;
}

function get(agent: http.Agent, port: number, path: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path, agent }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, connection: res.headers.connection, body }));
      })
      .on('error', reject);
  });
}

/** Resolves with how long the server took to close a raw socket that trickles `bytes`. */
function heldFor(port: number, bytes: string): Promise<number> {
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = net.connect(port, '127.0.0.1', () => socket.write(bytes));
    socket.on('data', () => {});
    socket.on('error', () => {});
    socket.on('close', () => resolve(Date.now() - started));
  });
}

describe('the listener', () => {
  let database: TestDatabase;
  let lifecycle: Lifecycle;
  let server: http.Server;
  let port: number;

  beforeAll(async () => {
    database = await createTestDatabase();
    const { deps } = await createTestApp({ db: database.db });
    lifecycle = new Lifecycle();
    const slowLiveness: HandlerMap['getLiveness'] = async (ctx, handlerDeps) => {
      await new Promise((resolve) => setTimeout(resolve, 500));
      return handlers.getLiveness(ctx, handlerDeps);
    };
    const app = await createApp({ ...deps, lifecycle }, { handlers: { ...handlers, getLiveness: slowLiveness } });
    server = await listen(app, 0, { headersTimeoutMs: 1000, requestTimeoutMs: 2000, keepAliveTimeoutMs: 65_000 }, '127.0.0.1');
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    await database?.drop();
  });

  it('slow headers and a slow body are cut off by the timeouts', async () => {
    const slowHeaders = await heldFor(port, 'GET /health/live HTTP/1.1\r\nHost: x\r\n');
    expect(slowHeaders).toBeLessThan(4000); // Node's defaults held it 60 s and more
    const slowBody = await heldFor(port, 'POST /v1/auth/exchange HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{');
    expect(slowBody).toBeLessThan(5000); // 300 s by default
  });

  it('on drain: readiness 503 and "Connection: close" at once, requests in flight finish, nothing is reset', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
    const before = await get(agent, port, '/health/ready');
    expect(before.status).toBe(200);
    expect(before.connection).toBe('keep-alive');

    // A request in flight when the drain starts (liveness, slowed down for this test).
    const inFlight = get(agent, port, '/health/live');
    await new Promise((resolve) => setTimeout(resolve, 100));

    const drained = drain(server, lifecycle, { graceMs: 300, forceAfterMs: 5000 });
    const during = await get(agent, port, '/health/ready');
    expect(during.status).toBe(503);
    expect(JSON.parse(during.body).status).toBe('draining');
    expect(during.connection).toBe('close');

    const finished = await inFlight;
    expect(finished.status).toBe(200);
    expect(finished.connection).toBe('close');
    await drained;
    expect(server.listening).toBe(false);
    agent.destroy();
  });
});
