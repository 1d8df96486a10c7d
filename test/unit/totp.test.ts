// The dev provider's one-time codes against the published test vectors: RFC 6238 Appendix B
// (SHA-1, the 20-byte ASCII secret "12345678901234567890", 8 digits) and RFC 4226 Appendix D
// (HOTP, 6 digits), and base32 against RFC 4648 §10.

import { describe, expect, it } from 'vitest';
import { base32Decode, base32Encode, hotp, totp, verifyTotp } from '../../src/devidp/totp.ts';

const RFC_SECRET = Buffer.from('12345678901234567890', 'ascii');

describe('TOTP (RFC 6238) and HOTP (RFC 4226)', () => {
  it.each([
    [59, '94287082'],
    [1111111109, '07081804'],
    [1111111111, '14050471'],
    [1234567890, '89005924'],
    [2000000000, '69279037'],
    [20000000000, '65353130'],
  ])('RFC 6238 Appendix B, SHA-1, T=%i gives %s', (time, code) => {
    expect(totp(RFC_SECRET, time, { digits: 8 })).toBe(code);
  });

  it('RFC 4226 Appendix D, counters 0 to 9', () => {
    const expected = ['755224', '287082', '359152', '969429', '338314', '254676', '287922', '162583', '399871', '520489'];
    expect(expected.map((_code, counter) => hotp(RFC_SECRET, counter))).toEqual(expected);
  });

  it('accepts the current step and one either side, nothing else', () => {
    const now = 1_800_000_015;
    expect(verifyTotp(RFC_SECRET, totp(RFC_SECRET, now), now)).toBe(true);
    expect(verifyTotp(RFC_SECRET, totp(RFC_SECRET, now - 30), now)).toBe(true);
    expect(verifyTotp(RFC_SECRET, totp(RFC_SECRET, now + 30), now)).toBe(true);
    expect(verifyTotp(RFC_SECRET, totp(RFC_SECRET, now - 90), now)).toBe(false);
    expect(verifyTotp(RFC_SECRET, '12345', now)).toBe(false);
    expect(verifyTotp(RFC_SECRET, 'abcdef', now)).toBe(false);
  });

  it('base32 (RFC 4648 §10): "foobar" is MZXW6YTBOI, both ways', () => {
    expect(base32Encode(Buffer.from('foobar'))).toBe('MZXW6YTBOI');
    expect(base32Decode('MZXW6YTBOI======').toString()).toBe('foobar');
    expect(base32Decode(base32Encode(RFC_SECRET))).toEqual(RFC_SECRET);
  });
});
