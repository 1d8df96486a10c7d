import { describe, it, expect } from 'vitest';
import { isWithinRoot, MAX_DECODE_DEPTH, resolveReturnTo } from '../../src/security/returnTo.ts';

const A = 'https://allowed.example';
// First root is /app: root-relative paths resolve against its origin.
const ROOTS = [`${A}/app`, 'https://other.example/'];

describe('resolveReturnTo: accepted', () => {
  const accepted: Array<[string, string, (readonly string[])?]> = [
    ['/', `${A}/`],
    ['/app', `${A}/app`],
    ['/app/', `${A}/app/`],
    ['/app/x?y=1', `${A}/app/x?y=1`],
    ['/app/x/../y', `${A}/app/y`],
    ['/app/./x', `${A}/app/x`],
    ['/app/@evil.com', `${A}/app/@evil.com`],
    ['/app?next=%2F%2Fevil.com', `${A}/app?next=%2F%2Fevil.com`],
    ['/app/caf\u00e9', `${A}/app/caf%C3%A9`],
    [`${A}/app`, `${A}/app`],
    [`${A}/app/`, `${A}/app/`],
    [`${A}/app/deep/path?x=1&y=2`, `${A}/app/deep/path?x=1&y=2`],
    [`${A}/app?`, `${A}/app?`],
    [`${A}/`, `${A}/`], // pathname "/" is admitted on an allowed origin (spec step 5, literally)
    [A, `${A}/`],
    ['HTTPS://ALLOWED.EXAMPLE/app/x', `${A}/app/x`], // scheme and host case fold
    [`${A}:443/app`, `${A}/app`], // default port dropped
    ['https://other.example/anything/at/all', 'https://other.example/anything/at/all'],
    ['https://other.example', 'https://other.example/'],
    // roots: scheme/host case and default port normalise; a root's trailing slash is kept (see below)
    [`${A}/app/x`, `${A}/app/x`, ['https://ALLOWED.example:443/app/']],
    // root "/" admits every path of its origin
    [`${A}/x/y`, `${A}/x/y`, [`${A}/`]],
    // IPv6 literal in its canonical (RFC 5952) form; hex digits in any ASCII case
    ['https://[::1]:8443/app/x', 'https://[::1]:8443/app/x', ['https://[::1]:8443/app']],
    ['https://[::A]/x', 'https://[::a]/x', ['https://[::a]/']],
    ['https://127.0.0.1/x', 'https://127.0.0.1/x', ['https://127.0.0.1/']],
    // punycode is the canonical spelling of an international host; ASCII case folds
    ['https://XN--BCHER-KVA.example/x', 'https://xn--bcher-kva.example/x', ['https://xn--bcher-kva.example/']],
    // root-relative resolves against the first root, not a later one
    ['/x', 'https://first.example/x', ['https://first.example/', `${A}/`]],
    // a malformed first root is ignored: the first usable one is used
    ['/app/x', `${A}/app/x`, ['https://user@bad.example/', `${A}/app`]],
    ['http://plain.example/p', 'http://plain.example/p', ['http://plain.example/']],
    [`${A}/app/x`, `${A}/app/x`, ['https://x.example/', `${A}/app`]],
  ];

  it.each(accepted)('%j -> %s', (raw, href, roots) => {
    const result = resolveReturnTo(raw, roots ?? ROOTS);
    expect(result).toEqual({ ok: true, url: expect.any(URL) });
    if (result.ok) expect(result.url.href).toBe(href);
  });

  it('accepts exactly 2048 characters', () => {
    const raw = `/app/${'a'.repeat(2048 - 5)}`;
    expect(raw).toHaveLength(2048);
    expect(resolveReturnTo(raw, ROOTS).ok).toBe(true);
  });

  it('counts the length in code points, as the contract does', () => {
    const raw = `/app/${'\u{1F600}'.repeat(1000)}`; // 1005 code points, 2005 UTF-16 units
    expect(resolveReturnTo(raw, ROOTS).ok).toBe(true);
    const tooLong = `/app/${'\u{1F600}'.repeat(2044)}`; // 2049 code points
    expect(resolveReturnTo(tooLong, ROOTS)).toMatchObject({ ok: false, status: 400 });
  });

  it('returns a fresh URL object each time', () => {
    const a = resolveReturnTo('/app/x', ROOTS);
    const b = resolveReturnTo('/app/x', ROOTS);
    expect(a.ok && b.ok && a.url !== b.url).toBe(true);
  });
});

