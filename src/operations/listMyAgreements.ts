import type { OperationHandler } from '../api/types.ts';
import { listMyAgreements as listAgreements } from '../services/documents/agreements.ts';

/** GET /v1/agreements: the person's agreements on every platform (never a platform's credential). */
export const listMyAgreements: OperationHandler<'listMyAgreements'> = async ({ principal }, deps) => ({
  status: 200,
  body: await listAgreements(deps.db, principal!),
});
