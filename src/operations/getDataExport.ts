import type { OperationHandler } from '../api/types.ts';
import { getDataExport as get } from '../services/dataRights/exports.ts';

/** GET /v1/account/data-exports/{exportId}: one export's status. */
export const getDataExport: OperationHandler<'getDataExport'> = async ({ principal, params }, deps) => ({
  status: 200,
  body: await get(deps.db, principal!, params.exportId),
  headers: { 'Cache-Control': 'no-store' },
});
