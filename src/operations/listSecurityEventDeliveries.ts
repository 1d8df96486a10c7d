import type { OperationHandler } from '../api/types.ts';
import { listSecurityEventDeliveries as list } from '../services/events/record.ts';

/** GET /v1/platforms/{platformKey}/security-events: the operator's delivery record (platforms:admin). */
export const listSecurityEventDeliveries: OperationHandler<'listSecurityEventDeliveries'> = async ({ params, query }, deps) => ({
  status: 200,
  body: await list(deps.db, params.platformKey, { status: query.status, limit: query.limit }),
});
