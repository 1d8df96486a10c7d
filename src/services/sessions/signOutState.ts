import { createHmac, timingSafeEqual, type KeyObject } from 'node:crypto';
import type { KeyRing } from '../../security/crypto.ts';

// Two short-lived values the gateway signs for sign-out (HMAC-SHA256 under keys derived from the
// key ring, one per purpose, never the encryption key itself), each expiring:
// - the `state` of RP-initiated logout: where the browser goes after the identity provider's
//   sign-out, carried through the provider and back to /v1/auth/logged-out, so nobody can make
//   the gateway redirect to an address it did not check at sign-out;
// - the sign-out token: a platform's proof that it asks for the sign-out of one session
//   (createSignOutToken), so GET /v1/auth/logout needs no confirmation from the person.

const STATE_KEY_INFO = 'sign-out-state';
const STATE_LIFETIME_SECONDS = 15 * 60;
const TOKEN_KEY_INFO = 'sign-out-token';
/** Long enough for one redirect from the platform's back end through the browser to the gateway. */
export const SIGN_OUT_TOKEN_LIFETIME_SECONDS = 120;

const keysByRing = new WeakMap<KeyRing, Map<string, KeyObject[]>>();

const keysOf = (keyRing: KeyRing, info: string) => {
  let byInfo = keysByRing.get(keyRing);
  if (!byInfo) keysByRing.set(keyRing, (byInfo = new Map()));
  let keys = byInfo.get(info);
  if (!keys) byInfo.set(info, (keys = keyRing.deriveKeys(info)));
  return keys;
};

const mac = (key: KeyObject, payload: string) => createHmac('sha256', key).update(payload, 'utf8').digest('base64url');

/** `fields` and an expiry (`e`, seconds), signed with the purpose's active key: `payload.mac`. */
function sign(keyRing: KeyRing, info: string, fields: Record<string, unknown>, expiresAt: number): string {
  const payload = Buffer.from(JSON.stringify({ ...fields, e: expiresAt }), 'utf8').toString('base64url');
  return `${payload}.${mac(keysOf(keyRing, info)[0]!, payload)}`;
}

/** The fields of a value signed for this purpose by any key of the ring and not expired; null otherwise. */
function open(keyRing: KeyRing, info: string, signed: string | undefined, now: number): Record<string, unknown> | null {
  const [payload, signature, ...rest] = (signed ?? '').split('.');
  if (!payload || !signature || rest.length > 0) return null;
  const presented = Buffer.from(signature, 'utf8');
  const valid = keysOf(keyRing, info).some((key) => {
    const expected = Buffer.from(mac(key, payload), 'utf8');
    return expected.length === presented.length && timingSafeEqual(expected, presented);
  });
  if (!valid) return null;
  try {
    const fields = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown> | null;
    if (typeof fields?.e !== 'number' || fields.e * 1000 <= now) return null;
    return fields;
  } catch {
    return null;
  }
}

/** `returnTo` (already checked against the platform's allowlist) as a signed, expiring state. */
export function signSignOutState(keyRing: KeyRing, returnTo: URL, now = Date.now()): string {
  return sign(keyRing, STATE_KEY_INFO, { r: returnTo.href }, Math.floor(now / 1000) + STATE_LIFETIME_SECONDS);
}

/** The returnTo of a state this gateway signed and that has not expired; null otherwise. */
export function openSignOutState(keyRing: KeyRing, state: string | undefined, now = Date.now()): URL | null {
  const fields = open(keyRing, STATE_KEY_INFO, state, now);
  if (typeof fields?.r !== 'string' || !URL.canParse(fields.r)) return null;
  return new URL(fields.r);
}

/** What a sign-out token proves: who asked to end which session. */
export interface SignOutProof {
  sessionId: string;
  /** The platform whose credential asked; null when the person's own browser session did (the account center). */
  platformKey: string | null;
}

export function signSignOutToken(keyRing: KeyRing, proof: SignOutProof, now = Date.now()): { token: string; expiresAt: Date } {
  const expiresAt = Math.floor(now / 1000) + SIGN_OUT_TOKEN_LIFETIME_SECONDS;
  return { token: sign(keyRing, TOKEN_KEY_INFO, { s: proof.sessionId, p: proof.platformKey }, expiresAt), expiresAt: new Date(expiresAt * 1000) };
}

export function openSignOutToken(keyRing: KeyRing, token: string | undefined, now = Date.now()): SignOutProof | null {
  const fields = open(keyRing, TOKEN_KEY_INFO, token, now);
  if (typeof fields?.s !== 'string' || (fields.p !== null && typeof fields.p !== 'string')) return null;
  return { sessionId: fields.s, platformKey: fields.p };
}
