// The kit's reading of a return path (src/requests.ts, localPath): whatever comes in, what comes
// out is a path of this back end, never an address a browser would take to another host.
import { describe, expect, it } from 'vitest';
import { localPath } from '../src/requests.ts';

const PUBLIC_URL = new URL('https://app.example');

describe('localPath', () => {
  it('keeps a path of this back end with its query', () => {
    expect(localPath('/reports?id=1', PUBLIC_URL)).toBe('/reports?id=1');
    expect(localPath('/a/../b', PUBLIC_URL)).toBe('/b');
  });

  it.each(['//evil.example', '/\\evil.example', 'https://evil.example/', 'evil.example', '/a b', '/\u0000'])('refuses %j', (value) => {
    expect(localPath(value, PUBLIC_URL)).toBeNull();
  });

  // Dot segments normalise to a path that starts with "//": a browser reads that Location as another host.
  it.each(['/..//evil.example', '/.//evil.example', '/a/..//evil.example', '/%2e%2e//evil.example', '/././/evil.example/x'])('refuses %j (normalised to "//…")', (value) => {
    expect(localPath(value, PUBLIC_URL)).toBeNull();
  });
});
