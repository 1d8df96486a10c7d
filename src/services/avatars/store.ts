import type { AvatarStoreKind } from './repository.ts';
import type { UploadImageType } from '../images/reencode.ts';

export type { AvatarStoreKind };

/** The image types a client may upload (the contract's AvatarUploadRequest). */
export type AvatarUploadType = UploadImageType;

/** A ticket is usable for five minutes (the contract's requestAvatarUpload). */
export const TICKET_TTL_SECONDS = 300;

/** Every published picture has its own URL, so it may be cached for a year. */
export const AVATAR_CACHE_CONTROL = 'public, max-age=31536000, immutable';

export const AVATAR_MEDIA_TYPE = 'image/webp';

/** What a store needs to know about a new ticket. */
export interface TicketSpec {
  id: string;
  contentType: AvatarUploadType;
  contentLength: number;
  /** Unix seconds. */
  expires: number;
}

/** The upload half of a ticket: where the client sends the bytes, and whether it confirms. */
export interface UploadTarget {
  uploadUrl: string;
  headers: Record<string, string>;
  /** Object storage: the gateway URL the client POSTs after the upload; null when the upload completes the change. */
  confirmUrl: string | null;
}

/** A client's upload as object storage holds it until the gateway checks it. */
export interface StagedUpload {
  bytes: Buffer;
  contentType: string | null;
}

/** Object storage only: uploads land under a staging key that the confirm step reads back. */
export interface StagingArea {
  /** The staged bytes of a ticket; null when nothing was uploaded, 'too-large' when more than `maxBytes` were. */
  read(ticketId: string, maxBytes: number): Promise<StagedUpload | 'too-large' | null>;
  discard(ticketId: string): Promise<void>;
}

/**
 * Where avatars live. Two implementations: PostgreSQL (the default: the gateway serves the
 * upload URL and the pictures itself) and S3-compatible object storage (presigned uploads,
 * pictures served by the bucket or its CDN). Checking and re-encoding are the same for both
 * and happen outside the store.
 */
export interface AvatarStore {
  readonly kind: AvatarStoreKind;
  uploadTarget(ticket: TicketSpec): Promise<UploadTarget>;
  /** The public URL of a published picture. */
  pictureUrl(avatarId: string): string;
  /**
   * Keeps a checked, re-encoded picture: returns the bytes its row holds (PostgreSQL) or
   * null once they are written elsewhere (the bucket).
   */
  persist(avatarId: string, webp: Buffer): Promise<Buffer | null>;
  /** Deletes the bytes of pictures whose rows are gone (nothing to do when the row held them). */
  forget(avatarIds: readonly string[]): Promise<void>;
  /** Null when uploads come straight to the gateway. */
  readonly staging: StagingArea | null;
}
