// The returnTo allowlist of GET /v1/auth/start (spec, step 5).
//
// returnTo is where the platform BFF finally sends the browser after login, so
// an attacker-chosen value would make the gateway an open redirector (RFC 9700
// §4.11). The rules, and why each exists:
// - the input is checked as text first (length, characters, userinfo,
//   fragment, protocol-relative forms), because some of what makes a URL
//   dangerous is erased by parsing (an empty userinfo `https://@evil`, a bare
//   `#`, a tab inside `java\tscript:`);
// - then it is parsed with the WHATWG URL parser and everything else is
//   decided on the PARSED, normalised URL: origin equality (scheme, host after
//   IDNA and case folding, port with defaults removed) and a segment-wise
//   pathname prefix (after dot-segment removal, RFC 3986 §5.2.4, which WHATWG
//   also applies to `%2e`/`%2E`). Never `startsWith` on the raw string (GUIDE §5);
// - the caller stores and redirects to `url.href`, never the raw input
//   (GUIDE §9), so what was checked is exactly what is used.
//
// Pure module: no I/O.

import { hasUnsafeCharacters, parseAbsoluteHttpUrl, trimTrailingSlash } from './urls.ts';

export type ReturnToResult = { ok: true; url: URL } | { ok: false; status: 400 | 403; reason: string };

/** Spec "Limits": returnTo is 1 to 2048 characters. */
export const RETURN_TO_MAX_LENGTH = 2048;

// An encoded "/" or "\" inside the path: a server or proxy that decodes before
// routing sees a different path (or a protocol-relative "//host") than the one
// we compared. Legitimate return paths have no need for it.
const ENCODED_SEPARATOR = /%(?:2f|5c)/i;

const ABSOLUTE_REASON = 'must be an absolute http or https URL';

/**
 * Checks `raw` (the returnTo query parameter) against a platform's
 * allowedReturnUrls roots.
 *
 * - 400: not a well-formed returnTo (length, characters, userinfo, fragment,
 *   scheme, protocol-relative, encoded separators in the path).
 * - 403: well formed but not within any allowed root (or no usable root).
 *
 * `raw` is either an absolute http(s) URL or a root-relative path starting
 * with exactly one "/" (spec step 5), which is resolved against the origin of
 * the first allowed root. A root whose own text is not a valid root (see
 * parseAbsoluteHttpUrl with allowQuery false) is ignored, so it never matches
 * and is not "the first allowed root" either.
 *
 * An absolute returnTo is within a root when its origin equals the root's
 * origin and its pathname is "/" or lies under the root's pathname on a
 * segment boundary: root "/app" admits "/app", "/app/" and "/app/x" but not
 * "/application"; root "/" admits every path of the origin. A pathname of
 * exactly "/" is admitted on any allowed origin because the spec says so
 * literally ("pathname must be / or start with that root's pathname").
 */
export function resolveReturnTo(raw: string, allowedRoots: readonly string[]): ReturnToResult {
  // Length in code points, as JSON Schema maxLength counts (the OpenAPI
  // contract validates the same parameter): never stricter than the contract.
  const length = raw.length <= RETURN_TO_MAX_LENGTH ? raw.length : codePointLength(raw);
  if (length < 1 || length > RETURN_TO_MAX_LENGTH) {
    return badRequest(`returnTo must be 1 to ${RETURN_TO_MAX_LENGTH} characters`);
  }

  let url: URL;
  if (raw.startsWith('/')) {
    // Root-relative. These checks duplicate part of parseAbsoluteHttpUrl
    // because a path has no scheme or authority to look at.
    if (hasUnsafeCharacters(raw)) {
      return badRequest('returnTo must not contain backslashes, control characters or whitespace');
    }
    if (raw.includes('#')) return badRequest('returnTo must not contain a fragment');
    // "//host" is a network-path reference (RFC 3986 §4.2) that browsers
    // follow to another host. ("/\host" is the same in WHATWG, already
    // rejected by the backslash rule.)
    if (raw.startsWith('//')) {
      return badRequest(`returnTo ${ABSOLUTE_REASON} or a path starting with a single /`);
    }
    const base = firstUsableRoot(allowedRoots);
    if (base === undefined) return forbidden();
    try {
      // Resolve against the origin only: a path-absolute reference replaces
      // the whole path of the base anyway (RFC 3986 §5.2.2).
      url = new URL(raw, base.origin);
    } catch {
      return badRequest(`returnTo ${ABSOLUTE_REASON} or a path starting with a single /`);
    }
  } else {
    const parsed = parseAbsoluteHttpUrl(raw, { allowQuery: true });
    if (!parsed.ok) {
      // Anything that is neither a path nor an absolute http(s) URL
      // (relative "x/y", "%2F%2Fevil.com", "javascript:", "https:evil.com")
      // ends here as a 400.
      const reason = parsed.reason === ABSOLUTE_REASON ? `${ABSOLUTE_REASON} or a path starting with a single /` : parsed.reason;
      return badRequest(`returnTo ${reason}`);
    }
    url = parsed.url;
  }

  // Checks on the parsed URL, common to both forms.
  if (url.username !== '' || url.password !== '') return badRequest('returnTo must not contain userinfo');
  if (url.hash !== '') return badRequest('returnTo must not contain a fragment');
  if (ENCODED_SEPARATOR.test(url.pathname)) {
    return badRequest('returnTo must not contain an encoded slash or backslash in its path');
  }

  const roots = usableRoots(allowedRoots);
  if (roots.length === 0) return forbidden();
  for (const root of roots) {
    if (isWithinRoot(url, root)) return { ok: true, url };
  }
  return forbidden();
}

/**
 * True when `url` is within `root` (both already parsed and normalised by the
 * WHATWG URL parser). Exported for the registry's own checks and for tests.
 */
export function isWithinRoot(url: URL, root: URL): boolean {
  // URL.origin is the ASCII serialisation: lower-case scheme and host, host
  // after IDNA (punycode) and IPv4/IPv6 canonicalisation, default port
  // omitted. Equality of origins is the same-origin test of RFC 6454 §5.
  if (url.origin !== root.origin) return false;
  if (url.pathname === '/') return true;
  const rootPath = trimTrailingSlash(root.pathname);
  if (rootPath === '/') return true;
  // Segment boundary: "/app" must be followed by "/" or nothing, so that
  // "/application" and "/app..x" are outside "/app".
  return url.pathname === rootPath || url.pathname.startsWith(`${rootPath}/`);
}

function usableRoots(allowedRoots: readonly string[]): URL[] {
  const roots: URL[] = [];
  for (const text of allowedRoots) {
    const parsed = parseAbsoluteHttpUrl(text, { allowQuery: false });
    if (parsed.ok) roots.push(parsed.url);
  }
  return roots;
}

function firstUsableRoot(allowedRoots: readonly string[]): URL | undefined {
  for (const text of allowedRoots) {
    const parsed = parseAbsoluteHttpUrl(text, { allowQuery: false });
    if (parsed.ok) return parsed.url;
  }
  return undefined;
}

function codePointLength(value: string): number {
  let n = 0;
  for (const _ of value) n++;
  return n;
}

function badRequest(reason: string): ReturnToResult {
  return { ok: false, status: 400, reason };
}

function forbidden(): ReturnToResult {
  return { ok: false, status: 403, reason: 'returnTo is not within an allowed return URL of the platform' };
}
