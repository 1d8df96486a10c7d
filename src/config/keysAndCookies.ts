// The keys (ENCRYPTION_KEYS, GATEWAY_SIGNING_KEYS) and the session cookie's name.

import { DEV_ENCRYPTION_KEYS } from '../security/crypto.ts';
import { signingKeysFromSpec } from '../security/signingKeys.ts';
import { ConfigError, readNodeEnv, Reader, type Env } from './reader.ts';

export const COOKIE_NAME = /^[A-Za-z0-9!#$%&'*+\-.^_`|~]{1,64}$/; // RFC 6265 token
export const HOST_PREFIX = /^__Host-/i;

/**
 * The session cookie's name. In production it carries the `__Host-` prefix (RFC 6265bis §4.1.3.2:
 * Secure, Path=/, no Domain), so a sibling subdomain cannot set or shadow it (cookie tossing);
 * GATEWAY_COOKIE_NAME is prefixed unless it already is, so the default needs no change.
 */
export function sessionCookieName(configured: string, isProduction: boolean): string {
  if (!isProduction || HOST_PREFIX.test(configured)) return configured;
  return `__Host-${configured.replace(/^__Secure-/i, '')}`;
}


/** GATEWAY_SIGNING_KEYS, parsed here (once per process: the ring is kept) so a bad key stops the boot. */
export function readSigningKeys(reader: Reader): string | null {
  const raw = reader.raw('GATEWAY_SIGNING_KEYS');
  if (raw === undefined) return null;
  try {
    signingKeysFromSpec(raw);
  } catch (error) {
    // The parser's messages name entries and key ids, never key material.
    reader.problems.push(`GATEWAY_SIGNING_KEYS is refused: ${(error as Error).message}`);
    return null;
  }
  return raw;
}

/**
 * The key ring of `keys status` and `keys rotate-data` (the only CLI commands that need it):
 * ENCRYPTION_KEYS, exactly as the service reads it; the published development ring only where
 * the service would use it too (not in production).
 */
export function loadKeyRingSpec(env: Env = process.env): string {
  const reader = new Reader(env);
  const isProduction = readNodeEnv(reader) === 'production';
  const spec = reader.string('ENCRYPTION_KEYS', null);
  if (!spec && (isProduction || reader.string('DATABASE_URL', null))) {
    reader.problems.push('ENCRYPTION_KEYS is required with NODE_ENV=production or DATABASE_URL (the published development key ring is only for the embedded dev stack)');
  }
  if (reader.problems.length > 0) throw new ConfigError(reader.problems);
  return spec ?? DEV_ENCRYPTION_KEYS;
}
