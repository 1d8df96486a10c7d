import type { OperationHandler } from '../api/types.ts';
import { editDraft } from '../services/documents/administration.ts';

/** PATCH /v1/platforms/{platformKey}/documents/{documentKey}/versions/{version}: drafts only. */
export const updateDocumentDraft: OperationHandler<'updateDocumentDraft'> = async ({ params, body }, deps) => ({
  status: 200,
  body: await editDraft(deps.db, params.platformKey, params.documentKey, params.version, body),
});
