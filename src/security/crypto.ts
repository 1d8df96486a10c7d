// Credential generation, digests and the AES-256-GCM key ring for data at rest
// (GUIDE §5 and §9).
//
// - Random credentials (state, nonce, PKCE verifier, handoff code, gateway
//   token, client secret) carry at least 256 bits from the CSPRNG, base64url.
// - Those that are only ever compared are stored as SHA-256 digests and
//   compared in constant time. They are high-entropy, so a slow password hash
//   would add nothing but latency on the exchange hot path.
// - Those that must be read back (PKCE verifier, nonce, a pending gateway
//   token) are sealed with AES-256-GCM (NIST SP 800-38D) under a key ring: the
//   first key seals, every key opens, so rotation never strands old rows.
//
// Pure module: node:crypto only, no I/O.

import { createCipheriv, createDecipheriv, createHash, createSecretKey, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import type { KeyObject } from 'node:crypto';

/** Minimum token size: 32 bytes = 256 bits (GUIDE §5, RFC 9700 §2.1.1 / RFC 7636 §7.1 ask for far less). */
export const MIN_TOKEN_BYTES = 32;

/**
 * A fresh random credential: `bytes` bytes from the CSPRNG, base64url without
 * padding (RFC 4648 §5), so it is safe in URLs, cookies and headers. 32 bytes
 * give 43 characters. Fewer than 32 bytes is refused: every credential of the
 * gateway has at least 256 bits.
 */
export function randomToken(bytes: number = MIN_TOKEN_BYTES): string {
  if (!Number.isSafeInteger(bytes) || bytes < MIN_TOKEN_BYTES || bytes > 1024) {
    throw new RangeError(`randomToken needs an integer byte count from ${MIN_TOKEN_BYTES} to 1024`);
  }
  return randomBytes(bytes).toString('base64url');
}

/** SHA-256 of the UTF-8 bytes of `value`: the stored form (bytea) of a credential. */
export function sha256(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

/**
 * RFC 7636 §4.2, S256: BASE64URL(SHA256(ASCII(verifier))). Used for the PKCE challenge
 * sent to the identity provider and for the handoff challenge a platform sends at start.
 */
export function s256Challenge(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

/**
 * Constant-time equality of two digests. The length check is not secret
 * (digests have a fixed public length) and timingSafeEqual throws on unequal
 * lengths, so it comes first.
 */
export function digestEquals(a: Buffer, b: Buffer): boolean {
  if (a.length !== b.length) return false;
  return timingSafeEqual(a, b);
}

/** Raised by KeyRing.open for every failure; the message never says which check failed. */
export class DecryptionError extends Error {
  constructor() {
    super('decryption failed');
    this.name = 'DecryptionError';
  }
}

const KID_PATTERN = /^[A-Za-z0-9_-]{1,32}$/;
const KEY_BYTES = 32; // AES-256
const IV_BYTES = 12; // 96-bit IV: the length SP 800-38D §5.2.1.1 recommends (no GHASH of the IV)
const TAG_BYTES = 16; // full 128-bit tag, SP 800-38D §5.2.1.2
const FORMAT_VERSION = 'v1';
const B64URL = /^[A-Za-z0-9_-]*$/;
const ALGORITHM = 'aes-256-gcm';

export interface KeyRingEntry {
  kid: string;
  key: KeyObject;
}

/**
 * AES-256-GCM key ring. The first key is active (seals); all keys open.
 *
 * Sealed format: `v1.<kid>.<iv>.<ciphertext>.<tag>`, each binary part base64url
 * without padding, a fresh random 12-byte IV per seal and a 16-byte tag.
 *
 * The additional authenticated data is the caller's `aad` (purpose and row
 * id, e.g. `auth_transaction:pkce_verifier:<uuid>`) prefixed with the
 * `v1.<kid>.` header, so a value copied to another row or column, or given
 * another header, fails to open.
 *
 * Random 96-bit IVs: SP 800-38D §8.3 caps a key at 2^32 seals before the IV
 * collision risk exceeds 2^-32; rotate (add a new first key) long before that.
 */
export class KeyRing {
  readonly activeKid: string;
  readonly #activeKey: KeyObject;
  readonly #keys: ReadonlyMap<string, KeyObject>;

  constructor(keys: readonly KeyRingEntry[]) {
    const first = keys[0];
    if (first === undefined) throw new Error('key ring must hold at least one key');
    const map = new Map<string, KeyObject>();
    for (const { kid, key } of keys) {
      if (!KID_PATTERN.test(kid)) throw new Error('key ring: key id must match ^[A-Za-z0-9_-]{1,32}$');
      if (map.has(kid)) throw new Error(`key ring: duplicate key id "${kid}"`);
      if (key.type !== 'secret' || key.symmetricKeySize !== KEY_BYTES) {
        throw new Error(`key ring: key "${kid}" must be a ${KEY_BYTES}-byte secret key`);
      }
      map.set(kid, key);
    }
    this.activeKid = first.kid;
    this.#activeKey = first.key;
    this.#keys = map;
  }

  /** Key ids, active first (for diagnostics; never the keys). */
  get kids(): string[] {
    return [...this.#keys.keys()];
  }

  /**
   * One key per ring key, active first, derived with HKDF-SHA256 (RFC 5869) for another
   * purpose named by `info` (e.g. signing upload URLs): never the encryption key itself, and
   * rotating with the ring.
   */
  deriveKeys(info: string): KeyObject[] {
    return [...this.#keys.values()].map((key) => {
      const material = key.export();
      const derived = Buffer.from(hkdfSync('sha256', material, Buffer.alloc(0), info, KEY_BYTES));
      material.fill(0);
      const keyObject = createSecretKey(derived);
      derived.fill(0);
      return keyObject;
    });
  }

  /** Encrypts `plaintext` (UTF-8) under the active key, bound to `aad`. */
  seal(plaintext: string, aad: string): string {
    const header = `${FORMAT_VERSION}.${this.activeKid}.`;
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv(ALGORITHM, this.#activeKey, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(header + aad, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    const tag = cipher.getAuthTag();
    return `${header}${iv.toString('base64url')}.${ciphertext.toString('base64url')}.${tag.toString('base64url')}`;
  }

  /**
   * Decrypts a value made by `seal` with the same `aad`. Throws
   * DecryptionError on a malformed value, an unknown key id, a wrong `aad`
   * or any tampering (GCM tag mismatch).
   */
  open(sealed: string, aad: string): string {
    const parts = sealed.split('.');
    if (parts.length !== 5) throw new DecryptionError();
    const [version, kid, ivText, ciphertextText, tagText] = parts as [string, string, string, string, string];
    if (version !== FORMAT_VERSION) throw new DecryptionError();
    const key = this.#keys.get(kid);
    if (key === undefined) throw new DecryptionError();
    // Strict base64url: Node's decoder skips characters it does not know,
    // which would let different texts open to the same value.
    if (!B64URL.test(ivText) || !B64URL.test(ciphertextText) || !B64URL.test(tagText)) throw new DecryptionError();
    const iv = Buffer.from(ivText, 'base64url');
    const ciphertext = Buffer.from(ciphertextText, 'base64url');
    const tag = Buffer.from(tagText, 'base64url');
    // Fixed lengths: a truncated tag would weaken authentication (SP 800-38D §5.2.1.2).
    if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) throw new DecryptionError();
    if (iv.toString('base64url') !== ivText || tag.toString('base64url') !== tagText || ciphertext.toString('base64url') !== ciphertextText) {
      throw new DecryptionError(); // non-canonical encoding
    }
    try {
      const decipher = createDecipheriv(ALGORITHM, key, iv, { authTagLength: TAG_BYTES });
      decipher.setAuthTag(tag);
      decipher.setAAD(Buffer.from(`${version}.${kid}.${aad}`, 'utf8'));
      return Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString('utf8');
    } catch {
      throw new DecryptionError();
    }
  }

  // Keep key material out of logs and JSON even by accident.
  toJSON(): { activeKid: string; kids: string[] } {
    return { activeKid: this.activeKid, kids: this.kids };
  }
}

// Standard base64 or base64url (RFC 4648 §4, §5), padding optional.
const KEY_TEXT = /^(?:[A-Za-z0-9+/]+|[A-Za-z0-9_-]+)={0,2}$/;

/**
 * Parses the ENCRYPTION_KEYS configuration value:
 * `kid1:<base64 or base64url of 32 bytes>,kid0:<...>`, first key active.
 * Entries are separated by commas; spaces around an entry are ignored.
 *
 * Throws an Error naming the entry by its position (and its key id when that
 * is valid), never echoing key material: for an empty value, an entry
 * without ":", a key id not matching ^[A-Za-z0-9_-]{1,32}$, a duplicate key
 * id, or a key that is not valid base64/base64url of exactly 32 bytes.
 * Every key becomes a KeyObject once, here (GUIDE §9: raw Buffer keys cost
 * 20-30 µs more per operation).
 */
export function parseKeyRing(spec: string): KeyRing {
  if (spec.trim() === '') throw new Error('ENCRYPTION_KEYS is empty: expected kid:base64key[,kid:base64key...]');
  const entries = spec.split(',');
  const keys: KeyRingEntry[] = [];
  const seen = new Set<string>();
  entries.forEach((rawEntry, index) => {
    const position = `ENCRYPTION_KEYS entry ${index + 1}`;
    const entry = rawEntry.trim();
    if (entry === '') throw new Error(`${position} is empty`);
    const colon = entry.indexOf(':');
    if (colon === -1) throw new Error(`${position} must have the form kid:base64key`);
    const kid = entry.slice(0, colon);
    const keyText = entry.slice(colon + 1);
    // The kid is only echoed once it is known to be a valid kid: at most 32
    // characters, so never a whole 32-byte key (43+ characters in base64).
    if (!KID_PATTERN.test(kid)) throw new Error(`${position}: key id must match ^[A-Za-z0-9_-]{1,32}$`);
    if (seen.has(kid)) throw new Error(`${position}: duplicate key id "${kid}"`);
    seen.add(kid);
    if (!KEY_TEXT.test(keyText)) throw new Error(`${position} (key id "${kid}"): key is not base64 or base64url`);
    const bytes = Buffer.from(keyText, 'base64');
    if (bytes.length !== KEY_BYTES) {
      bytes.fill(0);
      throw new Error(`${position} (key id "${kid}"): key must be exactly ${KEY_BYTES} bytes`);
    }
    keys.push({ kid, key: createSecretKey(bytes) });
    bytes.fill(0); // createSecretKey copied it
  });
  return new KeyRing(keys);
}

/** A new single-key ENCRYPTION_KEYS value with a fresh random 256-bit key (for operators and the CLI). */
export function generateKeyRingSpec(kid: string = 'k1'): string {
  if (!KID_PATTERN.test(kid)) throw new Error('key id must match ^[A-Za-z0-9_-]{1,32}$');
  return `${kid}:${randomBytes(KEY_BYTES).toString('base64url')}`;
}

/**
 * DEVELOPMENT ONLY. A fixed, published key ring (kid `dev`) so that local runs
 * and tests work without configuration. Its key is the ASCII text
 * "DEV-ONLY-KEY-NEVER-USE-IN-PROD!!": anyone can read it, so it protects
 * nothing. Never use it in production; configuration refuses to start
 * without ENCRYPTION_KEYS when NODE_ENV=production.
 */
export const DEV_ENCRYPTION_KEYS = 'dev:REVWLU9OTFktS0VZLU5FVkVSLVVTRS1JTi1QUk9EISE';

const DEV_KEY_BYTES = Buffer.from(DEV_ENCRYPTION_KEYS.slice(DEV_ENCRYPTION_KEYS.indexOf(':') + 1), 'base64url');

/**
 * Whether any key of an ENCRYPTION_KEYS value is the published development key, compared by
 * its decoded bytes: the same key under another id, in standard base64 or padded, or as an
 * older key of the ring, protects nothing either. Entries that do not parse are left to
 * parseKeyRing, which names them.
 */
export function containsDevEncryptionKey(spec: string): boolean {
  return spec.split(',').some((entry) => {
    const keyText = entry.trim().slice(entry.trim().indexOf(':') + 1);
    if (!KEY_TEXT.test(keyText)) return false;
    const bytes = Buffer.from(keyText, 'base64');
    return bytes.length === DEV_KEY_BYTES.length && timingSafeEqual(bytes, DEV_KEY_BYTES);
  });
}
