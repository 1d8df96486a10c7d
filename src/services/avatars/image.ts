import { ApiError } from '../../errors/catalogue.ts';
import type { AvatarUploadType } from './store.ts';

/**
 * sharp (libvips, +8 MB of RSS) is loaded at the first upload, not at boot: a gateway whose
 * users never upload a picture never maps it. Module loading caches the promise's result.
 */
const loadSharp = async () => (await import('sharp')).default;

/** Output bound: the picture fits in 512×512, aspect ratio kept, never enlarged. */
export const AVATAR_MAX_SIDE = 512;
/** A decompression bomb stops here: 40 megapixels is more than any phone camera takes. */
const MAX_INPUT_PIXELS = 40_000_000;
const WEBP_QUALITY = 82;

/** The file signatures of the accepted types (PNG §5.2, JPEG SOI + marker, RIFF/WEBP). */
const SIGNATURES: Record<AvatarUploadType, (bytes: Buffer) => boolean> = {
  'image/png': (bytes) => bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
  'image/jpeg': (bytes) => bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff,
  'image/webp': (bytes) => bytes.subarray(0, 4).toString('latin1') === 'RIFF' && bytes.subarray(8, 12).toString('latin1') === 'WEBP',
};

/** The format sharp must detect for each declared type. */
const SHARP_FORMATS: Record<AvatarUploadType, string> = { 'image/png': 'png', 'image/jpeg': 'jpeg', 'image/webp': 'webp' };

export interface Reencoded {
  data: Buffer;
  width: number;
  height: number;
}

const invalid = (detail: string) => new ApiError('IMAGE_INVALID', detail);

/**
 * Checks an upload and re-encodes it: the magic bytes must be the declared type's, the image
 * must decode without error (truncated files fail) within the pixel limit, and the result
 * is a WebP of at most 512×512, turned upright by its EXIF orientation, with no metadata at
 * all: sharp writes no EXIF, XMP or ICC unless asked, so GPS positions from phone cameras
 * are gone. An animated image keeps its first frame. The caller bounds the byte size.
 */
export async function reencodeAvatar(bytes: Buffer, declared: AvatarUploadType): Promise<Reencoded> {
  if (!SIGNATURES[declared](bytes)) throw invalid(`The bytes are not a ${declared} image.`);
  const options = { limitInputPixels: MAX_INPUT_PIXELS, failOn: 'error', animated: false } as const;
  const sharp = await loadSharp();
  try {
    const { format } = await sharp(bytes, options).metadata();
    if (format !== SHARP_FORMATS[declared]) throw invalid(`The bytes are not a ${declared} image.`);
    const { data, info } = await sharp(bytes, options)
      .rotate()
      .resize(AVATAR_MAX_SIDE, AVATAR_MAX_SIDE, { fit: 'inside', withoutEnlargement: true })
      .webp({ quality: WEBP_QUALITY })
      .toBuffer({ resolveWithObject: true });
    return { data, width: info.width, height: info.height };
  } catch (error) {
    if (error instanceof ApiError) throw error;
    // sharp's message names the decoder's complaint (truncated, corrupt header, too many pixels).
    throw new ApiError('IMAGE_INVALID', 'The image does not decode, or has more than 40 megapixels.', { cause: error });
  }
}
