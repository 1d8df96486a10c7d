import type { OperationHandler } from '../api/types.ts';
import { actorFromPrincipal } from '../services/audit.ts';
import { openDataExportDownload } from '../services/dataRights/exports.ts';

/** GET /v1/account/data-exports/{exportId}/download?token=…: spends the link, streams the document. */
export const downloadDataExport: OperationHandler<'downloadDataExport'> = async ({ principal, params, query, requestId }, deps) => {
  const { stream, filename } = await openDataExportDownload(deps.db, principal!, params.exportId, query.token, actorFromPrincipal(principal, requestId));
  return {
    status: 200,
    contentType: 'application/json',
    stream,
    headers: { 'Cache-Control': 'no-store', 'Content-Disposition': `attachment; filename="${filename}"` },
  };
};
