import type { OperationHandler } from '../api/types.ts';
import { listPlatforms as listRegistry } from '../services/platformRegistry.ts';

/** GET /v1/platforms: one page of the registry, optionally only active or inactive platforms. */
export const listPlatforms: OperationHandler<'listPlatforms'> = async ({ query }, deps) => {
  const page = await listRegistry(deps.db, { active: query.active, limit: query.limit, cursor: query.cursor });
  return { status: 200, body: page };
};
