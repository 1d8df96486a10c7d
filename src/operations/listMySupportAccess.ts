import type { OperationHandler } from '../api/types.ts';
import { listMySupportAccess as list } from '../services/supportAccess/requests.ts';

/** GET /v1/account/support-access: the person's support access history. */
export const listMySupportAccess: OperationHandler<'listMySupportAccess'> = async ({ principal }, deps) => {
  const body = await list(deps.db, principal!);
  return { status: 200, body, headers: { 'Cache-Control': 'no-store' } };
};
