import type { OperationHandler } from '../api/types.ts';
import { listAuditEvents as listAudit } from '../services/audit/audit.ts';

/** GET /v1/audit-events: newest first, filtered by platform and action. */
export const listAuditEvents: OperationHandler<'listAuditEvents'> = async ({ query }, deps) => {
  const page = await listAudit(deps.db, { platformKey: query.platformKey, action: query.action, limit: query.limit, cursor: query.cursor });
  return { status: 200, body: page };
};
