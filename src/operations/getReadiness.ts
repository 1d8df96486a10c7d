import type { OperationHandler } from '../api/types.ts';
import { redisReadiness } from '../services/rateLimits/rateLimits.ts';

const CHECK_TIMEOUT_MS = 2000;

/**
 * Readiness: PostgreSQL answers a query. The pool reconnects by itself, so the
 * answer turns back to 200 once the database is back, without a restart.
 */
export const getReadiness: OperationHandler<'getReadiness'> = async (ctx, deps) => {
  const started = performance.now();
  let reason: string | null = null;
  try {
    await Promise.race([
      deps.db.raw('SELECT 1'),
      new Promise((_, reject) => setTimeout(() => reject(new Error('timed out')), CHECK_TIMEOUT_MS).unref()),
    ]);
  } catch (error) {
    reason = describe(error);
    ctx.log.warn({ reason }, 'readiness check: database unavailable');
  }
  const databaseLatencyMs = reason === null ? Math.round((performance.now() - started) * 10) / 10 : null;
  // Redis (REDIS_URL) is reported, never decisive: while it is down the rate limits count in PostgreSQL.
  const redis = deps.redis ? await redisReadiness(deps.redis) : null;
  const up = reason === null;
  // SIGTERM received: out of the load balancer's rotation at once, whatever the database says.
  const draining = deps.lifecycle?.draining ?? false;
  return {
    status: up && !draining ? 200 : 503,
    headers: { 'Cache-Control': 'no-store' },
    body: {
      status: draining ? 'draining' : up ? 'ready' : 'unavailable',
      checks: {
        database: { status: up ? 'up' : 'down', latencyMs: databaseLatencyMs, reason },
        ...(redis ? { redis } : {}),
      },
    },
  };
};

/** A reason an operator can act on, without connection strings or credentials. */
function describe(error: unknown): string {
  const code = (error as { code?: unknown })?.code;
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === '57P01' || code === '57P03') return 'database is shutting down or starting up';
  if (error instanceof Error && /timed out|timeout/i.test(error.message)) return 'timed out';
  if (typeof code === 'string') return `error ${code}`;
  return 'unreachable';
}
