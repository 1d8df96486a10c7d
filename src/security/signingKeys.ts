// The gateway's own signing keys (GATEWAY_SIGNING_KEYS): ES256 (ECDSA P-256, RFC 7518 §3.4)
// keys that sign what the gateway sends platforms (back-channel logout tokens, Security Event
// Tokens), published (public parts only) at /.well-known/jwks.json. They rotate like the encryption keys: the first key signs,
// every key is published, so a platform that cached the key set keeps verifying while a new
// key is introduced and an old one retired.
//
// Pure module: node:crypto, and jose once a token is first signed; no I/O. Every key becomes a
// KeyObject once (parse), and the published key set is built once per ring.

import { createPrivateKey, createPublicKey, generateKeyPairSync, randomBytes, type JsonWebKey, type KeyObject } from 'node:crypto';
import type { JWTPayload } from 'jose';

export const SIGNING_ALGORITHM = 'ES256';
const KID_PATTERN = /^[A-Za-z0-9_-]{1,32}$/;
// base64url (RFC 4648 §5) without padding, as the one-line generator prints it; standard
// base64 is accepted too (an operator's tooling may print it).
const KEY_TEXT = /^(?:[A-Za-z0-9+/]+|[A-Za-z0-9_-]+)={0,2}$/;
/** A PKCS#8 P-256 key is about 138 bytes of DER; anything far larger is not one. */
const MAX_KEY_TEXT = 2048;

/** One published key: the public part only, with what a verifier needs to pick and use it. */
export interface PublicSigningJwk {
  readonly kty: 'EC';
  readonly crv: 'P-256';
  readonly x: string;
  readonly y: string;
  readonly kid: string;
  readonly alg: typeof SIGNING_ALGORITHM;
  readonly use: 'sig';
}

export interface SigningKeySet {
  readonly keys: readonly PublicSigningJwk[];
}

interface SigningKeyEntry {
  kid: string;
  privateKey: KeyObject;
}

/**
 * An ES256 key ring. The first key signs; all keys are published. Never serialises key
 * material (toJSON gives the key ids only).
 */
export class SigningKeys {
  readonly activeKid: string;
  /** The JSON Web Key Set (RFC 7517 §5) of every key, public parts only; built once. */
  readonly jwks: SigningKeySet;
  readonly #activeKey: KeyObject;

  constructor(entries: readonly SigningKeyEntry[]) {
    const first = entries[0];
    if (first === undefined) throw new Error('the signing key ring must hold at least one key');
    const seen = new Set<string>();
    const published: PublicSigningJwk[] = [];
    for (const { kid, privateKey } of entries) {
      if (!KID_PATTERN.test(kid)) throw new Error('key id must match ^[A-Za-z0-9_-]{1,32}$');
      if (seen.has(kid)) throw new Error(`duplicate key id "${kid}"`);
      seen.add(kid);
      assertP256PrivateKey(privateKey, kid);
      // The JWK of the public key derived from the private one: it has no `d` to leak.
      const jwk = createPublicKey(privateKey).export({ format: 'jwk' }) as JsonWebKey;
      published.push(Object.freeze({ kty: 'EC', crv: 'P-256', x: jwk.x!, y: jwk.y!, kid, alg: SIGNING_ALGORITHM, use: 'sig' }));
    }
    this.activeKid = first.kid;
    this.#activeKey = first.privateKey;
    this.jwks = Object.freeze({ keys: Object.freeze(published) });
  }

  /** Key ids, the signing one first (for diagnostics; never the keys). */
  get kids(): string[] {
    return this.jwks.keys.map((key) => key.kid);
  }

