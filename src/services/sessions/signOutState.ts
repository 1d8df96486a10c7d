import { createHmac, timingSafeEqual, type KeyObject } from 'node:crypto';
import type { KeyRing } from '../../security/crypto.ts';

// The `state` of RP-initiated logout: where the browser goes after the identity provider's
// sign-out, carried through the provider and back to /v1/auth/logged-out. It is signed (HMAC-
// SHA256 under a key derived from the key ring, never the encryption key itself) and expires,
// so nobody can make the gateway redirect to an address it did not check at sign-out.

const KEY_INFO = 'sign-out-state';
const LIFETIME_SECONDS = 15 * 60;
const keysByRing = new WeakMap<KeyRing, KeyObject[]>();

const keysOf = (keyRing: KeyRing) => {
  let keys = keysByRing.get(keyRing);
  if (!keys) keysByRing.set(keyRing, (keys = keyRing.deriveKeys(KEY_INFO)));
  return keys;
};

const mac = (key: KeyObject, payload: string) => createHmac('sha256', key).update(payload, 'utf8').digest('base64url');

/** `returnTo` (already checked against the platform's allowlist) as a signed, expiring state. */
export function signSignOutState(keyRing: KeyRing, returnTo: URL, now = Date.now()): string {
  const payload = Buffer.from(JSON.stringify({ r: returnTo.href, e: Math.floor(now / 1000) + LIFETIME_SECONDS }), 'utf8').toString('base64url');
  return `${payload}.${mac(keysOf(keyRing)[0]!, payload)}`;
}

/** The returnTo of a state this gateway signed and that has not expired; null otherwise. */
export function openSignOutState(keyRing: KeyRing, state: string | undefined, now = Date.now()): URL | null {
  const [payload, signature, ...rest] = (state ?? '').split('.');
  if (!payload || !signature || rest.length > 0) return null;
  const presented = Buffer.from(signature, 'utf8');
  const valid = keysOf(keyRing).some((key) => {
    const expected = Buffer.from(mac(key, payload), 'utf8');
    return expected.length === presented.length && timingSafeEqual(expected, presented);
  });
  if (!valid) return null;
  try {
    const { r, e } = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { r?: unknown; e?: unknown };
    if (typeof r !== 'string' || typeof e !== 'number' || e * 1000 <= now) return null;
    return new URL(r);
  } catch {
    return null;
  }
}
