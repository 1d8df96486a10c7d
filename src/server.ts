// The public HTTP listener: bounded timeouts, and a shutdown that drains keep-alive
// connections instead of resetting them (issue 13 §2, §7).
import { createServer, type RequestListener, type Server } from 'node:http';

/**
 * Whether this instance is shutting down. Once draining, readiness answers 503 (the load
 * balancer stops sending new requests) and every answer carries `Connection: close`, so a
 * client's keep-alive connection ends after its current request instead of being reset
 * under a later one (RFC 9112 §9.6).
 */
export class Lifecycle {
  #draining = false;

  get draining(): boolean {
    return this.#draining;
  }

  startDraining(): void {
    this.#draining = true;
  }
}

export interface ServerTimeouts {
  /** Whole request head (request line and headers) within this (Node's default 60 s held slow-header clients for 70 s). */
  headersTimeoutMs: number;
  /** Whole request, body included (Node's default 300 s held a slow body for 310 s). */
  requestTimeoutMs: number;
  /** Idle keep-alive connections close after this; above a typical load balancer's 60 s, so the balancer closes first. */
  keepAliveTimeoutMs: number;
}

export const DEFAULT_SERVER_TIMEOUTS: ServerTimeouts = { headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, keepAliveTimeoutMs: 65_000 };

export async function listen(app: RequestListener, port: number, timeouts: ServerTimeouts = DEFAULT_SERVER_TIMEOUTS, host?: string): Promise<Server> {
  const server = createServer(
    {
      headersTimeout: timeouts.headersTimeoutMs,
      requestTimeout: timeouts.requestTimeoutMs,
      keepAliveTimeout: timeouts.keepAliveTimeoutMs,
      // Node checks the two request timeouts on this interval; its default (30 s) would let a
      // slow client overstay a 10 s limit by up to 30 s.
      connectionsCheckingInterval: 1000,
    },
    app,
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    const listening = () => {
      server.off('error', reject);
      resolve();
    };
    // No host: every address, IPv6 and IPv4 where the machine has them (Node's own choice).
    if (host === undefined) server.listen(port, listening);
    else server.listen(port, host, listening);
  });
  return server;
}

/**
 * Drains and closes the listener: readiness turns 503 and answers carry `Connection: close` at
 * once (`lifecycle`), the listener keeps accepting for `graceMs` while load balancers notice,
 * then stops accepting; idle connections close, requests in flight finish, and whatever is
 * still open after `forceAfterMs` is closed.
 *
 * Idle keep-alive connections are closed only when the grace ends, not when it begins: until the
 * balancer has seen readiness fail it keeps sending requests on its pooled connections, and one
 * that the server closes just as the balancer writes a request on it resets that request (found
 * by test/e2e/multiInstance.test.ts: a reset handoff exchange is a failed login, since a POST is
 * never replayed). During the grace a pooled connection that is used gets `Connection: close` on
 * its answer and ends cleanly after it.
 */
export async function drain(server: Server, lifecycle: Lifecycle, options: { graceMs: number; forceAfterMs: number }): Promise<void> {
  lifecycle.startDraining();
  if (options.graceMs > 0) await new Promise((resolve) => setTimeout(resolve, options.graceMs));
  const force = setTimeout(() => server.closeAllConnections(), options.forceAfterMs).unref();
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  // Idle connections would otherwise wait for keepAliveTimeout.
  server.closeIdleConnections();
  await closed;
  clearTimeout(force);
}
