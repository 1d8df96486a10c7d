// Reading requests: a form body (also when Express parsed it already), a local return path,
// and whether a POST comes from this back end's own pages.
import type { IncomingMessage } from 'node:http';

/** The urlencoded body, at most 64 KiB; a body an Express parser already read is taken from req.body. */
export async function readForm(req: IncomingMessage & { body?: unknown }): Promise<URLSearchParams> {
  if (typeof req.body === 'string') return new URLSearchParams(req.body);
  if (req.body && typeof req.body === 'object' && !Buffer.isBuffer(req.body)) {
    return new URLSearchParams(Object.entries(req.body as Record<string, unknown>).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > 64 * 1024) throw new Error('body too large');
    chunks.push(chunk);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

/**
 * A path of this back end ("/reports?id=1"), or null: never "//evil.example", a backslash, an
 * absolute URL or control characters (an open redirect otherwise).
 */
export function localPath(value: string | null, publicUrl: URL): string | null {
  if (!value || value.length > 2048 || !value.startsWith('/') || value.startsWith('//') || /[\\\s\u0000-\u001f\u007f]/.test(value)) return null;
  const url = new URL(value, publicUrl);
  const path = `${url.pathname}${url.search}`;
  // Checked again once normalised: dot segments ("/..//evil.example") resolve to "//evil.example",
  // which a browser reads in a Location as another host (WHATWG URL, scheme-relative).
  return url.origin === publicUrl.origin && !path.startsWith('//') ? path : null;
}

/** Posted from this back end's own page: its Origin, or Sec-Fetch-Site when a no-referrer page makes the Origin `null`. */
export function sameOriginRequest(req: IncomingMessage, publicUrl: URL): boolean {
  return req.headers.origin === publicUrl.origin || req.headers['sec-fetch-site'] === 'same-origin';
}
