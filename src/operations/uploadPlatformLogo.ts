import express, { type Request, type Response } from 'express';
import type { OperationHandler } from '../api/types.ts';
import { ApiError } from '../errors/catalogue.ts';
import { actorFromPrincipal } from '../services/audit/audit.ts';
import type { UploadImageType } from '../services/images/reencode.ts';
import { LOGO_MAX_BYTES, LOGO_UPLOAD_TYPES, uploadLogo } from '../services/registry/index.ts';

/**
 * PUT /v1/platforms/{platformKey}/branding/logo: the image is the body. Authorised (platforms:admin)
 * before the body is read, and read no further than LOGO_MAX_BYTES; the service checks and
 * re-encodes it as avatars are.
 */
export const uploadPlatformLogo: OperationHandler<'uploadPlatformLogo'> = async (ctx, deps) => {
  const declared = ctx.req.get('content-type')?.split(';')[0]?.trim().toLowerCase() as UploadImageType | undefined;
  if (!declared || !LOGO_UPLOAD_TYPES.includes(declared)) {
    throw new ApiError('UNSUPPORTED_MEDIA_TYPE', 'Send the logo as image/png, image/jpeg or image/webp.');
  }
  const bytes = await readBody(ctx.req, ctx.res);
  return {
    status: 200,
    body: await uploadLogo({ db: deps.db, publicBaseUrl: deps.config.publicBaseUrl }, ctx.params.platformKey, bytes, declared, actorFromPrincipal(ctx.principal, ctx.requestId)),
  };
};

async function readBody(req: Request, res: Response): Promise<Buffer> {
  const parse = express.raw({ type: () => true, limit: LOGO_MAX_BYTES, inflate: false });
  await new Promise<void>((resolve, reject) => parse(req, res, (error?: unknown) => (error ? reject(bodyError(error)) : resolve())));
  const body: unknown = req.body;
  return Buffer.isBuffer(body) ? body : Buffer.alloc(0);
}

/** body-parser's failures in the contract's terms. */
function bodyError(error: unknown): ApiError {
  switch ((error as { type?: string }).type) {
    case 'entity.too.large':
      return new ApiError('PAYLOAD_TOO_LARGE', `A logo may be at most ${LOGO_MAX_BYTES} bytes.`);
    case 'encoding.unsupported':
      return new ApiError('UNSUPPORTED_MEDIA_TYPE', 'Send the image without a Content-Encoding.');
    case 'request.size.invalid':
      return new ApiError('IMAGE_INVALID', 'The body is not as long as its Content-Length.');
    default:
      return new ApiError('MALFORMED_REQUEST', 'The request body could not be read.', { cause: error });
  }
}
