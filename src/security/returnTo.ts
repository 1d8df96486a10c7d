// The returnTo allowlist of GET /v1/auth/start (spec, step 5).
//
// returnTo is where the platform BFF finally sends the browser after login, so
// an attacker-chosen value would make the gateway an open redirector (RFC 9700
// §4.11). The rules, and why each exists:
// - the input is checked as text first (length, characters, userinfo,
//   fragment, protocol-relative forms, host spelling, path encodings), because
//   some of what makes a URL dangerous is erased by parsing (an empty userinfo
//   `https://@evil`, a bare `#`, a tab inside `java\tscript:`, a `%2e%2e`
//   segment, an octal IPv4 host);
// - what another parser could read differently is REFUSED (400), never
//   normalised away: we would check one URL while a proxy, a server or the
//   platform reads another. See "Path rules" below and hostSpellingProblem in
//   urls.ts;
// - then it is parsed with the WHATWG URL parser and the allowlist is decided
//   on the PARSED URL: origin equality (scheme, host, port with defaults
//   removed) and a pathname prefix (after dot-segment removal, RFC 3986
//   §5.2.4). Never `startsWith` on the raw string (GUIDE §5);
// - the caller stores and redirects to `url.href`, never the raw input
//   (GUIDE §9), so what was checked is exactly what is used.
//
// Pure module: no I/O.

import { hasUnsafeCharacters, parseAbsoluteHttpUrl } from './urls.ts';
import { ApiError } from '../errors/catalogue.ts';

export type ReturnToResult = { ok: true; url: URL } | { ok: false; status: 400 | 403; reason: string };

/** Spec "Limits": returnTo is 1 to 2048 characters. */
export const RETURN_TO_MAX_LENGTH = 2048;

const ABSOLUTE_REASON = 'must be an absolute http or https URL';

/**
 * Checks `raw` (the returnTo query parameter) against a platform's
 * allowedReturnUrls roots.
 *
 * - 400: not a well-formed returnTo (length, characters, userinfo, fragment,
 *   scheme, protocol-relative, a host not spelled canonically, a path
 *   refused by returnPathProblem).
 * - 403: well formed but not within any allowed root (or no usable root).
 *
 * `raw` is either an absolute http(s) URL or a root-relative path starting
 * with exactly one "/" (spec step 5), which is resolved against the origin of
 * the first allowed root. A root whose own text is not a valid root (see
 * parseAbsoluteHttpUrl with allowQuery false) is ignored, so it never matches
 * and is not "the first allowed root" either.
 *
 * A returnTo is within a root as isWithinRoot says. The query is not
 * subject to the path rules (it may carry "%2F", ";" ...): it is the
 * platform's business and no server routes on it.
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
    const pathProblem = returnPathProblem(rawPathOf(raw));
    if (pathProblem !== undefined) return badRequest(`returnTo ${pathProblem}`);
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
    const pathProblem = returnPathProblem(rawPathOf(raw));
    if (pathProblem !== undefined) return badRequest(`returnTo ${pathProblem}`);
    url = parsed.url;
  }

  // Checks on the parsed URL, common to both forms. Defence in depth: the
  // raw-text checks above should make these impossible, and what is stored
  // (url.href) must pass the same path rules as what was sent.
  if (url.username !== '' || url.password !== '') return badRequest('returnTo must not contain userinfo');
  if (url.hash !== '') return badRequest('returnTo must not contain a fragment');
  const parsedPathProblem = returnPathProblem(url.pathname);
  if (parsedPathProblem !== undefined) return badRequest(`returnTo ${parsedPathProblem}`);

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
 *
 * The origins must be equal and the pathname must be "/" or start with the
 * root's pathname (spec step 5, read literally):
 * - a root registered WITH a trailing slash ("/app/", and "/" itself) admits
 *   exactly the pathnames that start with it: "/app/" and "/app/x", not
 *   "/app" (the platform said where its return paths live, and "/app" is
 *   another resource);
 * - a root WITHOUT one ("/app") admits "/app" and what lies under it on a
 *   segment boundary: "/app", "/app/", "/app/x", not "/application" or
 *   "/app..x" (a bare string prefix would admit those).
 * A pathname of exactly "/" is admitted on any allowed origin because the
 * spec says so literally ("pathname must be / or start with that root's
 * pathname").
 */
