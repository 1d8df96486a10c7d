import { describe, it, expect } from 'vitest';
import { isWithinRoot, resolveReturnTo } from '../../src/security/returnTo.ts';

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
    ['https://\uff41llowed.example/app', `${A}/app`], // fullwidth "a": IDNA maps it to the same host
    ['https://allowed%2Eexample/app', `${A}/app`], // percent-encoded host decodes to the same host
    ['https://other.example/anything/at/all', 'https://other.example/anything/at/all'],
    ['https://other.example', 'https://other.example/'],
    // roots: trailing slash and case normalise
    [`${A}/app`, `${A}/app`, ['https://ALLOWED.example:443/app/']],
    // root "/" admits every path of its origin
    [`${A}/x/y`, `${A}/x/y`, [`${A}/`]],
    // IPv6 literal root, written differently
    ['https://[0:0::1]:8443/app/x', 'https://[::1]:8443/app/x', ['https://[::1]:8443/app']],
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
    ['https://\u0430llowed.example/app', 403], // Cyrillic "а" lookalike -> xn--llowed-2nf.example
    ['https://allowed.example./app', 403], // trailing-dot FQDN is another host string
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
    ['/app/%2e%2e/admin', 403],
    ['/app/%2E%2E/admin', 403],
    ['/app/.%2e/admin', 403],
    ['https://allowed.example/app/%2e%2e/admin', 403],
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

describe('isWithinRoot', () => {
  const root = new URL(`${A}/app/`);
  it.each([
    [`${A}/app`, true],
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
