// Issue 13 §2 and §11: during the shutdown grace (SHUTDOWN_GRACE_SECONDS) a load balancer still
// sends requests on its pooled keep-alive connections until it sees readiness fail. Closing those
// connections when the drain begins reset a request written on one at that moment (a handoff
// exchange lost in test/e2e/multiInstance.test.ts's rolling restart). They stay open through the
// grace; a request on one is answered with `Connection: close`, then the connection ends cleanly.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import net from 'node:net';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { createTestApp } from '../helpers/app.ts';
import { drain, Lifecycle, listen } from '../../src/server.ts';

/** A raw keep-alive connection: one request at a time, answers read up to the end of their body. */
class RawConnection {
  readonly socket: net.Socket;
  closed = false;
  #buffer = '';
  #waiting: (() => void) | null = null;

  constructor(port: number) {
    this.socket = net.connect(port, '127.0.0.1');
    this.socket.setEncoding('utf8');
    this.socket.on('data', (chunk: string) => {
      this.#buffer += chunk;
      this.#waiting?.();
    });
    this.socket.on('error', () => {});
    this.socket.on('close', () => {
      this.closed = true;
      this.#waiting?.();
    });
  }

  async get(path: string): Promise<{ status: number; connection: string | undefined }> {
    this.#buffer = '';
    this.socket.write(`GET ${path} HTTP/1.1\r\nHost: gateway.test\r\nAccept: application/json\r\n\r\n`);
    for (;;) {
      const head = this.#buffer.indexOf('\r\n\r\n');
      if (head !== -1) {
        const headers = this.#buffer.slice(0, head);
        const length = Number(/\r\ncontent-length: *(\d+)/i.exec(headers)?.[1] ?? 0);
        if (this.#buffer.length >= head + 4 + length) {
          return { status: Number(headers.split(' ')[1]), connection: /\r\nconnection: *([^\r]+)/i.exec(headers)?.[1]?.toLowerCase() };
        }
      }
      if (this.closed) throw new Error(`connection closed before a whole answer: ${JSON.stringify(this.#buffer)}`);
      await new Promise<void>((resolve) => (this.#waiting = resolve));
    }
  }
}

describe('drain with a grace period', () => {
  let database: TestDatabase;
  let server: Server;
  let lifecycle: Lifecycle;
  let port: number;

  beforeAll(async () => {
    database = await createTestDatabase();
    lifecycle = new Lifecycle();
    const { app } = await createTestApp({ db: database.db, lifecycle });
    server = await listen(app, 0, undefined, '127.0.0.1');
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    await database?.drop();
  });

  it('keeps idle keep-alive connections through the grace, answers on them with Connection: close, then closes them', async () => {
    const pooled = new RawConnection(port);
    expect(await pooled.get('/health/live')).toEqual({ status: 200, connection: 'keep-alive' });
    const idle = new RawConnection(port);
    expect(await idle.get('/health/live')).toEqual({ status: 200, connection: 'keep-alive' });

    const drained = drain(server, lifecycle, { graceMs: 1500, forceAfterMs: 5000 });
    // The balancer has not noticed yet and writes its next request on a pooled connection.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(pooled.closed).toBe(false);
    expect(await pooled.get('/health/ready')).toEqual({ status: 503, connection: 'close' });
    await expect.poll(() => pooled.closed).toBe(true);

    // A connection nobody used during the grace is closed when the grace ends.
    expect(idle.closed).toBe(false);
    await drained;
    await expect.poll(() => idle.closed).toBe(true);
    expect(server.listening).toBe(false);
  });
});
