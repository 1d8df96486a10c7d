import type { OperationHandler } from '../api/types.ts';
import { listPlatforms as listRegistry } from '../services/registry/index.ts';

/** GET /v1/platforms: one page of the registry, optionally only active or inactive, or matching a search. */
export const listPlatforms: OperationHandler<'listPlatforms'> = async ({ query }, deps) => {
  const page = await listRegistry(deps.db, { active: query.active, limit: query.limit, cursor: query.cursor, search: query.search });
  return { status: 200, body: page };
};
