// URL checks for everything the gateway will ever send a browser to.
//
// Redirect targets come only from the platform registry (callbackUrl,
// allowedReturnUrls) or are checked against it (returnTo). Two parsers see each
// URL: ours (the WHATWG URL Standard, as implemented by Node's `URL`) and the
// browser's. Anything the two could read differently is rejected up front
// instead of being "normalised away": backslashes, control characters,
// whitespace, userinfo, fragments, and a host not spelled exactly as the
// parser serialises it (GUIDE §5, RFC 9700 §4.11 "Open Redirection",
// RFC 3986 §7.6 "Semantic Attacks").
//
// Pure module: no I/O, no dependencies beyond the global WHATWG `URL`.

export type UrlCheck = { ok: true; url: URL } | { ok: false; reason: string };

// What counts as unsafe, and why:
// - `\`: WHATWG treats it as `/` in special URLs (so `/\evil.com` becomes the
//   protocol-relative `//evil.com`), RFC 3986 does not; parsers disagree.
// - \p{Cc}: C0 controls U+0000-U+001F, DEL U+007F and C1 controls U+0080-U+009F.
//   WHATWG silently strips leading/trailing C0-or-space and removes tab/LF/CR
//   anywhere ("java\tscript:" is "javascript:"), so they can hide a scheme.
// - \s, \p{Zs}, \p{Zl}, \p{Zp}: all Unicode whitespace and separators, NBSP,
//   U+2028/U+2029, U+3000 ...: RFC 3986 Appendix C says whitespace is not part
//   of a URI, and header/log tooling splits on it.
// - \p{Cf}: format characters (zero-width U+200B-U+200D, U+2060, BOM U+FEFF,
//   soft hyphen U+00AD, bidi overrides U+202A-U+202E, U+2066-U+2069). UTS #46
//   (IDNA, used by WHATWG host parsing) deletes some of them, so
//   "al<U+00AD>lowed.example" parses as "allowed.example"; bidi overrides make
//   a URL display differently from what it is.
const UNSAFE_CHARACTER = /[\\\s\p{Cc}\p{Cf}\p{Zs}\p{Zl}\p{Zp}]/u;

/**
 * True when `raw` holds a character that no redirect target we accept may
 * contain: a backslash, a control character (C0, DEL, C1), any Unicode
 * whitespace or separator, a format (zero-width, bidi) character, or a lone
 * UTF-16 surrogate (which the URL parser would turn into U+FFFD).
 */
export function hasUnsafeCharacters(raw: string): boolean {
  return UNSAFE_CHARACTER.test(raw) || !raw.isWellFormed();
}

// RFC 3986 §3.1: scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ).
const SCHEME_PREFIX = /^([A-Za-z][A-Za-z0-9+.-]*):/;

/**
 * Parses an absolute http(s) URL for the platform registry, stricter than
 * `new URL()`:
 * - the raw text must be `http://` or `https://` (scheme case-insensitive)
 *   followed by a non-empty authority. WHATWG would also accept
 *   `https:evil.com`, `https:/evil.com` and `https:///evil.com` (all becoming
 *   `https://evil.com/`), which RFC 3986 reads as paths: we refuse them;
 * - no userinfo, not even an empty one: `new URL('https://@a.com').username`
 *   is '' so the parsed URL cannot tell, hence the check on the raw authority
 *   (RFC 3986 §3.2.1 deprecates user:password; §7.6 shows userinfo used to
 *   disguise the real host, RFC 9700 §4.11);
 * - no fragment, not even an empty `#` (`URL.hash` is '' for a bare `#`,
 *   hence the check on the raw string). A fragment is not sent to the server
 *   and is inherited across redirects (RFC 9110 §10.2.2), which is how tokens
 *   leak through open redirectors;
 * - no query at all (not even a bare `?`) unless `allowQuery`;
 * - the host spelled exactly as WHATWG serialises it, but for ASCII case
 *   (see hostSpellingProblem): no IPv4 in octal, hex or shortened form, no
 *   long IPv6 form, no percent-encoding, no non-ASCII (so no IDN: register
 *   punycode), no trailing dot and no empty label.
 *
 * Used for a platform's callbackUrl (`allowQuery: true`) and its
 * allowedReturnUrls roots (`allowQuery: false`). The reason is a short
 * message fit for a client; prefix it with the field name.
 */
