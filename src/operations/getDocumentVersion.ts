import type { OperationHandler } from '../api/types.ts';
import { getDocumentVersion as readVersion } from '../services/documents/administration.ts';

/** GET /v1/platforms/{platformKey}/documents/{documentKey}/versions/{version} */
export const getDocumentVersion: OperationHandler<'getDocumentVersion'> = async ({ params }, deps) => ({
  status: 200,
  body: await readVersion(deps.db, params.platformKey, params.documentKey, params.version),
});
