import type { OperationHandler } from '../api/types.ts';
import { listSessions as list } from '../services/sessions/listing.ts';

/** GET /v1/sessions: the caller's active sessions (an administrator's view of another user's with userId). */
export const listSessions: OperationHandler<'listSessions'> = async ({ principal, query }, deps) => ({
  status: 200,
  body: await list(deps.db, principal!, deps.config.gatewaySessionIdleSeconds, query.userId),
  headers: { 'Cache-Control': 'no-store' },
});
