import express, { type Request, type Response } from 'express';
import type { OperationHandler } from '../api/types.ts';
import { ApiError } from '../errors/catalogue.ts';
import { uploadToGateway, type ReceivingTicket } from '../services/avatars/avatars.ts';

/**
 * PUT /v1/avatar-uploads/{ticketId}?expires&signature (PostgreSQL store): authorised by the
 * URL's signature alone. The body is read only once the ticket is spent, and no further
 * than the declared length.
 */
export const uploadAvatar: OperationHandler<'uploadAvatar'> = async ({ params, query, req, res, log }, deps) => {
  await uploadToGateway(deps, log, { ticketId: params.ticketId, expires: query.expires, signature: query.signature }, (ticket) => receiveImage(req, res, ticket));
  return { status: 204 };
};

/** The request body: exactly the declared Content-Type (else 415), at most the declared length (else 413). */
async function receiveImage(req: Request, res: Response, ticket: ReceivingTicket): Promise<Buffer> {
  const declared = req.get('content-type')?.split(';')[0]?.trim().toLowerCase();
  if (declared !== ticket.contentType) {
    throw new ApiError('UNSUPPORTED_MEDIA_TYPE', `Send the image as ${ticket.contentType}, the type the ticket was issued for; the ticket is spent: request a new one.`);
  }
  const parse = express.raw({ type: () => true, limit: ticket.contentLength, inflate: false });
  await new Promise<void>((resolve, reject) => parse(req, res, (error?: unknown) => (error ? reject(bodyError(error, ticket)) : resolve())));
  const body: unknown = req.body;
  const bytes = Buffer.isBuffer(body) ? body : Buffer.alloc(0);
  if (bytes.length !== ticket.contentLength) {
    throw new ApiError('IMAGE_INVALID', `The body has ${bytes.length} bytes, not the declared ${ticket.contentLength}.`);
  }
  return bytes;
}

/** body-parser's failures in the contract's terms. */
function bodyError(error: unknown, ticket: ReceivingTicket): ApiError {
  switch ((error as { type?: string }).type) {
    case 'entity.too.large':
      return new ApiError('PAYLOAD_TOO_LARGE', `The image may be at most ${ticket.contentLength} bytes, as declared; the ticket is spent: request a new one.`);
    case 'encoding.unsupported':
      return new ApiError('UNSUPPORTED_MEDIA_TYPE', 'Send the image without a Content-Encoding.');
    case 'request.size.invalid':
      return new ApiError('IMAGE_INVALID', 'The body is not as long as its Content-Length.');
    default:
      return new ApiError('MALFORMED_REQUEST', 'The request body could not be read.', { cause: error });
  }
}
