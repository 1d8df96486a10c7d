import type { OperationHandler } from '../api/types.ts';
import { actorFromPrincipal } from '../services/audit/audit.ts';
import { acceptDocument } from '../services/documents/agreements.ts';

/** POST /v1/agreements/{platformKey}/acceptances: one explicit acceptance (idempotent). */
export const acceptAgreement: OperationHandler<'acceptAgreement'> = async ({ params, body, principal, requestId }, deps) => ({
  status: 200,
  body: await acceptDocument(deps.db, params.platformKey, principal!, body, actorFromPrincipal(principal, requestId)),
});
