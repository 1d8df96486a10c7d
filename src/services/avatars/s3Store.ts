import type { S3Client } from '@aws-sdk/client-s3';
import { ApiError } from '../../errors/catalogue.ts';
import type { AvatarS3Config } from '../../config/index.ts';
import { AVATAR_CACHE_CONTROL, AVATAR_MEDIA_TYPE, type AvatarStore, type StagedUpload, type TicketSpec, type UploadTarget } from './store.ts';
import { signedGatewayUrl } from './postgresStore.ts';
import type { UploadLinkSigner } from './signing.ts';

/** Every call to the bucket has a deadline: a stuck store must not hold a request (or a pool connection). */
const S3_TIMEOUT_MS = 5000;

const stagingKey = (ticketId: string) => `uploads/${ticketId}`;
const pictureKey = (avatarId: string) => `avatars/${avatarId}.webp`;

/**
 * S3-compatible object storage (AVATAR_S3_*). The client uploads with a presigned PUT to
 * `uploads/{ticketId}`; Content-Type and Content-Length are signed headers, so the store
 * refuses any other type or length. The confirm step (a signed gateway URL) has the
 * gateway read the staged object, check and re-encode it like the PostgreSQL store, and
 * write `avatars/{avatarId}.webp`, which the bucket (or its CDN) serves at
 * AVATAR_S3_PUBLIC_URL.
 */
export function createS3Store(config: AvatarS3Config, publicBaseUrl: string, signer: UploadLinkSigner): AvatarStore {
  // The AWS SDK (+13 MB of RSS) is loaded at the store's first call, not at boot: the
  // gateway builds the store at its first avatar request, and only with AVATAR_S3_BUCKET.
  let sdk: Promise<Sdk> | undefined;
  const loaded = (): Promise<Sdk> => {
    sdk ??= loadSdk(config).catch((error: unknown) => {
      sdk = undefined; // a failed import is retried by the next call
      throw error;
    });
    return sdk;
  };
  /**
   * Every call has a deadline, and a store that fails or cannot be reached is a
   * 503 STORAGE_UNAVAILABLE, never a 500. "Not found" is passed on for the caller to judge.
   */
  const reach = async <T>(call: (s3: Sdk, options: { abortSignal: AbortSignal }) => Promise<T>): Promise<T> => {
    const s3 = await loaded();
    try {
      return await call(s3, { abortSignal: AbortSignal.timeout(S3_TIMEOUT_MS) });
    } catch (error) {
      if (isNotFound(error)) throw error;
      throw new ApiError('STORAGE_UNAVAILABLE', 'The picture store could not be reached. Try again shortly.', { cause: error });
    }
  };
  const Bucket = config.bucket;

  return {
    kind: 's3',
    async uploadTarget(ticket: TicketSpec): Promise<UploadTarget> {
      const { client, PutObjectCommand, getSignedUrl } = await loaded();
      const command = new PutObjectCommand({ Bucket, Key: stagingKey(ticket.id), ContentType: ticket.contentType, ContentLength: ticket.contentLength });
      const uploadUrl = await getSignedUrl(client, command, {
        expiresIn: Math.max(1, ticket.expires - Math.floor(Date.now() / 1000)),
        // The presigner leaves Content-Type unsigned unless told otherwise.
        signableHeaders: new Set(['content-type', 'content-length']),
      });
      return {
        uploadUrl,
        headers: { 'Content-Type': ticket.contentType, 'Content-Length': String(ticket.contentLength) },
        confirmUrl: signedGatewayUrl(publicBaseUrl, signer, `/v1/avatar-uploads/${ticket.id}/confirm`, ticket),
      };
    },
    pictureUrl: (avatarId) => `${config.publicUrl}/${pictureKey(avatarId)}`,
    async persist(avatarId, webp) {
      await reach(({ client, PutObjectCommand }, options) => client.send(new PutObjectCommand({ Bucket, Key: pictureKey(avatarId), Body: webp, ContentType: AVATAR_MEDIA_TYPE, CacheControl: AVATAR_CACHE_CONTROL }), options));
      return null;
    },
    async forget(avatarIds) {
      await Promise.all(avatarIds.map((id) => reach(({ client, DeleteObjectCommand }, options) => client.send(new DeleteObjectCommand({ Bucket, Key: pictureKey(id) }), options))));
    },
    staging: {
      async read(ticketId, maxBytes): Promise<StagedUpload | 'too-large' | null> {
        let object;
        try {
          object = await reach(({ client, GetObjectCommand }, options) => client.send(new GetObjectCommand({ Bucket, Key: stagingKey(ticketId) }), options));
        } catch (error) {
          if (isNotFound(error)) return null;
          throw error;
        }
        if (object.ContentLength === undefined || object.ContentLength > maxBytes || !object.Body) {
          (object.Body as { destroy?: () => void } | undefined)?.destroy?.();
          return 'too-large';
        }
        const bytes = Buffer.from(await object.Body.transformToByteArray());
        if (bytes.length > maxBytes) return 'too-large';
        return { bytes, contentType: object.ContentType ?? null };
      },
      async discard(ticketId) {
        await reach(({ client, DeleteObjectCommand }, options) => client.send(new DeleteObjectCommand({ Bucket, Key: stagingKey(ticketId) }), options));
      },
    },
  };
}

type S3Module = typeof import('@aws-sdk/client-s3');

interface Sdk {
  client: S3Client;
  PutObjectCommand: S3Module['PutObjectCommand'];
  GetObjectCommand: S3Module['GetObjectCommand'];
  DeleteObjectCommand: S3Module['DeleteObjectCommand'];
  getSignedUrl: typeof import('@aws-sdk/s3-request-presigner').getSignedUrl;
}

async function loadSdk(config: AvatarS3Config): Promise<Sdk> {
  const [{ S3Client, PutObjectCommand, GetObjectCommand, DeleteObjectCommand }, { getSignedUrl }] = await Promise.all([
    import('@aws-sdk/client-s3'),
    import('@aws-sdk/s3-request-presigner'),
  ]);
  const client = new S3Client({
    region: config.region,
    ...(config.endpoint ? { endpoint: config.endpoint } : {}),
    forcePathStyle: config.forcePathStyle,
    ...(config.accessKeyId && config.secretAccessKey
      ? { credentials: { accessKeyId: config.accessKeyId, secretAccessKey: config.secretAccessKey } }
      : {}),
    // Checksums only where S3 requires them: a checksum computed at presign time (of no
    // body) would be signed into the upload URL and refuse the client's real bytes.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    maxAttempts: 2,
    requestHandler: { connectionTimeout: 2000, requestTimeout: S3_TIMEOUT_MS },
  });
  return { client, PutObjectCommand, GetObjectCommand, DeleteObjectCommand, getSignedUrl };
}

function isNotFound(error: unknown): boolean {
  const e = error as { name?: string; $metadata?: { httpStatusCode?: number } } | null;
  return e?.name === 'NoSuchKey' || e?.name === 'NotFound' || e?.$metadata?.httpStatusCode === 404;
}
