import type { OperationHandler } from '../api/types.ts';
import { actorFromPrincipal } from '../services/audit/audit.ts';
import { withdrawConsent } from '../services/documents/agreements.ts';

/** POST /v1/agreements/{platformKey}/withdrawals: withdraw consent to a custom document (idempotent). */
export const withdrawAgreement: OperationHandler<'withdrawAgreement'> = async ({ params, body, principal, requestId }, deps) => {
  const { agreement } = await withdrawConsent(deps.db, params.platformKey, principal!, body.documentKey, actorFromPrincipal(principal, requestId));
  return { status: 200, body: agreement };
};
