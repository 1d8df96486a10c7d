import type { OperationHandler } from '../api/types.ts';
import { describeCaller } from '../services/account/me.ts';

/** GET /v1/me: the caller, for this credential, with the platforms the user belongs to. */
export const getMe: OperationHandler<'getMe'> = async ({ principal }, deps) => ({
  status: 200,
  body: await describeCaller(deps.db, principal!),
  headers: { 'Cache-Control': 'no-store' },
});
