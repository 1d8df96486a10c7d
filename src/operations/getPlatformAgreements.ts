import type { OperationHandler } from '../api/types.ts';
import { getPlatformAgreements as agreementsOfPlatform } from '../services/documents/agreements.ts';

/** GET /v1/agreements/{platformKey}: the platform's documents and the caller's record (a platform: its own only). */
export const getPlatformAgreements: OperationHandler<'getPlatformAgreements'> = async ({ params, principal }, deps) => ({
  status: 200,
  body: await agreementsOfPlatform(deps.db, params.platformKey, principal!),
});
