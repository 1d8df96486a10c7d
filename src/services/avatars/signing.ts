import { createHmac, timingSafeEqual, type KeyObject } from 'node:crypto';
import type { KeyRing } from '../../security/crypto.ts';

const HKDF_INFO = 'avatar-upload-url';

/** The signed part of an upload or confirm URL. */
export interface SignedLink {
  ticketId: string;
  /** Unix seconds. */
  expires: number;
  signature: string;
}

/**
 * HMAC-SHA256 signatures of upload URLs, over the ticket id and the expiry. The keys are
 * derived with HKDF (RFC 5869, info "avatar-upload-url") from the ENCRYPTION_KEYS ring, so
 * the URL key is never the encryption key: the active key signs, every key of the ring
 * verifies (a rotation does not break the tickets in flight). Each key becomes a
 * KeyObject once (GUIDE §9).
 */
export class UploadLinkSigner {
  readonly #keys: readonly KeyObject[];

  constructor(keys: readonly KeyObject[]) {
    if (keys.length === 0) throw new Error('upload link signer needs a key');
    this.#keys = keys;
  }

  sign(ticketId: string, expires: number): string {
    return mac(this.#keys[0]!, ticketId, expires);
  }

  /** Constant-time check against each key of the ring, and the expiry against the clock. */
  verify(link: SignedLink, now: number = Date.now()): boolean {
    if (!Number.isSafeInteger(link.expires) || link.expires * 1000 <= now) return false;
    const presented = Buffer.from(link.signature, 'latin1');
    let valid = false;
    for (const key of this.#keys) {
      const expected = Buffer.from(mac(key, link.ticketId, link.expires), 'latin1');
      if (expected.length === presented.length && timingSafeEqual(expected, presented)) valid = true;
    }
    return valid;
  }

  toJSON(): string {
    return 'UploadLinkSigner';
  }
}

function mac(key: KeyObject, ticketId: string, expires: number): string {
  return createHmac('sha256', key).update(`${ticketId}.${expires}`, 'utf8').digest('base64url');
}

const signers = new WeakMap<KeyRing, UploadLinkSigner>();

/** The signer of a running gateway, built once per key ring. */
export function uploadLinkSigner(keyRing: KeyRing): UploadLinkSigner {
  let signer = signers.get(keyRing);
  if (!signer) {
    signer = new UploadLinkSigner(keyRing.deriveKeys(HKDF_INFO));
    signers.set(keyRing, signer);
  }
  return signer;
}
