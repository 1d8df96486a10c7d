import type { OperationHandler } from '../api/types.ts';
import { actorFromPrincipal } from '../services/audit/audit.ts';
import { startDataExport as start } from '../services/dataRights/exports.ts';

/** POST /v1/account/data-exports: queue an export of the caller's data (limited per person). */
export const startDataExport: OperationHandler<'startDataExport'> = async ({ principal, requestId }, deps) => ({
  status: 202,
  body: await start(deps.db, principal!, actorFromPrincipal(principal, requestId)),
  headers: { 'Cache-Control': 'no-store' },
});
