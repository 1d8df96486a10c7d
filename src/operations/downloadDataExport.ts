import type { OperationHandler } from '../api/types.ts';
import { actorFromPrincipal } from '../services/audit/audit.ts';
import { openDataExportDownload } from '../services/dataRights/exports.ts';

/** GET /v1/account/data-exports/{exportId}/download?token=…: spends the link, streams the document. */
export const downloadDataExport: OperationHandler<'downloadDataExport'> = async ({ principal, params, query, requestId }, deps) => {
  const { stream, filename, byteSize } = await openDataExportDownload(deps.db, principal!, params.exportId, query.token, actorFromPrincipal(principal, requestId));
  return {
    status: 200,
    contentType: 'application/json',
    stream,
    // The length lets a browser show progress, and makes a transfer cut short (the database
    // gone half-way) an error for the client rather than a document that looks complete.
    headers: { 'Cache-Control': 'no-store', 'Content-Disposition': `attachment; filename="${filename}"`, ...(byteSize !== null ? { 'Content-Length': String(byteSize) } : {}) },
  };
};