  /** A compact JWS of `claims` signed with the active key; `typ` goes into the protected header. */
  async sign(claims: JWTPayload, typ: string): Promise<string> {
    // Loaded on first use: configuration (and so the operator CLI) imports this module.
    const { SignJWT } = await import('jose');
    return new SignJWT(claims).setProtectedHeader({ alg: SIGNING_ALGORITHM, kid: this.activeKid, typ }).sign(this.#activeKey);
  }

  toJSON(): { activeKid: string; kids: string[] } {
    return { activeKid: this.activeKid, kids: this.kids };
  }
}

function assertP256PrivateKey(key: KeyObject, kid: string): void {
  if (key.type !== 'private' || key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'prime256v1') {
    throw new Error(`key "${kid}" must be an EC P-256 private key (ES256)`);
  }
}

/**
 * Parses a GATEWAY_SIGNING_KEYS value: `kid:<base64url of the PKCS#8 DER of an EC P-256 private
 * key>[,kid:...]`, the first key signing. Throws an Error naming the entry by its position (and
 * its key id once that is valid), never echoing key material: an empty value or entry, an
 * entry without ":", a key id not matching ^[A-Za-z0-9_-]{1,32}$, a duplicate key id, a key
 * that is not base64/base64url PKCS#8 DER, or a key of another type or curve (RSA, P-384,
 * Ed25519...).
 */
export function parseSigningKeys(spec: string): SigningKeys {
  if (spec.trim() === '') throw new Error('is empty: expected kid:base64url(PKCS#8 DER)[,kid:...]');
  const entries: SigningKeyEntry[] = [];
  const seen = new Set<string>();
  spec.split(',').forEach((rawEntry, index) => {
    const position = `entry ${index + 1}`;
    const entry = rawEntry.trim();
    if (entry === '') throw new Error(`${position} is empty`);
    const colon = entry.indexOf(':');
    if (colon === -1) throw new Error(`${position} must have the form kid:base64url(PKCS#8 DER)`);
    const kid = entry.slice(0, colon);
    const keyText = entry.slice(colon + 1);
    // The kid is echoed only once it is known to be a short, valid key id.
    if (!KID_PATTERN.test(kid)) throw new Error(`${position}: key id must match ^[A-Za-z0-9_-]{1,32}$`);
    if (seen.has(kid)) throw new Error(`${position}: duplicate key id "${kid}"`);
    seen.add(kid);
    if (keyText.length > MAX_KEY_TEXT || !KEY_TEXT.test(keyText)) throw new Error(`${position} (key id "${kid}"): key is not base64url`);
    const der = Buffer.from(keyText, 'base64');
    let privateKey: KeyObject;
    try {
      privateKey = createPrivateKey({ key: der, format: 'der', type: 'pkcs8' });
    } catch {
      throw new Error(`${position} (key id "${kid}"): key is not a PKCS#8 DER private key`);
    } finally {
      der.fill(0);
    }
    try {
      assertP256PrivateKey(privateKey, kid);
    } catch (error) {
      throw new Error(`${position}: ${(error as Error).message}`);
    }
    entries.push({ kid, privateKey });
  });
  return new SigningKeys(entries);
}

/**
 * A new GATEWAY_SIGNING_KEYS entry: a fresh P-256 key as `kid:base64url(PKCS#8 DER)`. The
 * one-liner in docs/configuration.md does the same with node:crypto alone.
 */
export function generateSigningKeySpec(kid: string = 's1'): string {
  if (!KID_PATTERN.test(kid)) throw new Error('key id must match ^[A-Za-z0-9_-]{1,32}$');
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return `${kid}:${privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64url')}`;
}

// ---------------------------------------------------------------- one ring per process

const parsed = new Map<string, SigningKeys>();
let developmentKeys: SigningKeys | null = null;

/** The ring of a GATEWAY_SIGNING_KEYS value, parsed once per process (config validation parses it first). */
export function signingKeysFromSpec(spec: string): SigningKeys {
  let keys = parsed.get(spec);
  if (!keys) {
    keys = parseSigningKeys(spec);
    parsed.set(spec, keys);
  }
  return keys;
}

/**
 * The gateway's signing keys: GATEWAY_SIGNING_KEYS, or (never in production: configuration
 * requires the variable there) a development key generated once per process. Platforms fetch
 * the key set, so a key that changes at every start only costs them a refetch; its key id
 * (`dev-…`) is new at every start, so a cached key set is never trusted for it.
 */
export function signingKeysFor(config: { readonly gatewaySigningKeys: string | null; readonly isProduction: boolean }): SigningKeys {
  if (config.gatewaySigningKeys !== null) return signingKeysFromSpec(config.gatewaySigningKeys);
  if (config.isProduction) throw new Error('GATEWAY_SIGNING_KEYS is required when NODE_ENV=production');
  developmentKeys ??= parseSigningKeys(generateSigningKeySpec(`dev-${randomBytes(4).toString('hex')}`));
  return developmentKeys;
}
