import { describe, it, expect } from 'vitest';
import { hasUnsafeCharacters, normalizeReturnRoot, parseAbsoluteHttpUrl } from '../../src/security/urls.ts';

describe('hasUnsafeCharacters', () => {
  it.each([
    '\\', 'a\\b', ' ', '\t', '\n', '\r', '\v', '\f', '\u0000', '\u001f', '\u007f', '\u0080', '\u009f',
    '\u00a0', '\u1680', '\u2000', '\u200a', '\u2028', '\u2029', '\u202f', '\u205f', '\u3000',
    '\u200b', '\u200c', '\u200d', '\u2060', '\ufeff', '\u00ad', '\u202e', '\u2066', '\ud800', 'x\udc00',
  ])('%j is unsafe', (raw) => {
    expect(hasUnsafeCharacters(raw)).toBe(true);
    expect(hasUnsafeCharacters(`https://a.example/${raw}/x`)).toBe(true);
  });

  it.each(['', 'https://a.example/p?q=1', '/caf\u00e9', 'https://b\u00fccher.example/', '/%20%09%5C', '/\u{1F600}'])(
    '%j is safe',
    (raw) => {
      expect(hasUnsafeCharacters(raw)).toBe(false);
    },
  );
});

describe('parseAbsoluteHttpUrl', () => {
  const accepted: Array<[string, boolean, string]> = [
    ['https://platform.example/auth/handoff', false, 'https://platform.example/auth/handoff'],
    ['http://localhost:3001/callback', false, 'http://localhost:3001/callback'],
    ['HTTPS://Platform.EXAMPLE:443', false, 'https://platform.example/'],
    ['https://platform.example/cb?tenant=a', true, 'https://platform.example/cb?tenant=a'],
    ['https://platform.example/cb?', true, 'https://platform.example/cb?'],
    ['https://xn--bcher-kva.example/', false, 'https://xn--bcher-kva.example/'],
    ['https://XN--BCHER-KVA.Example/', false, 'https://xn--bcher-kva.example/'],
    ['https://[::1]:8443/x', false, 'https://[::1]:8443/x'],
    ['https://[::A:B]/', false, 'https://[::a:b]/'],
    ['https://[2001:db8::1]/', false, 'https://[2001:db8::1]/'],
    ['https://127.0.0.1:8080/cb', true, 'https://127.0.0.1:8080/cb'],
    ['http://localhost/cb', true, 'http://localhost/cb'],
    ['https://a.example:/cb', true, 'https://a.example/cb'],
    ['https://platform.example/%2e%2e/cb', true, 'https://platform.example/cb'], // path rules are returnTo's; roots and callbacks keep WHATWG parsing
    ['https://platform.example/@x', false, 'https://platform.example/@x'],
  ];
  it.each(accepted)('accepts %j (allowQuery %s)', (raw, allowQuery, href) => {
    const result = parseAbsoluteHttpUrl(raw, { allowQuery });
    expect(result.ok).toBe(true);
    if (result.ok) expect(result.url.href).toBe(href);
  });

  const rejected: Array<[string, boolean, RegExp]> = [
    ['https://user:pass@platform.example/', true, /userinfo/],
    ['https://user@platform.example/', true, /userinfo/],
    ['https://@platform.example/', true, /userinfo/],
    ['https://:@platform.example/', true, /userinfo/],
    ['https://platform.example@evil.example/', true, /userinfo/],
    ['https://platform.example/cb#frag', true, /fragment/],
    ['https://platform.example/cb#', true, /fragment/],
    ['https://platform.example/cb?x=1#', true, /fragment/],
    ['https://platform.example/cb?x=1', false, /query/],
    ['https://platform.example/cb?', false, /query/],
    ['https://platform.example?', false, /query/],
    ['ftp://platform.example/', true, /http or https scheme/],
    ['javascript:alert(1)', true, /http or https scheme/],
    ['data:text/html,x', true, /http or https scheme/],
    ['/relative/path', true, /absolute/],
    ['relative/path', true, /absolute/],
    ['//platform.example/cb', true, /absolute/],
    ['platform.example', true, /absolute/],
    ['https:platform.example', true, /absolute/],
    ['https:/platform.example', true, /absolute/],
    ['https:///platform.example', true, /absolute/],
    ['https://', true, /absolute|host/],
    ['https://?x', true, /host/],
    ['https://:443/', true, /absolute/],
    ['https://exa mple.com/', true, /whitespace/],
    ['https://platform.example\\@evil.example/', true, /backslash/],
    ['https://platform.example/\tcb', true, /control/],
    ['', true, /absolute/],
    // a host must be spelled exactly as the WHATWG parser serialises it (but for ASCII case)
    ['https://0177.0.0.1/', true, /IPv4/],
    ['https://0x7f.1/', true, /IPv4/],
    ['https://0x7F000001/', true, /IPv4/],
    ['https://127.1/', true, /IPv4/],
    ['https://2130706433/', true, /IPv4/],
    ['https://127.000.000.001/', true, /IPv4/],
    ['https://1.2.3/', true, /IPv4/],
    ['https://[0:0:0:0:0:0:0:1]/', true, /IPv6/],
    ['https://[0:0::1]/', true, /IPv6/],
    ['https://[::ffff:127.0.0.1]/', true, /IPv6/],
    ['https://[2001:DB8:0::1]/', true, /IPv6/],
    ['https://ex%61mple.com/', true, /percent-encoded/],
    ['https://platform%2Eexample/', false, /percent-encoded/],
    ['https://\uff45xample.com/', true, /ASCII/],
    ['https://example\u3002com/', true, /ASCII/],
    ['https://example\uff0ecom/', true, /ASCII/],
    ['https://example\uff61com/', true, /ASCII/],
    ['https://b\u00fccher.example/', true, /ASCII.*punycode/],
    ['https://\u212Aelvin.example/', true, /ASCII/], // KELVIN SIGN lower-cases to "k" in JavaScript
    ['https://\u0430pple.example/', true, /ASCII/],
    ['https://platform.example./cb', true, /dot/],
    ['https://127.0.0.1./cb', true, /dot/],
    ['https://platform..example/cb', true, /empty label/],
    ['https://.platform.example/cb', true, /empty label/],
  ];
  it.each(rejected)('rejects %j (allowQuery %s)', (raw, allowQuery, reason) => {
    const result = parseAbsoluteHttpUrl(raw, { allowQuery });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toMatch(reason);
  });

  it('gives the documented reason for a non-URL', () => {
    expect(parseAbsoluteHttpUrl('nope', { allowQuery: true })).toEqual({
      ok: false,
      reason: 'must be an absolute http or https URL',
    });
  });
});

