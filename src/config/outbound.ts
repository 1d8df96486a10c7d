// What the gateway calls out to: the addresses registered URLs may reach (back-channel logout,
// event push) and the object storage of avatars.

import { allowedRangeProblem, type OutboundPolicy } from '../security/outboundAddresses.ts';
import type { Reader } from './reader.ts';

/** S3-compatible object storage for avatars (AVATAR_S3_*); null keeps them in PostgreSQL. */
export interface AvatarS3Config {
  readonly bucket: string;
  /** Endpoint of an S3-compatible service (unset: AWS for the region). */
  readonly endpoint: string | null;
  readonly region: string;
  readonly accessKeyId: string | null;
  readonly secretAccessKey: string | null;
  /** Path-style addressing (MinIO, s3rver, most self-hosted services). */
  readonly forcePathStyle: boolean;
  /** Public base URL of the stored pictures (a CDN, or the bucket's URL). */
  readonly publicUrl: string;
}

/** AVATAR_S3_BUCKET switches avatars to object storage; the other AVATAR_S3_* describe it. */
export function readAvatarS3(reader: Reader): AvatarS3Config | null {
  const bucket = reader.raw('AVATAR_S3_BUCKET');
  if (bucket === undefined) {
    for (const name of ['AVATAR_S3_ENDPOINT', 'AVATAR_S3_PUBLIC_URL', 'AVATAR_S3_ACCESS_KEY_ID', 'AVATAR_S3_SECRET_ACCESS_KEY']) {
      if (reader.raw(name) !== undefined) reader.problems.push(`${name} is set but AVATAR_S3_BUCKET is not: set the bucket too, or unset it`);
    }
    return null;
  }
  const endpoint = reader.url('AVATAR_S3_ENDPOINT', null);
  const region = reader.string('AVATAR_S3_REGION', 'us-east-1');
  const publicUrl = reader.url('AVATAR_S3_PUBLIC_URL', null) ?? (endpoint ? `${endpoint}/${bucket}` : `https://${bucket}.s3.${region}.amazonaws.com`);
  const accessKeyId = reader.string('AVATAR_S3_ACCESS_KEY_ID', null);
  const secretAccessKey = reader.string('AVATAR_S3_SECRET_ACCESS_KEY', null);
  if (Boolean(accessKeyId) !== Boolean(secretAccessKey)) {
    reader.problems.push('AVATAR_S3_ACCESS_KEY_ID and AVATAR_S3_SECRET_ACCESS_KEY go together (or neither, for the SDK\'s default credentials)');
  }
  return {
    bucket,
    endpoint,
    region,
    accessKeyId,
    secretAccessKey,
    forcePathStyle: reader.oneOf('AVATAR_S3_FORCE_PATH_STYLE', endpoint ? 'true' : 'false', ['true', 'false']) === 'true',
    publicUrl,
  };
}

/**
 * OUTBOUND_ALLOWED_PRIVATE_RANGES: comma-separated IP addresses and CIDR ranges, each inside a
 * private block (or, outside production, loopback); unset or empty lists none. Loopback is
 * allowed without listing it only where the dev stack runs (no OIDC_ISSUER, not production):
 * its demo platforms receive their logout tokens on localhost. Read the same way by the service
 * and the operator CLI, so both accept the same backchannelLogoutUrl.
 */
export function readOutbound(reader: Reader, isProduction: boolean): OutboundPolicy {
  const ranges: string[] = [];
  for (const entry of (reader.raw('OUTBOUND_ALLOWED_PRIVATE_RANGES') ?? '').split(',').map((part) => part.trim()).filter(Boolean)) {
    const problem = allowedRangeProblem(entry, { isProduction });
    if (problem !== null) reader.problems.push(`OUTBOUND_ALLOWED_PRIVATE_RANGES entry "${entry}" is refused: ${problem}`);
    else ranges.push(entry);
  }
  return { allowedPrivateRanges: [...new Set(ranges)], allowLoopback: !isProduction && reader.raw('OIDC_ISSUER') === undefined };
}
