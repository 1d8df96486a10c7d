import type http from 'node:http';
import type { Person } from './demoBffPages.ts';

// The example BFF's request helpers (src/devstack/demoBff.ts): its cookies, its local return
// paths, the request body, and GET /v1/me.

export function readCookie(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return value.join('=');
  }
  return undefined;
}

/**
 * `returnTo` as a path inside this BFF under the platform's basePath, or the fallback: only a
 * same-origin relative path ("/reports?id=1"), never "//evil.example", a backslash, an absolute
 * URL or control characters (an open redirect otherwise). The gateway checks it again against
 * the platform's allowedReturnUrls.
 */
export function localReturnPath(value: string | null, selfUrl: string, basePath: string, fallback: string): string {
  if (!value || !value.startsWith('/') || value.startsWith('//') || /[\\\s\u0000-\u001f\u007f]/.test(value)) return fallback;
  const url = new URL(value, selfUrl);
  if (url.origin !== new URL(selfUrl).origin || !url.pathname.startsWith(`${basePath}/`)) return fallback;
  return `${url.pathname}${url.search}`;
}

/**
 * GET /v1/me with the platform credential, forwarded as the gateway cookie (`Cookie:
 * gw_session=gwp_…`, server to server): the person's name, e-mail and picture. null when the
 * gateway does not answer (the page then shows the subject).
 */
export async function fetchPerson(gatewayUrl: string, cookieName: string, platformCredential: string): Promise<Person | null> {
  const response = await fetch(new URL('/v1/me', gatewayUrl), { headers: { Cookie: `${cookieName}=${platformCredential}`, Accept: 'application/json' } }).catch(() => null);
  if (!response?.ok) return null;
  const me = (await response.json()) as { user?: { displayName?: string | null; email?: string | null; pictureUrl?: string | null } };
  return { displayName: me.user?.displayName ?? null, email: me.user?.email ?? null, pictureUrl: me.user?.pictureUrl ?? null };
}

/** The request body as text, refused beyond `limit` bytes. */
export async function readBody(req: http.IncomingMessage, limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new Error('body too large');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
