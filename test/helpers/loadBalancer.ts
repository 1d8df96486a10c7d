// A tiny HTTP load balancer for tests with several gateway instances, behaving as the common
// balancers do (nginx, HAProxy, Envoy, a cloud L7 balancer) in the respects that matter to a
// rolling restart:
//
// - round robin over the instances in rotation;
// - an active health check: GET /health/ready every `healthIntervalMs` on a fresh connection;
//   one failure takes the instance out of rotation, one success puts it back (real balancers
//   count several, with a longer interval: SHUTDOWN_GRACE_SECONDS covers the difference);
// - a passive check: a connection refused takes the instance out at once, and the request goes
//   to the next instance (nothing was sent, so this is safe for any method: nginx
//   `proxy_next_upstream error`, Envoy `connect-failure`, HAProxy `retry-on conn-failure`);
// - a keep-alive connection that the instance closed under a request before any byte of the
//   answer came back is retried elsewhere for idempotent methods only (RFC 9110 §9.2.2; nginx
//   does the same). A POST (the handoff exchange) is never replayed: it answers 502.
// - with no instance in rotation it "fails open" and tries them all (Envoy's panic mode, what
//   an AWS ALB does with every target unhealthy), so a database outage that turns every
//   readiness 503 still reaches the gateway, which answers its own 503.
//
// Keep-alive connections are kept to the instances (an upstream keep-alive pool), so a drain
// must end them cleanly with `Connection: close` rather than resetting them.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Upstream {
  name: string;
  port: number;
}

export interface ProxiedRequest {
  upstream: string;
  method: string;
  path: string;
  /** The instance's status, or the error that ended the attempt. */
  outcome: number | string;
}

export interface LoadBalancer {
  url: string;
  port: number;
  /** Every attempt, in order (a retried request appears once per attempt). */
  readonly log: ProxiedRequest[];
  /** Sends matching requests to one named instance, bypassing the rotation (null: rotation again). */
  route(choose: ((method: string, path: string) => string | undefined) | null): void;
  /** Whether the health check has the instance in rotation. */
  inRotation(name: string): boolean;
  close(): Promise<void>;
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade']);
const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);

export async function startLoadBalancer(upstreams: Upstream[], options: { port?: number; healthIntervalMs?: number } = {}): Promise<LoadBalancer> {
  const healthIntervalMs = options.healthIntervalMs ?? 100;
  const healthy = new Map(upstreams.map((u) => [u.name, true]));
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const log: ProxiedRequest[] = [];
  let chooser: ((method: string, path: string) => string | undefined) | null = null;
  let next = 0;
  let closed = false;

  const checkHealth = (upstream: Upstream) =>
    new Promise<void>((resolve) => {
      const req = http.get({ host: '127.0.0.1', port: upstream.port, path: '/health/ready', agent: false, timeout: 1000 }, (res) => {
        res.resume();
        healthy.set(upstream.name, res.statusCode === 200);
        resolve();
      });
      req.on('timeout', () => req.destroy(new Error('health check timed out')));
      req.on('error', () => {
        healthy.set(upstream.name, false);
        resolve();
      });
    });
  const healthLoop = (async () => {
    while (!closed) {
      await Promise.all(upstreams.map(checkHealth));
      await new Promise((resolve) => setTimeout(resolve, healthIntervalMs));
    }
  })();

  /** The instances to try, in order: the rotation from its next position, else all (fail open). */
  function candidates(method: string, path: string): Upstream[] {
    const pinned = chooser?.(method, path);
    if (pinned) return upstreams.filter((u) => u.name === pinned);
    const start = next++ % upstreams.length;
    const ordered = [...upstreams.slice(start), ...upstreams.slice(0, start)];
    const live = ordered.filter((u) => healthy.get(u.name));
    return live.length ? live : ordered;
  }

  function attempt(upstream: Upstream, req: http.IncomingMessage, body: Buffer): Promise<http.IncomingMessage> {
    return new Promise((resolve, reject) => {
      const headers: http.OutgoingHttpHeaders = {};
      for (const [name, value] of Object.entries(req.headers)) if (!HOP_BY_HOP.has(name) && value !== undefined) headers[name] = value;
      headers['content-length'] = String(body.length);
      const out = http.request({ host: '127.0.0.1', port: upstream.port, method: req.method, path: req.url, headers, agent }, resolve);
      out.on('error', (error: NodeJS.ErrnoException) => reject(Object.assign(error, { reusedSocket: out.reusedSocket })));
      out.end(body);
    });
  }

  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const method = req.method ?? 'GET';
    const path = req.url ?? '/';
    let lastError = 'no upstream';
    for (const upstream of candidates(method, path)) {
      try {
        const answer = await attempt(upstream, req, body);
        log.push({ upstream: upstream.name, method, path, outcome: answer.statusCode ?? 0 });
        const headers: http.OutgoingHttpHeaders = {};
        for (const [name, value] of Object.entries(answer.headers)) if (!HOP_BY_HOP.has(name) && value !== undefined) headers[name] = value;
        res.writeHead(answer.statusCode ?? 502, headers);
        answer.pipe(res);
        return;
      } catch (error) {
        const { code, reusedSocket } = error as NodeJS.ErrnoException & { reusedSocket?: boolean };
        lastError = code ?? (error as Error).message;
        log.push({ upstream: upstream.name, method, path, outcome: lastError });
        if (code === 'ECONNREFUSED') {
          healthy.set(upstream.name, false);
          continue;
        }
        if (reusedSocket && code === 'ECONNRESET' && IDEMPOTENT.has(method)) continue;
        break;
      }
    }
    res.writeHead(502, { 'content-type': 'text/plain' });
    res.end(`bad gateway: ${lastError}`);
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    log,
    route(choose) {
      chooser = choose;
    },
    inRotation: (name) => healthy.get(name) ?? false,
    async close() {
      closed = true;
      await healthLoop;
      agent.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
