import type { OperationHandler } from '../api/types.ts';
import { actorFromPrincipal } from '../services/audit/audit.ts';
import { enforcementOf } from '../services/onboarding/grace.ts';
import { publishVersion } from '../services/documents/administration.ts';

/** POST …/versions/{version}/publish: the published version, or a dry run's preview. */
export const publishDocumentVersion: OperationHandler<'publishDocumentVersion'> = async ({ params, query, principal, requestId }, deps) => {
  const result = await publishVersion(deps.db, params.platformKey, params.documentKey, params.version, actorFromPrincipal(principal, requestId), {
    dryRun: query.dryRun === true,
    enforceAfter: enforcementOf(query.enforceAfter),
  });
  return { status: 200, body: result.applied ? result.version : result.preview };
};
