import { reencodeImage, type Reencoded } from '../images/reencode.ts';
import type { AvatarUploadType } from './store.ts';

export type { Reencoded };

/** Output bound: the picture fits in 512×512, aspect ratio kept, never enlarged. */
export const AVATAR_MAX_SIDE = 512;
const WEBP_QUALITY = 82;

/**
 * An avatar through the shared checked pipeline (src/services/images/reencode.ts): a WebP of
 * at most 512×512 with no metadata.
 */
export function reencodeAvatar(bytes: Buffer, declared: AvatarUploadType): Promise<Reencoded> {
  return reencodeImage(bytes, declared, { maxSide: AVATAR_MAX_SIDE, output: { format: 'webp', quality: WEBP_QUALITY } });
}
