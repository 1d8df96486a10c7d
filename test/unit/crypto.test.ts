import { createSecretKey, randomBytes } from 'node:crypto';
import { describe, it, expect } from 'vitest';
import {
  DEV_ENCRYPTION_KEYS,
  DecryptionError,
  KeyRing,
  digestEquals,
  generateKeyRingSpec,
  parseKeyRing,
  randomToken,
  sha256,
} from '../../src/security/crypto.ts';

const AAD = 'auth_transaction:pkce_verifier:7f1c2d9e-0b6a-4f57-9d3e-2a1b0c9d8e7f';

function keySpec(kid: string, encoding: 'base64' | 'base64url' = 'base64url'): string {
  return `${kid}:${randomBytes(32).toString(encoding)}`;
}

/** Replaces part `index` of a sealed value (v1.kid.iv.ct.tag) by flipping one bit of its bytes. */
function flipBit(sealed: string, index: number): string {
  const parts = sealed.split('.');
  const bytes = Buffer.from(parts[index]!, 'base64url');
  bytes[0] = bytes[0]! ^ 0x01;
  parts[index] = bytes.toString('base64url');
  return parts.join('.');
}

describe('randomToken', () => {
  it('is 32 bytes of base64url by default (43 characters, 256 bits)', () => {
    const token = randomToken();
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(token, 'base64url')).toHaveLength(32);
  });

  it('honours a larger size', () => {
    expect(Buffer.from(randomToken(48), 'base64url')).toHaveLength(48);
  });

  it('refuses fewer than 256 bits and nonsense sizes', () => {
    for (const n of [0, 16, 31, 1.5, -1, Number.NaN, 4096]) expect(() => randomToken(n)).toThrow(RangeError);
  });

  it('does not repeat and uses the whole alphabet', () => {
    const tokens = new Set(Array.from({ length: 1000 }, () => randomToken()));
    expect(tokens.size).toBe(1000);
    const chars = new Set([...tokens].join(''));
    expect(chars.size).toBe(64);
  });
});

