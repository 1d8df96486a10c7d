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
    ['https://b\u00fccher.example/', false, 'https://xn--bcher-kva.example/'],
    ['https://[::1]:8443/x', false, 'https://[::1]:8443/x'],
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
    ['HTTPS://A.EXAMPLE:443/app/', 'https://a.example/app'],
    ['https://a.example/app', 'https://a.example/app'],
    ['http://a.example:80/app/x/', 'http://a.example/app/x'],
    ['https://a.example:8443/app', 'https://a.example:8443/app'],
    ['https://a.example/app//', 'https://a.example/app/'],
    ['https://a.example/x/../app/./', 'https://a.example/app'],
    ['https://\uff41.example/app', 'https://a.example/app'],
  ])('%s -> %s', (raw, expected) => {
    expect(normalizeReturnRoot(new URL(raw))).toBe(expected);
  });

  it('makes equivalent roots equal for de-duplication', () => {
    const roots = ['https://a.example/app', 'https://A.example:443/app/', 'https://a.example/app/x/..'];
    expect(new Set(roots.map((r) => normalizeReturnRoot(new URL(r)))).size).toBe(1);
  });
});