export function isWithinRoot(url: URL, root: URL): boolean {
  // URL.origin is the ASCII serialisation: lower-case scheme and host, default
  // port omitted (hosts are already in canonical spelling, see
  // parseAbsoluteHttpUrl). Equality of origins is the same-origin test of
  // RFC 6454 §5.
  if (url.origin !== root.origin) return false;
  if (url.pathname === '/') return true;
  const rootPath = root.pathname;
  if (rootPath.endsWith('/')) return url.pathname.startsWith(rootPath);
  return url.pathname === rootPath || url.pathname.startsWith(`${rootPath}/`);
}

// ---------------------------------------------------------------------------
// Path rules.
//
// Our check sees the path as the WHATWG parser leaves it. Servers, proxies and
// frameworks behind the platform's origin may read the same bytes as another
// path: they decode percent-escapes before routing (once or repeatedly),
// strip ";" parameters, apply Unicode normalisation, or accept overlong UTF-8.
// WHATWG itself treats "%2e" as "." in dot segments (URL Standard, "single-dot
// / double-dot URL path segment") while RFC 3986 §2.3/§6.2.2.2 says a decoded
// unreserved character is equivalent and §2.4 says a decoded "/" or "." is
// NOT (it was data). Anything that only some of those readers resolve is
// refused (400), at any encoding depth. Only the path: the query is left
// alone.

/** The raw text of `raw`'s path: after the authority (absolute form) and before the query. */
function rawPathOf(raw: string): string {
  // "#" and "\" were refused before this is called, so "?" ends the path.
  const queryStart = raw.indexOf('?');
  const beforeQuery = queryStart === -1 ? raw : raw.slice(0, queryStart);
  if (beforeQuery.startsWith('/')) return beforeQuery;
  // Absolute form, already checked by parseAbsoluteHttpUrl: scheme "//" authority [path].
  const pathStart = beforeQuery.indexOf('/', beforeQuery.indexOf('//') + 2);
  return pathStart === -1 ? '' : beforeQuery.slice(pathStart);
}

/**
 * Why a returnTo path (raw text, no query, no fragment) is refused, or
 * undefined. Checked at every decoding depth: depth 0 is the text as given,
 * depth n+1 is depth n with its valid percent-escapes decoded as UTF-8, until
 * no escape is left. Refused:
 * - a malformed percent escape at depth 0 ("%", "%4", "%zz", IIS-style
 *   "%u002e"): RFC 3986 §2.1 requires "%" HEXDIG HEXDIG; WHATWG keeps the
 *   text as is, other decoders fail, skip or guess. (At depth 1 and later a
 *   "%" not followed by two hex digits is a literal percent that was sent as
 *   "%25": "/100%25" is fine.)
 * - a ";" at depth 0: a path parameter (RFC 3986 §3.3) that Tomcat, Jetty and
 *   Spring strip before routing, so "/app/..;/admin" is "/app/../admin"
 *   there, while WHATWG sees a segment named "..;";
 * - an escape decoding to ".", "/", "\" or ";": "%2e%2e" is a dot segment
 *   for WHATWG and for servers that decode before normalising, data for
 *   others; "%2f" and "%5c" become separators (and "//host") in servers that
 *   decode before routing; "%252e" and "%25%32%65" do the same for a server
 *   that decodes twice;
 * - an escape decoding to a C0 control or DEL (%00-%1F, %7F), and C1
 *   controls (U+0080-U+009F, "%C2%85") at any depth: NUL truncates paths in
 *   C-based servers, CR/LF split headers and logs, and WHATWG strips or keeps
 *   them where others do not;
 * - escapes that do not decode to well-formed UTF-8: truncated ("%e0%a4"),
 *   overlong ("%c0%ae" is "." for some old decoders, CVE-2008-2938),
 *   surrogates, Latin-1 ("caf%e9"). Strict decoders reject them, lenient
 *   ones guess; browsers always send UTF-8, so a real return path has none;
 * - full-width and ideographic dots (U+FF0E, U+3002, U+FF61), raw or encoded,
 *   and any other character that Unicode normalisation (NFKC, as IDNA,
 *   some frameworks and file systems apply) turns into ". / \ ; % ? #"
 *   (U+2025 "‥" is "..", U+FF0F is "/", U+037E is ";");
 * - escapes still left after MAX_DECODE_DEPTH decodings: each round costs a
 *   pass over the text and "%25" nests cheaply, so an unbounded loop is a
 *   CPU lever on a public endpoint (2 KB of "%252525…" costs over 100 ms);
 *   no real return path is encoded more than twice.
 */