describe('sha256 and digestEquals', () => {
  it('is the SHA-256 of the UTF-8 bytes', () => {
    expect(sha256('abc').toString('hex')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(sha256('')).toHaveLength(32);
    expect(sha256('\u00e9').equals(sha256('e\u0301'))).toBe(false);
  });

  it('compares digests', () => {
    expect(digestEquals(sha256('a'), sha256('a'))).toBe(true);
    expect(digestEquals(sha256('a'), sha256('b'))).toBe(false);
  });

  it('returns false (does not throw) on different lengths', () => {
    expect(digestEquals(sha256('a'), sha256('a').subarray(0, 31))).toBe(false);
    expect(digestEquals(Buffer.alloc(0), sha256('a'))).toBe(false);
  });
});

describe('KeyRing seal/open', () => {
  const ring = parseKeyRing(keySpec('k1'));

  it('round-trips, including empty and non-ASCII plaintext', () => {
    for (const text of ['', 'verifier', 'caf\u00e9 \u{1F600}', 'x'.repeat(10_000)]) {
      expect(ring.open(ring.seal(text, AAD), AAD)).toBe(text);
    }
  });

  it('has the documented format and a fresh IV each time', () => {
    const a = ring.seal('same', AAD);
    const b = ring.seal('same', AAD);
    expect(a).not.toBe(b);
    const parts = a.split('.');
    expect(parts).toHaveLength(5);
    const [version, kid, iv, ct, tag] = parts as [string, string, string, string, string];
    expect(version).toBe('v1');
    expect(kid).toBe('k1');
    expect(Buffer.from(iv, 'base64url')).toHaveLength(12);
    expect(Buffer.from(ct, 'base64url')).toHaveLength(4);
    expect(Buffer.from(tag, 'base64url')).toHaveLength(16);
    expect(a).toMatch(/^v1\.k1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]{22}$/);
    expect(a).not.toContain('same');
  });

  it('fails with a wrong or empty AAD (another purpose or row)', () => {
    const sealed = ring.seal('secret', AAD);
    expect(() => ring.open(sealed, 'auth_transaction:nonce:7f1c2d9e-0b6a-4f57-9d3e-2a1b0c9d8e7f')).toThrow(DecryptionError);
    expect(() => ring.open(sealed, 'auth_transaction:pkce_verifier:00000000-0000-0000-0000-000000000000')).toThrow(
      DecryptionError,
    );
    expect(() => ring.open(sealed, '')).toThrow(DecryptionError);
  });

  it.each([
    ['iv', 2],
    ['ciphertext', 3],
    ['tag', 4],
  ])('fails when the %s is tampered with', (_name, index) => {
    const sealed = ring.seal('secret', AAD);
    expect(() => ring.open(flipBit(sealed, index), AAD)).toThrow(DecryptionError);
  });

  it('fails on malformed values with the same generic error', () => {
    const sealed = ring.seal('secret', AAD);
    const [, , iv, ct, tag] = sealed.split('.') as [string, string, string, string, string];
    const bad = [
      '',
      'garbage',
      sealed.replace(/^v1/, 'v2'),
      `${sealed}.x`,
      sealed.split('.').slice(0, 4).join('.'),
      `v1.k1.${iv}.${ct}.${tag.slice(0, 16)}`, // truncated tag
      `v1.k1.${iv.slice(0, 10)}.${ct}.${tag}`, // short IV
      `v1.k1.${iv}=.${ct}.${tag}`, // padding is not base64url here
      `v1.k1.${iv}.${ct}.${tag.slice(0, -1)}+`, // standard-base64 character
      `v1.k1.${iv}.${ct}.${tag.slice(0, -1)}${tag.endsWith('A') ? 'B' : 'A'}`,
    ];
    for (const value of bad) {
      let error: unknown;
      try {
        ring.open(value, AAD);
      } catch (e) {
        error = e;
      }
      expect(error, value).toBeInstanceOf(DecryptionError);
      expect((error as Error).message).toBe('decryption failed');
      expect((error as Error).name).toBe('DecryptionError');
    }
  });

  it('fails on an unknown key id, and on a key id swapped into the header', () => {
    const sealed = ring.seal('secret', AAD);
    expect(() => ring.open(sealed.replace('v1.k1.', 'v1.k9.'), AAD)).toThrow(DecryptionError);
    // Same key material under two ids: the header is authenticated, so
    // relabelling a value still fails.
    const key = createSecretKey(randomBytes(32));
    const twin = new KeyRing([
      { kid: 'a', key },
      { kid: 'b', key },
    ]);
    expect(() => twin.open(twin.seal('x', AAD).replace('v1.a.', 'v1.b.'), AAD)).toThrow(DecryptionError);
  });

  it('does not open with another key ring', () => {
    const other = parseKeyRing(keySpec('k1'));
    expect(() => other.open(ring.seal('secret', AAD), AAD)).toThrow(DecryptionError);
  });

  it('keeps key material out of JSON', () => {
    expect(JSON.parse(JSON.stringify(ring))).toEqual({ activeKid: 'k1', kids: ['k1'] });
  });
});

describe('key rotation', () => {
  it("a ring ['k2','k1'] opens what ['k1'] sealed, and seals with k2", () => {
    const k1 = keySpec('k1');
    const k2 = keySpec('k2', 'base64');
    const old = parseKeyRing(k1);
    const rotated = parseKeyRing(`${k2},${k1}`);
    expect(rotated.activeKid).toBe('k2');
    expect(rotated.kids).toEqual(['k2', 'k1']);

    const before = old.seal('pkce', AAD);
    expect(rotated.open(before, AAD)).toBe('pkce');

    const after = rotated.seal('pkce', AAD);
    expect(after.startsWith('v1.k2.')).toBe(true);
    expect(rotated.open(after, AAD)).toBe('pkce');
    // The old ring does not know k2.
    expect(() => old.open(after, AAD)).toThrow(DecryptionError);
  });
});

