import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { components } from '../../../generated/gateway.ts';
import type { AppDeps } from '../../deps.ts';
import type { Principal } from '../../domain/types.ts';
import { ApiError, validationError } from '../../errors/catalogue.ts';
import {
  findAvatarImage,
  insertTicket,
  publishAvatar,
  removeAvatars,
  spendTicket,
  type RemovedAvatar,
  type SpentTicket,
} from './repository.ts';
import { requireLocalUser } from '../account/localUser.ts';
import { reencodeAvatar } from './image.ts';
import { uploadLinkSigner, type SignedLink } from './signing.ts';
import { createPostgresStore } from './postgresStore.ts';
import { createS3Store } from './s3Store.ts';
import { TICKET_TTL_SECONDS, type AvatarStore, type AvatarUploadType } from './store.ts';

// Avatars (spec: Profile). A ticket announces the picture's URL; the upload (PostgreSQL
// store) or the confirm (object store) spends the ticket in one statement, checks the bytes
// (declared type = magic bytes, declared length, decodes), re-encodes them as a bounded
// WebP without metadata, and publishes them: the profile's picture_url, the new row, and
// the previous picture deleted (its URL stops serving: each upload has its own URL, cached
// for a year, so an old URL that kept answering would keep a picture the person replaced).

export type UploadTicket = components['schemas']['AvatarUploadTicket'];
export type UploadRequest = components['schemas']['AvatarUploadRequest'];

const stores = new WeakMap<AppDeps['config'], AvatarStore>();

/** The configured store, built once per configuration (one S3 client per process). */
export function avatarStore(deps: Pick<AppDeps, 'config' | 'keyRing'>): AvatarStore {
  let store = stores.get(deps.config);
  if (!store) {
    const signer = uploadLinkSigner(deps.keyRing);
    store = deps.config.avatarS3
      ? createS3Store(deps.config.avatarS3, deps.config.publicBaseUrl, signer)
      : createPostgresStore(deps.config.publicBaseUrl, signer);
    stores.set(deps.config, store);
  }
  return store;
}

const ticketInvalid = () => new ApiError('UPLOAD_TICKET_INVALID', 'The upload ticket is unknown, expired, used or wrongly signed: request a new one.');

/** POST /v1/profile/me/avatar/upload-request. */
export async function requestUpload(deps: AppDeps, principal: Principal | null, request: UploadRequest): Promise<UploadTicket> {
  const userId = requireLocalUser(principal);
  const max = deps.config.avatarMaxBytes;
  if (request.contentLength > max) {
    throw validationError([{ pointer: '/body/contentLength', message: `must be at most ${max} bytes (AVATAR_MAX_BYTES)` }]);
  }
  const store = avatarStore(deps);
  const ticket = {
    id: randomUUID(),
    avatarId: randomUUID(),
    contentType: request.contentType as AvatarUploadType,
    contentLength: request.contentLength,
    expires: Math.floor(Date.now() / 1000) + TICKET_TTL_SECONDS,
  };
  const target = await store.uploadTarget(ticket);
  await insertTicket(deps.db, { ...ticket, userId, store: store.kind });
  return {
    uploadUrl: target.uploadUrl,
    method: 'PUT',
    headers: target.headers,
    expiresAt: new Date(ticket.expires * 1000).toISOString(),
    confirmUrl: target.confirmUrl,
    pictureUrl: store.pictureUrl(ticket.avatarId),
  };
}

/** What an upload's receiver learns of the ticket it is spending. */
export type ReceivingTicket = Pick<SpentTicket, 'contentLength'> & { contentType: AvatarUploadType };

/**
 * PUT /v1/avatar-uploads/{ticketId} (PostgreSQL store). The signature and the expiry are
 * checked before anything is read; the ticket is then spent, and only after that does
 * `receive` read the body (the operation refuses another Content-Type with 415 and a body
 * longer than declared with 413): an unsigned request never makes the gateway buffer bytes.
 * Every refusal after the ticket is spent leaves it spent: the client asks for a new one.
 */
export async function uploadToGateway(deps: AppDeps, log: Logger, link: SignedLink, receive: (ticket: ReceivingTicket) => Promise<Buffer>): Promise<void> {
  const store = avatarStore(deps);
  if (store.kind !== 'postgres' || !uploadLinkSigner(deps.keyRing).verify(link)) throw ticketInvalid();
  const ticket = await spendTicket(deps.db, link.ticketId, 'postgres');
  if (!ticket) throw ticketInvalid();
  const bytes = await receive({ contentType: ticket.contentType as AvatarUploadType, contentLength: ticket.contentLength });
  await publish(deps, log, store, ticket, bytes);
}