describe('resolveReturnTo: rejected', () => {
  // [raw, status, roots?]
  const rejected: Array<[string, 400 | 403, (readonly string[])?]> = [
    // empty and too long
    ['', 400],
    [`/app/${'a'.repeat(2044)}`, 400],
    // other origins
    ['https://evil.com', 403],
    ['https://evil.com/app', 403],
    ['https://allowed.example.evil.com/app', 403],
    ['https://evil.com/allowed.example/app', 403],
    ['https://allowed.example:444/app', 403],
    ['http://allowed.example/app', 403], // root is https
    ['https://\u0430llowed.example/app', 400], // Cyrillic "а" lookalike: non-ASCII host, refused before IDNA
    ['https://allowed.example./app', 400], // trailing-dot FQDN: another spelling of the host
    ['https://[::1]/app', 403],
    ['https://127.0.0.1/app', 403],
    // protocol-relative and backslash forms
    ['//evil.com', 400],
    ['///evil.com', 400],
    ['/\\evil.com', 400],
    ['\\\\evil.com', 400],
    ['\\/evil.com', 400],
    ['https://allowed.example\\@evil.com/', 400],
    ['https://evil.com\\allowed.example/app', 400],
    // scheme games
    ['https:evil.com', 400],
    ['https:/evil.com', 400],
    ['https:///evil.com', 400],
    ['https:', 400],
    ['https://', 400],
    ['javascript:alert(1)', 400],
    ['JavaScript:alert(1)', 400],
    ['data:text/html,<script>alert(1)</script>', 400],
    ['vbscript:msgbox(1)', 400],
    ['ftp://allowed.example/app', 400],
    ['file:///etc/passwd', 400],
    // userinfo, even empty
    ['https://allowed.example@evil.com', 400],
    ['https://allowed.example@evil.com/app', 400],
    ['https://@allowed.example/', 400],
    ['https://@allowed.example/app', 400],
    ['https://user:@allowed.example/app', 400],
    ['https://:@allowed.example/app', 400],
    ['https://user:pass@allowed.example/app', 400],
    ['https://allowed.example%40evil.com/app', 400], // forbidden host code point after decoding
    // fragments, even empty
    ['https://allowed.example/app#', 400],
    ['https://allowed.example/app#x', 400],
    ['/app#', 400],
    ['/app#/../admin', 400],
    ['/app?x=1#y', 400],
    // path escapes
    ['https://allowed.example/application', 403],
    ['https://allowed.example/app..', 403],
    ['https://allowed.example/app-admin', 403],
    ['https://allowed.example/App', 403], // paths are case-sensitive
    ['https://allowed.example/app/../admin', 403],
    ['https://allowed.example/app/./../admin', 403],
    ['/app/../admin', 403],
    // encoded dots are refused (400), not resolved as dot segments: see the encodings table
    ['/app/%2e%2e/admin', 400],
    ['/app/%2E%2E/admin', 400],
    ['/app/.%2e/admin', 400],
    ['https://allowed.example/app/%2e%2e/admin', 400],
    ['https://allowed.example/admin', 403],
    ['/admin', 403],
    // encoded separators
    ['%2F%2Fevil.com', 400],
    ['/%2F%2Fevil.com', 400],
    ['/%2f%2fevil.com', 400],
    ['/%5Cevil.com', 400],
    ['/app/%2F%2Fevil.com', 400],
    ['/app/..%2Fadmin', 400],
    ['https://allowed.example/app/%5c..%5cadmin', 400],
    // not a URL at all, or relative
    ['evil.com', 400],
    ['app/x', 400],
    ['./app', 400],
    ['?x=1', 400],
    ['#x', 400],
    // control characters and whitespace anywhere
    ['/app/\tx', 400],
    ['/app/\nx', 400],
    ['/app/\rx', 400],
    ['/\t/evil.com', 400],
    ['/\n/evil.com', 400],
    ['java\tscript:alert(1)', 400],
    [' https://allowed.example/app', 400],
    ['https://allowed.example/app ', 400],
    ['https://allowed.example/a pp', 400],
    ['/app/\u0000', 400],
    ['/app/\u007f', 400],
    ['/app/\u0085', 400],
    ['/app/\u00a0', 400],
    ['/app/\u2028', 400],
    ['/app/\u2029', 400],
    ['/app/\u3000', 400],
    ['/app/\u200b', 400],
    ['/app/\ufeff', 400],
    ['/app/\u202e', 400],
    ['https://allowed.exam\u00adple/app', 400], // soft hyphen: IDNA would silently drop it
    ['/app/\ud800', 400], // lone surrogate
    // no usable allowlist
    ['/app', 403, []],
    [`${A}/app`, 403, []],
    ['/app', 403, ['not a url', 'https://u@allowed.example/app', `${A}/app#`, `${A}/app?x`]],
    [`${A}/app`, 403, ['ftp://allowed.example/app']],
  ];

  it.each(rejected)('%j -> %i', (raw, status, roots) => {
    const result = resolveReturnTo(raw, roots ?? ROOTS);
    expect(result).toMatchObject({ ok: false, status });
    if (!result.ok) {
      expect(result.reason).toMatch(/^returnTo /);
      // The reason is shown to clients: it never echoes the input.
      if (raw.length > 3) expect(result.reason).not.toContain(raw);
    }
  });

  it('gives a fixed 403 reason', () => {
    expect(resolveReturnTo('https://evil.com/', ROOTS)).toEqual({
      ok: false,
      status: 403,
      reason: 'returnTo is not within an allowed return URL of the platform',
    });
  });

  it('checks the shape (400) before the allowlist (403)', () => {
    expect(resolveReturnTo('//evil.com', [])).toMatchObject({ status: 400 });
    expect(resolveReturnTo('https://@evil.com', [])).toMatchObject({ status: 400 });
  });

  it('never matches a root that carries a query, a fragment or userinfo', () => {
    expect(resolveReturnTo(`${A}/app`, [`${A}/app?x=1`])).toMatchObject({ status: 403 });
    expect(resolveReturnTo(`${A}/app`, [`${A}/app#`])).toMatchObject({ status: 403 });
    expect(resolveReturnTo(`${A}/app`, [`https://@allowed.example/app`])).toMatchObject({ status: 403 });
  });
});

