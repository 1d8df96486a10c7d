import type { OperationHandler } from '../api/types.ts';
import { listAcceptancesOfPerson } from '../services/documents/administration.ts';

/** GET /v1/platforms/{platformKey}/acceptances?sub=…: one person's record for the platform's documents. */
export const listPersonAcceptances: OperationHandler<'listPersonAcceptances'> = async ({ params, query }, deps) => ({
  status: 200,
  body: await listAcceptancesOfPerson(deps.db, params.platformKey, query.sub),
});
