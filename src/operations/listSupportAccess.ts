import type { OperationHandler } from '../api/types.ts';
import { listSupportAccess as list } from '../services/supportAccess/requests.ts';

/** GET /v1/support-access: the recent support access requests (operators). */
export const listSupportAccess: OperationHandler<'listSupportAccess'> = async ({ principal, query }, deps) => {
  const body = await list(deps.db, principal!, query.limit ?? 50);
  return { status: 200, body, headers: { 'Cache-Control': 'no-store' } };
};