/**
 * POST /v1/avatar-uploads/{ticketId}/confirm (object store): spends the ticket, reads the
 * staged object back (refused when absent, larger than declared, or not of the declared
 * type and length: a store that does not enforce the signed headers is caught here),
 * publishes it, and deletes the staged object.
 */
export async function confirmUpload(deps: AppDeps, log: Logger, link: SignedLink): Promise<void> {
  const store = avatarStore(deps);
  const staging = store.staging;
  if (!staging || !uploadLinkSigner(deps.keyRing).verify(link)) throw ticketInvalid();
  const ticket = await spendTicket(deps.db, link.ticketId, store.kind);
  if (!ticket) throw ticketInvalid();
  const staged = await staging.read(ticket.id, ticket.contentLength);
  try {
    if (staged === null) throw new ApiError('IMAGE_INVALID', 'Nothing was uploaded for this ticket; the ticket is spent: request a new one.');
    if (staged === 'too-large') throw new ApiError('IMAGE_INVALID', `The uploaded object is larger than the declared ${ticket.contentLength} bytes.`);
    if (staged.contentType !== ticket.contentType || staged.bytes.length !== ticket.contentLength) {
      throw new ApiError('IMAGE_INVALID', `The uploaded object is not the declared ${ticket.contentType} of ${ticket.contentLength} bytes.`);
    }
    await publish(deps, log, store, ticket, staged.bytes);
  } finally {
    if (staged !== null) {
      await staging.discard(ticket.id).catch((error: unknown) => log.warn({ err: error, ticketId: ticket.id }, 'staged avatar upload not deleted'));
    }
  }
}

async function publish(deps: AppDeps, log: Logger, store: AvatarStore, ticket: SpentTicket, bytes: Buffer): Promise<void> {
  const picture = await reencodeAvatar(bytes, ticket.contentType as AvatarUploadType);
  const image = await store.persist(ticket.avatarId, picture.data);
  let replaced: RemovedAvatar[];
  try {
    replaced = await publishAvatar(deps.db, {
      id: ticket.avatarId,
      userId: ticket.userId,
      store: store.kind,
      image,
      width: picture.width,
      height: picture.height,
      pictureUrl: store.pictureUrl(ticket.avatarId),
    });
  } catch (error) {
    if (image === null) await forget(deps, log, [{ id: ticket.avatarId, store: store.kind }]);
    throw error;
  }
  await forget(deps, log, replaced);
}

/** GET /v1/avatars/{avatarId}: the WebP bytes of a picture kept in PostgreSQL. */
export async function readAvatar(deps: AppDeps, avatarId: string): Promise<Buffer> {
  const image = await findAvatarImage(deps.db, avatarId);
  if (!image) throw new ApiError('NOT_FOUND', 'No such avatar: it may have been replaced or removed.');
  return image;
}

/** DELETE /v1/profile/me/avatar: picture_url null, the stored bytes deleted. Idempotent. */
export async function deleteAvatar(deps: AppDeps, log: Logger, principal: Principal | null): Promise<void> {
  await deleteAvatarsOf(deps, log, requireLocalUser(principal));
}

/** Every picture of a user, bytes included (also for an account purge). */
export async function deleteAvatarsOf(deps: AppDeps, log: Logger, userId: string): Promise<void> {
  await forget(deps, log, await removeAvatars(deps.db, userId));
}

/**
 * Deletes the objects of removed pictures kept in the bucket (rows kept in PostgreSQL took
 * their bytes with them). Best effort: the change is committed, so a failure is logged for
 * the operator (the object is orphaned), never answered.
 */
async function forget(deps: AppDeps, log: Logger, removed: readonly RemovedAvatar[]): Promise<void> {
  const ids = removed.filter((avatar) => avatar.store === 's3').map((avatar) => avatar.id);
  if (ids.length === 0) return;
  const store = avatarStore(deps);
  if (store.kind !== 's3') {
    log.warn({ avatarIds: ids }, 'avatar objects left in the bucket: object storage is no longer configured');
    return;
  }
  await store.forget(ids).catch((error: unknown) => log.warn({ err: error, avatarIds: ids }, 'avatar objects not deleted from the bucket'));
}
