import type { OperationHandler } from '../api/types.ts';
import { createDraft } from '../services/documents/administration.ts';

/** POST /v1/platforms/{platformKey}/documents/{documentKey}/versions: 201 with the new draft. */
export const createDocumentDraft: OperationHandler<'createDocumentDraft'> = async ({ params, body }, deps) => ({
  status: 201,
  body: await createDraft(deps.db, params.platformKey, params.documentKey, body),
});
