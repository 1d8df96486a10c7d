import type { OperationHandler } from '../api/types.ts';
import { getPlatform as readPlatform } from '../services/registry/index.ts';

/** GET /v1/platforms/{platformKey}: active or inactive; never a secret. */
export const getPlatform: OperationHandler<'getPlatform'> = async ({ params }, deps) => {
  return { status: 200, body: await readPlatform(deps.db, params.platformKey) };
};
