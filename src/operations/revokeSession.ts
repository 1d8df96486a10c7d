import type { OperationHandler } from '../api/types.ts';
import { actorFromPrincipal } from '../services/audit/audit.ts';
import { revokeSession as revoke } from '../services/sessions/listing.ts';
import { callerSubject, consumeRateLimit } from '../services/rateLimits/rateLimits.ts';

/** DELETE /v1/sessions/{sessionId}: ends one session at once. */
export const revokeSession: OperationHandler<'revokeSession'> = async ({ principal, params, requestId }, deps) => {
  await revoke(deps.db, principal!, params.sessionId, actorFromPrincipal(principal, requestId), {
    // Ending another user's session is an administrative write, limited per caller.
    beforeRevokingOthers: () => consumeRateLimit(deps, 'adminWrite', callerSubject(principal!)),
  });
  return { status: 204 };
};
