// One-time codes of the dev identity provider's second factor: TOTP (RFC 6238) over HOTP
// (RFC 4226) with HMAC-SHA1, 30-second steps and 6 digits, what authenticator apps use by
// default; secrets are written in base32 (RFC 4648 §6), as in their otpauth:// URIs. node:crypto
// only: a few lines, no dependency.

import { createHmac, timingSafeEqual } from 'node:crypto';

const BASE32_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** RFC 4648 §6 base32, upper case, padding and spaces ignored. */
export function base32Decode(text: string): Buffer {
  const clean = text.replace(/[\s=]/g, '').toUpperCase();
  let bits = 0;
  let value = 0;
  const out: number[] = [];
  for (const char of clean) {
    const index = BASE32_ALPHABET.indexOf(char);
    if (index === -1) throw new Error('base32Decode: not a base32 character');
    value = (value << 5) | index;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

/** RFC 4648 §6 base32 without padding (what otpauth:// URIs carry). */
export function base32Encode(bytes: Buffer): string {
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32_ALPHABET[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32_ALPHABET[(value << (5 - bits)) & 31];
  return out;
}

/** HOTP (RFC 4226 §5.3): HMAC-SHA1 of the 8-byte counter, dynamic truncation, `digits` decimal digits. */
export function hotp(secret: Buffer, counter: number, digits = 6): string {
  const message = Buffer.alloc(8);
  message.writeBigUInt64BE(BigInt(counter));
  const mac = createHmac('sha1', secret).update(message).digest();
  const offset = mac[mac.length - 1]! & 0x0f;
  const binary = ((mac[offset]! & 0x7f) << 24) | (mac[offset + 1]! << 16) | (mac[offset + 2]! << 8) | mac[offset + 3]!;
  return String(binary % 10 ** digits).padStart(digits, '0');
}

/** TOTP (RFC 6238 §4): HOTP of the number of `stepSeconds` steps since the epoch. */
export function totp(secret: Buffer, unixSeconds: number, options: { stepSeconds?: number; digits?: number } = {}): string {
  return hotp(secret, Math.floor(unixSeconds / (options.stepSeconds ?? 30)), options.digits ?? 6);
}

/**
 * A code typed now: the current step, or one step either side for clocks and slow typing
 * (RFC 6238 §5.2 recommends at most one step of network delay).
 */
export function verifyTotp(secret: Buffer, code: string, unixSeconds = Date.now() / 1000): boolean {
  if (!/^\d{6}$/.test(code)) return false;
  return [-30, 0, 30].some((shift) => timingSafeEqual(Buffer.from(totp(secret, unixSeconds + shift)), Buffer.from(code)));
}

/** The otpauth:// URI an authenticator app reads (Google Authenticator's Key Uri Format). */
export function otpauthUri(issuer: string, account: string, base32Secret: string): string {
  const label = encodeURIComponent(`${issuer}:${account}`);
  return `otpauth://totp/${label}?${new URLSearchParams({ secret: base32Secret, issuer, algorithm: 'SHA1', digits: '6', period: '30' })}`;
}
