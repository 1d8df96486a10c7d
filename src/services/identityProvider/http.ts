// Outgoing plain HTTP to the identity provider (discovery and the token endpoint of the admin
// credential; the user service goes through Zitadel's client, zitadelClient.ts, with the same
// limits): every call has a deadline (connect, headers and body alike) and a bound on the size of
// the answer, follows no redirect, and reads JSON only.
// Nothing here logs: the callers log what they may (never a password, a token or a body).

export interface HttpLimits {
  /** The whole call, body included. */
  timeoutMs: number;
  /** The largest answer read; a larger one is abandoned. */
  maxResponseBytes: number;
}

export const DEFAULT_HTTP_LIMITS: HttpLimits = { timeoutMs: 5000, maxResponseBytes: 1024 * 1024 };

export interface HttpAnswer {
  status: number;
  /** The parsed body when it was JSON; undefined otherwise (an HTML page from a proxy, an empty body). */
  json: unknown;
}

export type UnreachableReason = 'timeout' | 'network' | 'too_large' | 'server_error';

/** The provider did not answer in time, could not be reached, answered too much, or failed (5xx, 429). */
export class ProviderUnreachable extends Error {
  override name = 'ProviderUnreachable';
  readonly reason: UnreachableReason;
  /** A system error code such as ECONNREFUSED, or the HTTP status of a failure, when there is one. */
  readonly systemCode: string | undefined;
  constructor(reason: UnreachableReason, systemCode?: string) {
    const what = { timeout: 'timed out', too_large: 'answered too much', server_error: 'failed', network: 'unreachable' }[reason];
    super(`identity provider ${what}${systemCode ? ` (${systemCode})` : ''}`);
    this.reason = reason;
    this.systemCode = systemCode;
  }
}

export interface HttpRequest {
  method: 'GET' | 'POST' | 'DELETE';
  url: URL;
  headers: Record<string, string>;
  body?: string;
}

export async function sendRequest(request: HttpRequest, limits: HttpLimits): Promise<HttpAnswer> {
  const signal = AbortSignal.timeout(limits.timeoutMs);
  let response: Response;
  try {
    response = await fetch(request.url, {
      method: request.method,
      headers: request.headers,
      ...(request.body !== undefined ? { body: request.body } : {}),
      redirect: 'manual',
      signal,
    });
  } catch (error) {
    throw unreachable(error, signal);
  }
  const declared = Number(response.headers.get('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > limits.maxResponseBytes) {
    await response.body?.cancel().catch(() => undefined);
    throw new ProviderUnreachable('too_large');
  }
  let text: string;
  try {
    text = await readLimited(response, limits.maxResponseBytes);
  } catch (error) {
    if (error instanceof ProviderUnreachable) throw error;
    throw unreachable(error, signal);
  }
  const isJson = /^application\/(?:[\w.+-]+\+)?json\b/i.test(response.headers.get('content-type') ?? '');
  let json: unknown;
  if (isJson && text.length > 0) {
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
  }
  return { status: response.status, json };
}

async function readLimited(response: Response, maxBytes: number): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw new ProviderUnreachable('too_large');
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, size).toString('utf8');
}

function unreachable(error: unknown, signal: AbortSignal): ProviderUnreachable {
  if (signal.aborted) return new ProviderUnreachable('timeout');
  const cause = (error as { cause?: { code?: unknown } } | null)?.cause;
  const code = typeof cause?.code === 'string' ? cause.code : undefined;
  return new ProviderUnreachable('network', code);
}
