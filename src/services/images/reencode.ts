import { ApiError } from '../../errors/catalogue.ts';

// The one checked pipeline for every image a person or an administrator uploads (avatars,
// platform logos): the declared type must match the magic bytes and the decoder's own
// detection, the image must decode without error within a pixel budget, and what is kept is
// a fresh encoding bounded in size, with no metadata. Nothing of the uploaded file survives
// but its pixels: no EXIF/GPS, no XMP, no ICC, no trailing bytes of a polyglot, no second frame.

/**
 * sharp (libvips, +8 MB of RSS) is loaded at the first upload, not at boot: a gateway whose
 * users never upload a picture never maps it. Module loading caches the promise's result.
 */
const loadSharp = async () => (await import('sharp')).default;

/** The raster types an upload may declare (SVG is never accepted: it is a document that can carry script). */
export type UploadImageType = 'image/png' | 'image/jpeg' | 'image/webp';

/** A decompression bomb stops here: 40 megapixels is more than any phone camera takes. */
const MAX_INPUT_PIXELS = 40_000_000;

/** The file signatures of the accepted types (PNG §5.2, JPEG SOI + marker, RIFF/WEBP). */
const SIGNATURES: Record<UploadImageType, (bytes: Buffer) => boolean> = {
  'image/png': (bytes) => bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
  'image/jpeg': (bytes) => bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff,
  'image/webp': (bytes) => bytes.subarray(0, 4).toString('latin1') === 'RIFF' && bytes.subarray(8, 12).toString('latin1') === 'WEBP',
};

/** The format sharp must detect for each declared type. */
const SHARP_FORMATS: Record<UploadImageType, string> = { 'image/png': 'png', 'image/jpeg': 'jpeg', 'image/webp': 'webp' };

/** What a kind of image is re-encoded to. */
export interface ImageProfile {
  /** The result fits in maxSide × maxSide, aspect ratio kept, never enlarged. */
  maxSide: number;
  /** WebP (photos: avatars) or PNG (logos: lossless edges and transparency). */
  output: { format: 'webp'; quality: number } | { format: 'png' };
}

export interface Reencoded {
  data: Buffer;
  width: number;
  height: number;
  /** The media type of `data`, from the re-encode (never from the upload). */
  mediaType: 'image/webp' | 'image/png';
}

const invalid = (detail: string) => new ApiError('IMAGE_INVALID', detail);

/**
 * Checks an upload and re-encodes it by `profile`: turned upright by its EXIF orientation,
 * bounded, and written with no metadata at all (sharp writes no EXIF, XMP or ICC unless asked,
 * so GPS positions from phone cameras are gone). An animated image keeps its first frame. The
 * caller bounds the byte size.
 */
export async function reencodeImage(bytes: Buffer, declared: UploadImageType, profile: ImageProfile): Promise<Reencoded> {
  if (!SIGNATURES[declared]?.(bytes)) throw invalid(`The bytes are not a ${declared} image.`);
  const options = { limitInputPixels: MAX_INPUT_PIXELS, failOn: 'error', animated: false } as const;
  const sharp = await loadSharp();
  try {
    const { format } = await sharp(bytes, options).metadata();
    if (format !== SHARP_FORMATS[declared]) throw invalid(`The bytes are not a ${declared} image.`);
    const bounded = sharp(bytes, options).rotate().resize(profile.maxSide, profile.maxSide, { fit: 'inside', withoutEnlargement: true });
    const encoded = profile.output.format === 'webp' ? bounded.webp({ quality: profile.output.quality }) : bounded.png({ compressionLevel: 9 });
    const { data, info } = await encoded.toBuffer({ resolveWithObject: true });
    return { data, width: info.width, height: info.height, mediaType: profile.output.format === 'webp' ? 'image/webp' : 'image/png' };
  } catch (error) {
    if (error instanceof ApiError) throw error;
    // sharp's message names the decoder's complaint (truncated, corrupt header, too many pixels).
    throw new ApiError('IMAGE_INVALID', 'The image does not decode, or has more than 40 megapixels.', { cause: error });
  }
}