// Attack review: encodings that another server reads as a different path, and
// host spellings that another parser reads as a different host, are refused
// (400 INVALID_REDIRECT), never normalised away.
describe('resolveReturnTo: refused encodings and host spellings', () => {
  // [raw, roots?]: every one must be a 400 with a fixed, non-echoing reason.
  const refused: Array<[string, (readonly string[])?]> = [
    // percent-encoded dot or separator, at any encoding depth, any case
    ['/app/%2e'],
    ['/app/%2E'],
    ['/app/x%2ey'],
    ['/app/%2e%2e'],
    ['/app/%2f'],
    ['/app/%5c'],
    ['/app/%5C..%5Cadmin'],
    ['/app/%252e%252e/admin'],
    ['/app/%252E%252E/admin'],
    ['/app/%252f'],
    ['/app/%255c'],
    ['/app/%25252f'],
    ['/app/%25252F..'],
    ['/app/%2525252e%2525252e/admin'],
    ['/app/%25%32%65%25%32%65/admin'], // "%", "2", "e" each encoded: decodes to %2e%2e
    ['/app/%25%32%66'],
    ['https://allowed.example/app/%252f'],
    ['https://allowed.example/app/%252e%252e/admin'],
    ['https://other.example/%2e'],
    ['https://other.example/%252E%252E/x'],
    // ";" path parameters, raw or encoded
    ['/app;x=1'],
    ['/app/x;jsessionid=abc'],
    ['/app/..;/admin'],
    ['/app/;'],
    ['https://allowed.example/app/;/x'],
    ['/app/%3b'],
    ['/app/%3B..'],
    ['/app/%253b'],
    // NUL and encoded control characters (C0, DEL, C1 as UTF-8), at any depth
    ['/app/%00'],
    ['/app/x%00.html'],
    ['/app/%01'],
    ['/app/%09'],
    ['/app/%0a'],
    ['/app/%0D%0A'],
    ['/app/%1f'],
    ['/app/%1F'],
    ['/app/%7f'],
    ['/app/%7F'],
    ['/app/%2500'],
    ['/app/%250a'],
    ['/app/%c2%80'],
    ['/app/%C2%85'],
    ['/app/%c2%9f'],
    ['/app/%25c2%2585'],
    ['https://allowed.example/app/%00'],
    // malformed percent escapes (RFC 3986 §2.1: "%" HEXDIG HEXDIG)
    ['/app/%'],
    ['/app/%4'],
    ['/app/%4/x'],
    ['/app/%zz'],
    ['/app/%4g'],
    ['/app/%%32%65'],
    ['/app/%u002e'], // IIS-style %u escape
    ['/app/%u2215'],
    ['https://allowed.example/app/%'],
    ['https://allowed.example/app/%G0?x=1'],
    // percent-encoded bytes that are not well-formed UTF-8
    ['/app/%e0%a4'], // truncated sequence
    ['/app/%e0%a4x'],
    ['/app/%c0%ae'], // overlong "."
    ['/app/%c0%ae%c0%ae/admin'],
    ['/app/%c0%af'], // overlong "/"
    ['/app/%e0%80%ae'], // overlong "."
    ['/app/%ed%a0%80'], // UTF-16 surrogate
    ['/app/%80'], // lone continuation byte
    ['/app/%ff'],
    ['/app/caf%e9'], // Latin-1, not UTF-8
    ['/app/%25c0%25ae'],
    // full-width and ideographic dots, raw or percent-encoded (and other
    // characters a Unicode-normalising server turns into . / \ ; % ? #)
    ['/app/\uff0e\uff0e/admin'],
    ['/app/x\uff0ey'],
    ['/app/x\u3002y'],
    ['/app/\uff61'],
    ['https://allowed.example/app/\uff0e\uff0e/admin'],
    ['/app/%ef%bc%8e%ef%bc%8e/admin'],
    ['/app/%EF%BC%8E'],
    ['/app/%e3%80%82'],
    ['/app/%ef%bd%a1'],
    ['/app/%25ef%25bc%258e'],
    ['/app/%EF%BC%258E'],
    ['https://allowed.example/app/%EF%BC%8E%EF%BC%8E/admin'],
    ['/app/\ufe52'], // small full stop
    ['/app/\u2024'], // one dot leader
    ['/app/\u2025/admin'], // two dot leader: NFKC ".."
    ['/app/\uff0f'], // full-width solidus
    ['/app/\uff3c'], // full-width reverse solidus
    ['/app/\ufe68'], // small reverse solidus
    ['/app/\uff1b'], // full-width semicolon
    ['/app/\u037e'], // Greek question mark: NFC ";"
    ['/app/\uff05\uff12\uff45'], // full-width "%2e"
    ['/app/\uff1f'], // full-width "?"
    ['/app/\uff03'], // full-width "#"
    ['/app/%ef%bc%8f'],
    // host not spelled in its canonical form
    ['https://0177.0.0.1/app', ['https://127.0.0.1/app']],
    ['https://0x7f.1/app', ['https://127.0.0.1/app']],
    ['https://0x7F.0.0.1/app', ['https://127.0.0.1/app']],
    ['https://127.1/app', ['https://127.0.0.1/app']],
    ['https://127.0.1/app', ['https://127.0.0.1/app']],
    ['https://2130706433/app', ['https://127.0.0.1/app']],
    ['https://0x7f000001/app', ['https://127.0.0.1/app']],
    ['https://127.000.000.001/app', ['https://127.0.0.1/app']],
    ['https://127.0.0.1./app', ['https://127.0.0.1/app']],
    ['https://allowed%2Eexample/app'],
    ['https://allowed.ex%61mple/app'],
    ['https://%61llowed.example/app'],
    ['https://\uff41llowed.example/app'], // full-width "a"
    ['https://allowed\u3002example/app'], // ideographic full stop
    ['https://allowed\uff0eexample/app'], // full-width full stop
    ['https://allowed\uff61example/app'], // halfwidth ideographic full stop
    ['https://\u212Aelvin.example/x', ['https://kelvin.example/']], // KELVIN SIGN: toLowerCase() is "k"
    ['https://b\u00fccher.example/x', ['https://xn--bcher-kva.example/']], // IDN: refused, register punycode
    ['https://BÜCHER.example/x', ['https://xn--bcher-kva.example/']],
    ['https://allowed.example./app'],
    ['https://ALLOWED.EXAMPLE./app'],
    ['https://allowed..example/app'],
    ['https://.allowed.example/app'],
    ['https://[0:0:0:0:0:0:0:1]:8443/app/x', ['https://[::1]:8443/app']],
    ['https://[0:0::1]:8443/app/x', ['https://[::1]:8443/app']],
    ['https://[::0:1]/x', ['https://[::1]/']],
    ['https://[0000::1]/x', ['https://[::1]/']],
    ['https://[::ffff:127.0.0.1]/x', ['https://[::ffff:7f00:1]/']],
    ['https://[1:0:0:0:2:0:0:3]/x', ['https://[1::2:0:0:3]/']],
  ];

  it.each(refused)('%j -> 400', (raw, roots) => {
    const result = resolveReturnTo(raw, roots ?? ROOTS);
    expect(result).toMatchObject({ ok: false, status: 400, reason: expect.stringMatching(/^returnTo /) });
    if (!result.ok) expect(result.reason).not.toContain(raw);
  });

  // Only the pathname is subject to the path rules; a query may carry anything
  // (it is the platform's business, and WHATWG keeps it as given).
  const accepted: Array<[string, string]> = [
    ['/app?next=%2F%2Fevil.com', `${A}/app?next=%2F%2Fevil.com`],
    ['/app/x?a=%2e%2e%2f%5c&b=%252e', `${A}/app/x?a=%2e%2e%2f%5c&b=%252e`],
    ['/app/x?p=a;b&c=%3b', `${A}/app/x?p=a;b&c=%3b`],
    ['/app/x?q=%00%zz%', `${A}/app/x?q=%00%zz%`],
    ['/app/x?q=\uff0e', `${A}/app/x?q=%EF%BC%8E`],
    [`${A}/app/x?next=%2F..%2F`, `${A}/app/x?next=%2F..%2F`],
    // harmless escapes in the path stay accepted
    ['/app/100%25', `${A}/app/100%25`], // a literal "%"
    ['/app/a%2525', `${A}/app/a%2525`],
    ['/app/a%20b', `${A}/app/a%20b`],
    ['/app/%41%42', `${A}/app/%41%42`],
    ['/app/%7E', `${A}/app/%7E`],
    ['/app/caf%C3%A9', `${A}/app/caf%C3%A9`],
    ['/app/caf%c3%a9', `${A}/app/caf%c3%a9`],
    ['/app/\u65e5\u672c', `${A}/app/%E6%97%A5%E6%9C%AC`],
    ['/app/\uff21', `${A}/app/%EF%BC%A1`], // a full-width letter is not a delimiter
    ['/app/x.y/.z', `${A}/app/x.y/.z`], // raw dots are ordinary characters
  ];

  it.each(accepted)('%j -> %s', (raw, href) => {
    const result = resolveReturnTo(raw, ROOTS);
    expect(result).toEqual({ ok: true, url: expect.any(URL) });
    if (result.ok) expect(result.url.href).toBe(href);
  });

  it(`decodes at most ${MAX_DECODE_DEPTH} times, then refuses what is still encoded`, () => {
    // "%" + "25" x k + "41" needs k + 1 decodings to become "A".
    const nested = (k: number) => `/app/%${'25'.repeat(k)}41`;
    const deepest = resolveReturnTo(nested(MAX_DECODE_DEPTH - 1), ROOTS);
    expect(deepest.ok && deepest.url.href).toBe(`${A}${nested(MAX_DECODE_DEPTH - 1)}`);
    expect(resolveReturnTo(nested(MAX_DECODE_DEPTH), ROOTS)).toMatchObject({ status: 400, reason: expect.stringMatching(/percent-encoded/) });
    // A long nest is refused quickly rather than decoded ~700 times.
    expect(resolveReturnTo(`/app/${'\u00e9'.repeat(600)}%${'25'.repeat(700)}41`, ROOTS)).toMatchObject({ status: 400 });
  });

  it('refuses with a reason naming the rule', () => {
    expect(resolveReturnTo('/app/%2e%2e/admin', ROOTS)).toMatchObject({ status: 400, reason: expect.stringMatching(/encoded dot/) });
    expect(resolveReturnTo('/app;x', ROOTS)).toMatchObject({ status: 400, reason: expect.stringMatching(/;/) });
    expect(resolveReturnTo('/app/%zz', ROOTS)).toMatchObject({ status: 400, reason: expect.stringMatching(/malformed/) });
    expect(resolveReturnTo('/app/%00', ROOTS)).toMatchObject({ status: 400, reason: expect.stringMatching(/control/) });
    expect(resolveReturnTo('/app/\uff0e', ROOTS)).toMatchObject({ status: 400, reason: expect.stringMatching(/full-width/) });
    expect(resolveReturnTo('https://0177.0.0.1/', ROOTS)).toMatchObject({ status: 400, reason: expect.stringMatching(/IPv4/) });
  });
});

