// The probes while the process boots: the listener is up from the first second, before the
// database is reached (or migrated) and before the app exists. Without it nothing listened while
// the gateway waited for PostgreSQL, a liveness probe failed for as long as the database was away,
// and an orchestrator restarted the pod, which then waited again from the start.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import { livenessBody } from './operations/getLiveness.ts';
import { ApiError } from './errors/catalogue.ts';
import { toProblem } from './errors/problem.ts';

/** What the booting instance waits for: readiness's `checks.database.reason` (short, no connection string). */
export interface BootState {
  reason: string;
}

/**
 * Serves `/health/live` (200, as the app does) and `/health/ready` (503 `starting`, with what the
 * boot waits for) until the app takes over (serveApp); every other request gets 503
 * `DATABASE_UNAVAILABLE` with `Retry-After`, as a request to an instance without its database does.
 */
export function bootProbes(state: BootState): RequestListener {
  return (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0];
    const head = req.method === 'HEAD';
    const requestId = randomUUID();
    const send = (status: number, type: string, body: unknown, headers: Record<string, string> = {}) => {
      const text = JSON.stringify(body);
      res.writeHead(status, { 'Content-Type': type, 'Cache-Control': 'no-store', 'X-Request-Id': requestId, ...headers });
      res.end(head ? undefined : text);
    };
    if ((req.method === 'GET' || head) && path === '/health/live') return send(200, 'application/json', livenessBody());
    if ((req.method === 'GET' || head) && path === '/health/ready') {
      return send(503, 'application/json', { status: 'starting', checks: { database: { status: 'down', latencyMs: null, reason: state.reason } } });
    }
    send(503, 'application/problem+json', toProblem(new ApiError('DATABASE_UNAVAILABLE', `The gateway is starting: ${state.reason}.`), requestId), { 'Retry-After': '1' });
  };
}

/** The app takes over the listener the probes answered on: no moment without a listener, no second port. */
export function serveApp(server: Server, app: RequestListener): void {
  server.removeAllListeners('request');
  server.on('request', app);
}