export function returnPathProblem(path: string): string | undefined {
  if (MALFORMED_ESCAPE.test(path)) return 'must not contain a malformed percent escape in its path';
  if (path.includes(';')) return 'must not contain ";" (a path parameter) in its path';
  let text = path;
  for (let depth = 0; ; depth++) {
    if (hasDelimiterLookalike(text)) {
      return 'must not contain full-width or ideographic dots, or other characters that normalise to a URL delimiter, in its path';
    }
    if (CONTROL_CHARACTER.test(text)) return 'must not contain an encoded control character in its path';
    const escapes = [...text.matchAll(VALID_ESCAPE)];
    if (escapes.length === 0) return undefined;
    if (depth === MAX_DECODE_DEPTH) return 'must not be percent-encoded this many times over in its path';
    for (const [, hex] of escapes) {
      const problem = encodedByteProblem(Number.parseInt(hex!, 16));
      if (problem !== undefined) return problem;
    }
    const decoded = percentDecodeUtf8(text);
    if (decoded === undefined) return 'must not contain percent-encoded bytes that are not UTF-8 in its path';
    text = decoded;
  }
}

export const MAX_DECODE_DEPTH = 8;
// "%" not followed by two hex digits (RFC 3986 §2.1).
const MALFORMED_ESCAPE = /%(?![0-9A-Fa-f]{2})/;
const VALID_ESCAPE = /%([0-9A-Fa-f]{2})/g;
// C0, DEL and C1 (raw C0/DEL/C1 at depth 0 are refused earlier by
// hasUnsafeCharacters; here they come from decoding).
const CONTROL_CHARACTER = /\p{Cc}/u;

/** Why a byte must not appear percent-encoded in a path, or undefined. */
function encodedByteProblem(byte: number): string | undefined {
  // ".", "/", "\"
  if (byte === 0x2e || byte === 0x2f || byte === 0x5c) return 'must not contain an encoded dot, slash or backslash in its path';
  if (byte === 0x3b) return 'must not contain ";" (a path parameter) in its path';
  if (byte < 0x20 || byte === 0x7f) return 'must not contain an encoded control character in its path';
  return undefined;
}

// The label separators of UTS #46 besides ".": NFKC maps U+FF0E to "." but
// leaves U+3002 alone and maps U+FF61 to U+3002, so they are named here.
const IDEOGRAPHIC_DOTS = new Set(['\u3002', '\uff0e', '\uff61']);
const DELIMITERS = /[./\\;%?#]/;

function hasDelimiterLookalike(text: string): boolean {
  for (const ch of text) {
    if (ch <= '\u007f') continue;
    if (IDEOGRAPHIC_DOTS.has(ch) || DELIMITERS.test(ch.normalize('NFKC'))) return true;
  }
  return false;
}

const utf8Encoder = new TextEncoder();
// fatal: malformed UTF-8 (truncated, overlong, surrogates) throws instead of
// becoming U+FFFD; ignoreBOM: a decoded BOM stays visible.
const utf8Decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** `text` with every valid "%XX" decoded, read as UTF-8; undefined when the result is not UTF-8. */
function percentDecodeUtf8(text: string): string | undefined {
  const input = utf8Encoder.encode(text);
  const output = new Uint8Array(input.length);
  let n = 0;
  for (let i = 0; i < input.length; i++) {
    if (input[i] === 0x25 && isHexDigit(input[i + 1]) && isHexDigit(input[i + 2])) {
      output[n++] = Number.parseInt(String.fromCharCode(input[i + 1]!, input[i + 2]!), 16);
      i += 2;
    } else {
      output[n++] = input[i]!;
    }
  }
  try {
    return utf8Decoder.decode(output.subarray(0, n));
  } catch {
    return undefined;
  }
}

function isHexDigit(byte: number | undefined): boolean {
  return byte !== undefined && ((byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x46) || (byte >= 0x61 && byte <= 0x66));
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

/**
 * `resolveReturnTo`, answered as the flow endpoints answer it: the checked URL, or
 * 400 INVALID_REDIRECT (with the pointer) / 403 RETURN_TO_NOT_ALLOWED.
 */
export function requireReturnTo(raw: string, allowedRoots: readonly string[]): URL {
  const result = resolveReturnTo(raw, allowedRoots);
  if (result.ok) return result.url;
  if (result.status === 400) {
    throw new ApiError('INVALID_REDIRECT', result.reason, { errors: [{ pointer: '/query/returnTo', message: result.reason }] });
  }
  throw new ApiError('RETURN_TO_NOT_ALLOWED', result.reason);
}
