import type { OperationHandler } from '../api/types.ts';
import { actorFromPrincipal } from '../services/audit.ts';
import { revokeSession as revoke } from '../services/sessions/listing.ts';

/** DELETE /v1/sessions/{sessionId}: ends one session at once. */
export const revokeSession: OperationHandler<'revokeSession'> = async ({ principal, params, requestId }, deps) => {
  await revoke(deps.db, principal!, params.sessionId, actorFromPrincipal(principal, requestId));
  return { status: 204 };
};