export function parseAbsoluteHttpUrl(raw: string, opts: { allowQuery: boolean }): UrlCheck {
  if (hasUnsafeCharacters(raw)) {
    return fail('must not contain backslashes, control characters or whitespace');
  }
  // In every URL syntax, an unescaped '#' starts the fragment (RFC 3986 §3.5).
  if (raw.includes('#')) return fail('must not contain a fragment');

  const scheme = SCHEME_PREFIX.exec(raw)?.[1];
  if (scheme === undefined) return fail('must be an absolute http or https URL');
  const lowerScheme = scheme.toLowerCase();
  if (lowerScheme !== 'http' && lowerScheme !== 'https') return fail('must use the http or https scheme');

  // RFC 3986 §3.2: the authority is introduced by exactly "//" and ends at the
  // next "/", "?" or "#" (WHATWG adds "\", rejected above).
  const rest = raw.slice(scheme.length + 1);
  if (!rest.startsWith('//') || rest.startsWith('///')) return fail('must be an absolute http or https URL');
  const afterSlashes = rest.slice(2);
  const authorityEnd = afterSlashes.search(/[/?#]/);
  const authority = authorityEnd === -1 ? afterSlashes : afterSlashes.slice(0, authorityEnd);
  if (authority.includes('@')) return fail('must not contain userinfo');
  if (authority === '') return fail('must have a host');
  const rawHost = rawHostOf(authority);
  const rawHostProblem = rawHostTextProblem(rawHost);
  if (rawHostProblem !== undefined) return fail(rawHostProblem);

  // A '?' outside the fragment always starts the query (RFC 3986 §3.4).
  if (!opts.allowQuery && raw.includes('?')) return fail('must not contain a query');

  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return fail('must be an absolute http or https URL');
  }
  // Defence in depth: the raw-text checks above should make these impossible.
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return fail('must use the http or https scheme');
  if (url.username !== '' || url.password !== '') return fail('must not contain userinfo');
  if (url.hash !== '') return fail('must not contain a fragment');
  if (url.hostname === '') return fail('must have a host');
  if (!opts.allowQuery && url.search !== '') return fail('must not contain a query');
  const spelling = hostSpellingProblem(rawHost, url.hostname);
  if (spelling !== undefined) return fail(spelling);
  return { ok: true, url };
}

// ---------------------------------------------------------------------------
// Host spelling.
//
// The WHATWG host parser is generous: it percent-decodes the host, maps it
// through UTS #46 (IDNA: full-width letters to ASCII, U+3002/U+FF0E/U+FF61 to
// ".", KELVIN SIGN to "k", Unicode to punycode) and reads IPv4 numbers in
// octal, hex and shortened forms ("0177.0.0.1", "0x7f.1", "127.1",
// "2130706433" are all 127.0.0.1, WHATWG URL "IPv4 parser"). RFC 3986 §3.2.2
// knows only dotted-decimal IPv4 without leading zeros ("0177.0.0.1" is a
// reg-name there) and §7.4 warns that the rare forms are read differently by
// different resolvers. We compare the PARSED host, so a spelling only we
// normalise could pass our check and be read as another host by a proxy, a
// resolver or the platform's own allowlist. Rule: the raw host, lower-cased
// in ASCII only, must equal `url.hostname` (which also rules out a long IPv6
// form: WHATWG serialises IPv6 compressed, as RFC 5952 §4 recommends).

// RFC 3986 §3.2.2: an IP-literal is enclosed in brackets; otherwise the
// host ends at the ":" that introduces the port.
function rawHostOf(authority: string): string {
  if (authority.startsWith('[')) {
    const end = authority.indexOf(']');
    return end === -1 ? authority : authority.slice(0, end + 1);
  }
  const colon = authority.indexOf(':');
  return colon === -1 ? authority : authority.slice(0, colon);
}

const NON_ASCII = /[^\x00-\x7f]/;

/** Problems visible in the raw host text alone, reported before parsing (which may fail on them). */
function rawHostTextProblem(rawHost: string): string | undefined {
  // Non-ASCII hosts: IDNA maps them, and lookalikes (Cyrillic "а", full-width
  // letters, ideographic dots) become either another host or, worse, ours.
  // Platforms register ASCII or punycode (xn--) hosts, which is what the
  // browser sends and what their certificates name.
  if (NON_ASCII.test(rawHost)) return 'must have an ASCII host (write an international name in punycode, xn--)';
  // WHATWG percent-decodes the host ("ex%61mple.com"); RFC 3986 §3.2.2 allows
  // pct-encoded in a reg-name but no DNS name needs it.
  if (rawHost.includes('%')) return 'must not have a percent-encoded host';
  return undefined;
}

const IPV4_HOSTNAME = /^\d+\.\d+\.\d+\.\d+$/;

/** Why the raw host is not the canonical spelling of `hostname` (WHATWG-parsed), or undefined. */
function hostSpellingProblem(rawHost: string, hostname: string): string | undefined {
  const host = asciiLowerCase(rawHost);
  // A trailing dot makes a fully qualified name: the same DNS name, but a
  // different host string for cookies, TLS names, virtual hosts and
  // allowlists (WHATWG keeps it: "a.example." is not "a.example").
  if (host.endsWith('.')) return 'must not end its host with a dot';
  // No DNS name has an empty label (RFC 1035 §3.1); WHATWG keeps "a..b".
  if (!host.startsWith('[') && host.split('.').includes('')) return 'must not have an empty label in its host';
  if (host === hostname) return undefined;
  if (host.startsWith('[')) return 'must write an IPv6 host in its shortest form (RFC 5952)';
  if (IPV4_HOSTNAME.test(hostname)) return 'must write an IPv4 host as four decimal numbers without leading zeros';
  return 'must spell its host in canonical form';
}

// Not String.prototype.toLowerCase: it is Unicode-aware, and "\u212A" (KELVIN
// SIGN) lower-cases to an ASCII "k", which would make the comparison above
// accept a host only IDNA maps to ours. (Non-ASCII is refused before, this is
// the second lock.)
function asciiLowerCase(value: string): string {
  return value.replace(/[A-Z]/g, (c) => c.toLowerCase());
}

/**
 * Canonical text of an allowed-return root, for de-duplication and
 * comparison: the WHATWG-serialised origin (lower-case scheme and host,
 * default port dropped) plus the pathname exactly as parsed (dot segments
 * resolved), trailing slash included. `https://A.example:443/app/` and
 * `https://a.example/app/` are the same root; `https://a.example/app` is a
 * different one, because a root's trailing slash changes what it admits
 * (see isWithinRoot in returnTo.ts: "/app/" does not admit "/app").
 */
export function normalizeReturnRoot(url: URL): string {
  return url.origin + url.pathname;
}

function fail(reason: string): UrlCheck {
  return { ok: false, reason };
}
