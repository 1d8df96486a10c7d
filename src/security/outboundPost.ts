import http from 'node:http';
import https from 'node:https';
import { PUBLIC_ONLY, type OutboundPolicy } from './outboundAddresses.ts';
import { assertOutboundHost, guardedLookup, OutboundAddressRefused, type Resolver } from './outboundLookup.ts';

// One POST to a URL a platform registered (back-channel logout, Security Event Token push),
// under the outbound address rules. node:http takes `lookup` per request, so every address the
// name resolves to is checked at connect time; a fresh connection per call (`agent: false`) so
// no pooled socket skips that lookup. Redirects are never followed (node:http does not).

/** What deliveries may connect to (OUTBOUND_ALLOWED_PRIVATE_RANGES, the dev stack's loopback); default public addresses only. */
export interface OutboundOptions {
  policy?: OutboundPolicy;
  /** Replaces DNS (tests). */
  resolve?: Resolver;
}

/** How long a delivery waits for the platform's answer, connection included. */
export const DELIVERY_TIMEOUT_MS = 5000;

/** A call's limits: its timeout (default DELIVERY_TIMEOUT_MS), the worker's abort signal, the outbound rules. */
export interface OutboundCallOptions {
  timeoutMs?: number | undefined;
  signal?: AbortSignal | undefined;
  outbound?: OutboundOptions | undefined;
}

export interface OutboundPost {
  contentType: string;
  accept: string;
  body: string;
  /** Read the answer's body (up to `maxBody` characters) only for these statuses. */
  readBodyOf?: (status: number) => boolean;
  maxBody?: number;
}

/** The call failed before an answer (not a URL, refused connection, timeout): the message names the URL without its query. */
export class OutboundPostFailed extends Error {
  override name = 'OutboundPostFailed';
}

/**
 * POSTs and resolves to the status (and the body when asked for); throws OutboundAddressRefused
 * before sending to a refused address, OutboundPostFailed when no answer came.
 */
export async function postToRegisteredUrl(
  url: string,
  post: OutboundPost,
  options: OutboundCallOptions = {},
): Promise<{ status: number; body: string }> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    throw new OutboundPostFailed(`POST ${safeUrl(url)} failed: not a URL`);
  }
  const policy = options.outbound?.policy ?? PUBLIC_ONLY;
  assertOutboundHost(target.hostname, policy);
  const timeout = AbortSignal.timeout(options.timeoutMs ?? DELIVERY_TIMEOUT_MS);
  const signal = options.signal ? AbortSignal.any([timeout, options.signal]) : timeout;
  const maxBody = post.maxBody ?? 4096;
  try {
    return await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const request = (target.protocol === 'https:' ? https : http).request(
        target,
        {
          method: 'POST',
          headers: { 'Content-Type': post.contentType, 'Content-Length': Buffer.byteLength(post.body), Accept: post.accept },
          agent: false,
          lookup: guardedLookup(policy, options.outbound?.resolve),
          signal,
        },
        (response) => {
          const status = response.statusCode ?? 0;
          if (!post.readBodyOf?.(status)) {
            resolve({ status, body: '' });
            response.destroy();
            return;
          }
          let body = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => {
            body += chunk;
            if (body.length > maxBody) {
              response.destroy();
              resolve({ status, body: body.slice(0, maxBody) });
            }
          });
          response.on('end', () => resolve({ status, body }));
          response.on('error', () => resolve({ status, body }));
        },
      );
      request.on('error', reject);
      request.end(post.body);
    });
  } catch (error) {
    if (error instanceof OutboundAddressRefused) throw error;
    throw new OutboundPostFailed(`POST ${safeUrl(url)} failed: ${describeRequestError(error, timeout)}`);
  }
}

/** "answered 503", with a word on redirects (they are not followed, so a 3xx is not a success). */
export function describeStatus(url: string, status: number): string {
  return `POST ${safeUrl(url)} answered ${status}${status >= 300 && status < 400 ? ' (redirects are not followed)' : ''}`;
}

function describeRequestError(error: unknown, timeout: AbortSignal): string {
  if (timeout.aborted) return 'timed out';
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && code !== 'ABORT_ERR') return code;
  return error instanceof Error ? error.message : String(error);
}

/** The URL as logged and recorded: without its query (a registered URL may carry one). */
export function safeUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return '(invalid URL)';
  }
}
