import type { OperationHandler } from '../api/types.ts';
import { actorFromPrincipal } from '../services/audit/audit.ts';
import { revokeOtherSessions as revokeOthers } from '../services/sessions/listing.ts';

/** DELETE /v1/sessions: "sign out everywhere else", one request rather than one per session. */
export const revokeOtherSessions: OperationHandler<'revokeOtherSessions'> = async ({ principal, requestId }, deps) => ({
  status: 200,
  body: { endedCount: await revokeOthers(deps.db, principal!, actorFromPrincipal(principal, requestId)) },
  headers: { 'Cache-Control': 'no-store' },
});