describe('normalizeReturnRoot', () => {
  it.each([
    ['https://a.example', 'https://a.example/'],
    ['https://a.example/', 'https://a.example/'],
    ['HTTPS://A.EXAMPLE:443/app/', 'https://a.example/app/'],
    ['https://a.example/app', 'https://a.example/app'],
    ['http://a.example:80/app/x/', 'http://a.example/app/x/'],
    ['https://a.example:8443/app', 'https://a.example:8443/app'],
    ['https://a.example/app//', 'https://a.example/app//'],
    ['https://a.example/x/../app/./', 'https://a.example/app/'],
    ['https://\uff41.example/app', 'https://a.example/app'],
  ])('%s -> %s', (raw, expected) => {
    expect(normalizeReturnRoot(new URL(raw))).toBe(expected);
  });

  it('makes equivalent roots equal for de-duplication', () => {
    const roots = ['https://a.example/app/', 'https://A.example:443/app/', 'https://a.example/app/x/..'];
    expect(new Set(roots.map((r) => normalizeReturnRoot(new URL(r)))).size).toBe(1);
  });

  it('keeps a trailing slash: "/app/" and "/app" admit different paths, so they are different roots', () => {
    expect(normalizeReturnRoot(new URL('https://a.example/app/'))).not.toBe(normalizeReturnRoot(new URL('https://a.example/app')));
  });
});
