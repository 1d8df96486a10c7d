import type { OperationHandler } from '../api/types.ts';
import { listDataExports as list } from '../services/dataRights/exports.ts';

/** GET /v1/account/data-exports: the caller's exports that have not expired. */
export const listDataExports: OperationHandler<'listDataExports'> = async ({ principal }, deps) => ({
  status: 200,
  body: await list(deps.db, principal!),
  headers: { 'Cache-Control': 'no-store' },
});