// The spec, read literally: "pathname must be / or start with that root's
// pathname". A root registered with a trailing slash admits only what starts
// with it; a root without one keeps the segment-boundary rule.
describe('resolveReturnTo: a root with or without a trailing slash', () => {
  const withSlash = [`${A}/app/`];
  const withoutSlash = [`${A}/app`];
  it.each([
    [`${A}/app/`, withSlash, true],
    [`${A}/app/x`, withSlash, true],
    ['/app/', withSlash, true],
    ['/app/x?y=1', withSlash, true],
    ['/', withSlash, true],
    [`${A}/app`, withSlash, false],
    ['/app', withSlash, false],
    [`${A}/app?x=1`, withSlash, false],
    [`${A}/application`, withSlash, false],
    [`${A}/app`, withoutSlash, true],
    [`${A}/app/`, withoutSlash, true],
    [`${A}/app/x`, withoutSlash, true],
    ['/app', withoutSlash, true],
    [`${A}/application`, withoutSlash, false],
    [`${A}/ap`, withoutSlash, false],
    [`${A}/x/y`, [`${A}/`], true],
  ] as Array<[string, string[], boolean]>)('%j under %j -> %s', (raw, roots, admitted) => {
    const result = resolveReturnTo(raw, roots);
    if (admitted) expect(result.ok).toBe(true);
    else expect(result).toMatchObject({ ok: false, status: 403 });
  });

  it('a root with a non-canonical host is unusable', () => {
    expect(resolveReturnTo('https://127.0.0.1/app', ['https://0177.0.0.1/app'])).toMatchObject({ status: 403 });
    expect(resolveReturnTo('/app', ['https://allowed.example./app'])).toMatchObject({ status: 403 });
  });
});

describe('isWithinRoot', () => {
  const root = new URL(`${A}/app/`);
  it.each([
    [`${A}/app`, false], // root "/app/" was registered with its slash: "/app" does not start with it
    [`${A}/app/`, true],
    [`${A}/app/x`, true],
    [`${A}/`, true],
    [`${A}/apps`, false],
    [`${A}/ap`, false],
    ['https://allowed.example:8443/app', false],
  ])('%s -> %s', (href, expected) => {
    expect(isWithinRoot(new URL(href), root)).toBe(expected);
  });

  it('keeps a doubled trailing slash narrower', () => {
    const narrow = new URL(`${A}/app//`);
    expect(isWithinRoot(new URL(`${A}/app//x`), narrow)).toBe(true);
    expect(isWithinRoot(new URL(`${A}/app/x`), narrow)).toBe(false);
  });
});