describe('parseKeyRing', () => {
  it('accepts base64 and base64url, padded or not, and spaces around entries', () => {
    const raw = randomBytes(32);
    for (const text of [
      raw.toString('base64'),
      raw.toString('base64').replace(/=+$/, ''),
      raw.toString('base64url'),
      `${raw.toString('base64url')}=`,
    ]) {
      expect(parseKeyRing(`k1:${text}`).activeKid).toBe('k1');
    }
    expect(parseKeyRing(` a:${raw.toString('base64url')} , b_-9:${randomBytes(32).toString('base64')} `).kids).toEqual([
      'a',
      'b_-9',
    ]);
  });

  it('opens with a key parsed from base64 what a base64url spelling sealed', () => {
    const raw = randomBytes(32);
    const a = parseKeyRing(`k:${raw.toString('base64')}`);
    const b = parseKeyRing(`k:${raw.toString('base64url')}`);
    expect(b.open(a.seal('same key', AAD), AAD)).toBe('same key');
  });

  const material = randomBytes(32).toString('base64url');
  const short = randomBytes(16).toString('base64url');
  const long = randomBytes(33).toString('base64url');
  const cases: Array<[string, string, RegExp]> = [
    ['empty', '', /empty/],
    ['blank', '   ', /empty/],
    ['no kid separator', material, /kid:base64key/],
    ['empty entry', `k1:${material},`, /entry 2 is empty/],
    ['empty kid', `:${material}`, /key id must match/],
    ['kid with a dot', `k.1:${material}`, /key id must match/],
    ['kid with a space', `k 1:${material}`, /key id must match/],
    ['kid too long', `${'k'.repeat(33)}:${material}`, /key id must match/],
    ['key and kid swapped', `${material}:k1`, /key id must match/],
    ['duplicate kid', `k1:${material},k1:${randomBytes(32).toString('base64url')}`, /duplicate key id "k1"/],
    ['key too short', `k1:${short}`, /exactly 32 bytes/],
    ['key too long', `k1:${long}`, /exactly 32 bytes/],
    ['hex key (64 chars, 48 bytes as base64)', `k1:${randomBytes(32).toString('hex')}`, /exactly 32 bytes/],
    ['empty key', 'k1:', /not base64/],
    ['key with invalid characters', `k1:${material.slice(0, -1)}!`, /not base64/],
    ['key mixing alphabets', `k1:+${material.slice(1, -1)}_`, /not base64/],
    ['key with inner space', `k1:${material.slice(0, 20)} ${material.slice(20)}`, /not base64/],
  ];

  it.each(cases)('rejects %s, without echoing key material', (_name, spec, message) => {
    let error: unknown;
    try {
      parseKeyRing(spec);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(Error);
    const text = (error as Error).message;
    expect(text).toMatch(message);
    for (const secret of [material, short, long, material.slice(0, 12), material.slice(20)]) {
      expect(text).not.toContain(secret);
    }
    // Nothing in the message looks like a base64 run long enough to be key material.
    expect(text).not.toMatch(/[A-Za-z0-9+/_-]{20,}/);
  });

  it('rejects bad KeyRing constructor input too', () => {
    const key = createSecretKey(randomBytes(32));
    expect(() => new KeyRing([])).toThrow(/at least one key/);
    expect(() => new KeyRing([{ kid: 'bad kid', key }])).toThrow(/key id/);
    expect(() => new KeyRing([{ kid: 'a', key }, { kid: 'a', key }])).toThrow(/duplicate/);
    expect(() => new KeyRing([{ kid: 'a', key: createSecretKey(randomBytes(16)) }])).toThrow(/32-byte/);
  });
});

describe('generateKeyRingSpec and DEV_ENCRYPTION_KEYS', () => {
  it('generates a parseable single-key spec with a fresh key', () => {
    const spec = generateKeyRingSpec();
    expect(spec).toMatch(/^k1:[A-Za-z0-9_-]{43}$/);
    expect(parseKeyRing(spec).activeKid).toBe('k1');
    expect(generateKeyRingSpec('2025-06')).toMatch(/^2025-06:/);
    expect(generateKeyRingSpec()).not.toBe(spec);
    expect(() => generateKeyRingSpec('bad kid')).toThrow();
  });

  it('has a fixed, parseable development ring with kid "dev"', () => {
    const ring = parseKeyRing(DEV_ENCRYPTION_KEYS);
    expect(ring.activeKid).toBe('dev');
    expect(ring.open(ring.seal('x', AAD), AAD)).toBe('x');
    expect(Buffer.from(DEV_ENCRYPTION_KEYS.split(':')[1]!, 'base64url').toString('ascii')).toMatch(/DEV-ONLY/);
  });
});
