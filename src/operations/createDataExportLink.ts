import type { OperationHandler } from '../api/types.ts';
import { createDataExportLink as createLink } from '../services/dataRights/exports.ts';

/** POST /v1/account/data-exports/{exportId}/link: a single-use, five-minute download link. */
export const createDataExportLink: OperationHandler<'createDataExportLink'> = async ({ principal, params }, deps) => ({
  status: 201,
  body: await createLink(deps.db, principal!, params.exportId, deps.config.publicBaseUrl),
  headers: { 'Cache-Control': 'no-store' },
});
