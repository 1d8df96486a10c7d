// Zitadel's v2 user API through Zitadel's own client: `createUserServiceClient` of @zitadel/client
// over the `zitadel.user.v2.UserService` definition of @zitadel/proto, so every request and answer
// is typed by Zitadel's protos. The wire is the Connect protocol (binary protobuf, HTTP/1.1, so it
// passes any HTTP/1.1 reverse proxy), which Zitadel's connectRPC server answers at
// `{IDP_ADMIN_API_URL}/zitadel.user.v2.UserService/{Method}` (docs/zitadel.md says from which version).
//
// Limits, as the hand-written HTTP had them (http.ts), within what the Connect transport allows:
// - one deadline per call, headers and body alike: an AbortSignal of our own (so a timeout is told
//   apart from the provider's own DEADLINE_EXCEEDED) plus `timeoutMs`, which the transport also
//   sends as `Connect-Timeout-Ms` so Zitadel can give up on a call the gateway has given up on;
// - the answer's size: the transport's `readMaxBytes`, checked against Content-Length first, then
//   while reading. Unlike http.ts the transport accepts gzip and br answers: the bound then applies
//   to the bytes read and again to the message after decompression;
// - redirects are never followed (node:http does not follow them; the transport takes a 3xx as an
//   error).
// The service user's credential is read before each call and sent as a call header, not through an
// interceptor: a refusal at the token endpoint then stays an AdminCredentialRefused instead of being
// folded into a ConnectError. Nothing here logs.

import { Code, ConnectError } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-node';
import { createUserServiceClient } from '@zitadel/client/v2';
import { CredentialsCheckErrorSchema, ErrorDetailSchema } from '@zitadel/proto/zitadel/message_pb.js';
import { createRegistry } from '@bufbuild/protobuf';

import { ProviderUnreachable, type HttpLimits } from './http.ts';
import type { AdminCredential } from './zitadelAuth.ts';

export type UserServiceClient = ReturnType<typeof createUserServiceClient>;

/** What one call of the generated client takes besides its request. */
export interface CallOptions {
  signal: AbortSignal;
  timeoutMs: number;
  headers: Record<string, string>;
}

/** Zitadel (or something in front of it) answered with an error. */
export class ZitadelRefusal extends Error {
  override name = 'ZitadelRefusal';
  /** The Connect / gRPC code (Zitadel's zerrors kinds map one to one onto them). */
  readonly code: Code;
  /** The detail id, e.g. COMMAND-3M0fs (zitadel.v1.ErrorDetail or CredentialsCheckError); undefined when none came. */
  readonly id: string | undefined;
  /** The detail's translated message, for people; never used to tell errors apart. */
  readonly detailMessage: string | undefined;
  constructor(code: Code, id: string | undefined, detailMessage: string | undefined) {
    super(`identity provider refused the call (${Code[code] ?? code}${id ? `, ${id}` : ''})`);
    this.code = code;
    this.id = id;
    this.detailMessage = detailMessage;
  }
}

/** The two detail messages Zitadel attaches to an error (internal/api/grpc/gerrors getErrorInfo). */
const DETAILS = createRegistry(ErrorDetailSchema, CredentialsCheckErrorSchema);

export interface ZitadelApi {
  /**
   * Runs one call of the user service with the service user's credential; a cached JWT-profile
   * token the API refuses (UNAUTHENTICATED) is renewed once. Throws ZitadelRefusal,
   * ProviderUnreachable, or AdminCredentialRefused (from the token endpoint).
   */
  call<T>(work: (client: UserServiceClient, options: CallOptions) => Promise<T>): Promise<T>;
}

export function createZitadelApi(options: { apiUrl: string; credential: AdminCredential; limits: HttpLimits }): ZitadelApi {
  const { credential, limits } = options;
  const client = createUserServiceClient(createConnectTransport({
    baseUrl: options.apiUrl.replace(/\/+$/, ''),
    httpVersion: '1.1',
    useBinaryFormat: true,
    readMaxBytes: limits.maxResponseBytes,
  }));

  async function once<T>(work: (client: UserServiceClient, options: CallOptions) => Promise<T>, authorization: string): Promise<T> {
    const signal = AbortSignal.timeout(limits.timeoutMs);
    const started = performance.now();
    try {
      // Zitadel translates messages; the gateway passes policy messages on, in English.
      return await work(client, { signal, timeoutMs: limits.timeoutMs, headers: { Authorization: authorization, 'Accept-Language': 'en' } });
    } catch (error) {
      throw classify(error, signal.aborted || performance.now() - started >= limits.timeoutMs);
    }
  }

  return {
    async call(work) {
      const authorization = await credential.authorization();
      try {
        return await once(work, authorization);
      } catch (error) {
        if (!(error instanceof ZitadelRefusal) || error.code !== Code.Unauthenticated || !credential.invalidate()) throw error;
      }
      return once(work, await credential.authorization());
    },
  };
}

/**
 * Sorts a failed call out by structure, never by message text: our deadline passed; an error
 * without response headers was raised on our side (RESOURCE_EXHAUSTED there is readMaxBytes, also
 * after decompression; a system error such as ECONNREFUSED in its cause chain means no answer;
 * anything else an unusable answer, e.g. a corrupt compression); everything else is what the
 * provider (or a proxy) answered, with its code and detail id.
 */
function classify(error: unknown, timedOut: boolean): unknown {
  if (timedOut) return new ProviderUnreachable('timeout');
  if (!(error instanceof ConnectError)) return error;
  if ([...error.metadata.keys()].length === 0) {
    if (error.code === Code.ResourceExhausted) return new ProviderUnreachable('too_large');
    const nodeCode = nodeErrorCode(error);
    // System errors (ECONNREFUSED, ECONNRESET, ENOTFOUND…), as opposed to Node's ERR_* and zlib's Z_*.
    if (nodeCode && /^E[A-Z0-9_]+$/.test(nodeCode) && !nodeCode.startsWith('ERR_')) return new ProviderUnreachable('network', nodeCode);
    return new ProviderUnreachable('server_error', nodeCode);
  }
  const detail = error.findDetails(DETAILS)[0] as { id?: unknown; message?: unknown } | undefined;
  const id = typeof detail?.id === 'string' && detail.id !== '' ? detail.id : undefined;
  const message = typeof detail?.message === 'string' && detail.message !== '' ? detail.message : undefined;
  return new ZitadelRefusal(error.code, id, message);
}

/** The `code` of a Node error in the cause chain (ConnectError's own code is a number). */
function nodeErrorCode(error: Error): string | undefined {
  const seen = new Set<unknown>();
  for (let current: unknown = error; current instanceof Error && !seen.has(current); current = (current as { cause?: unknown }).cause) {
    seen.add(current);
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && code !== '') return code;
  }
  return undefined;
}
