import type { OperationHandler } from '../api/types.ts';
import { LOGO_CACHE_CONTROL, readLogo } from '../services/registry/index.ts';

/**
 * GET /v1/platform-logos/{logoId}: public and immutable (a new id for every upload). The
 * content type is the re-encode's (PNG), never the upload's, and nosniff keeps a browser from
 * reading the bytes as anything else.
 */
export const getPlatformLogo: OperationHandler<'getPlatformLogo'> = async ({ params }, deps) => {
  const logo = await readLogo(deps.db, params.logoId);
  return {
    status: 200,
    contentType: logo.mediaType,
    bytes: logo.image,
    headers: { 'Cache-Control': LOGO_CACHE_CONTROL, 'X-Content-Type-Options': 'nosniff' },
  };
};
