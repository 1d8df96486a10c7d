import type { OperationHandler } from '../api/types.ts';
import { listPlatformDocuments } from '../services/documents/administration.ts';

/** GET /v1/platforms/{platformKey}/documents: documents, versions and acceptance counts. */
export const listDocuments: OperationHandler<'listDocuments'> = async ({ params }, deps) => ({
  status: 200,
  body: await listPlatformDocuments(deps.db, params.platformKey),
});
