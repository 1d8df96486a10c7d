// A local server that answers as Zitadel's v2 user service does, built on Zitadel's own service
// definition (`UserService` of @zitadel/proto) and served with the Connect protocol by connect-node
// (connectNodeAdapter over node:http), for testing the gateway's Zitadel adapter over real HTTP:
// - requests are decoded by Zitadel's definitions, then checked against the definitions'
//   `validate.rules` as Zitadel's ValidationHandler does (INVALID_ARGUMENT, no error detail):
//   a request Zitadel's schema would refuse is refused here too (protoValidate.ts);
// - errors as Zitadel's connect server writes them (gerrors.ZITADELToConnectError): the code, the
//   message `<translated message> (<ID>)` and a `zitadel.v1.ErrorDetail{id, message}` detail
//   (`CredentialsCheckError` for a wrong password when asked); a path that is no RPC is a plain 404;
// - the caller must send `Authorization: Bearer <token>` (UNAUTHENTICATED `AUTH-7fs1e` otherwise):
//   a personal access token it was given, or an access token from its own token endpoint, where a
//   service user's JWT-profile assertion is verified against the key file's public key (RS256, kid,
//   iss = sub = userId, aud = issuer, exp at most one hour after iat, grant and scope as Zitadel
//   wants them). Discovery and the token endpoint are OAuth, not part of the user service: plain HTTP;
// - scripted users (state, password, passkeys, IdP links, factors), a password policy, and failure
//   modes: slow, an error code (500, 503, 429), an HTML page from a proxy, a huge answer; every
//   request is recorded, with the decoded request message of the RPC it reached.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes, type KeyObject } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { decodeJwt, decodeProtectedHeader, jwtVerify, type JWTPayload } from 'jose';
import { Code, ConnectError, createContextKey, createContextValues, type ConnectRouter, type Interceptor } from '@connectrpc/connect';
import { connectNodeAdapter } from '@connectrpc/connect-node';
import { toJson, type DescMessage, type JsonObject } from '@bufbuild/protobuf';
import { UserService, AuthenticationMethodType } from '@zitadel/proto/zitadel/user/v2/user_service_pb.js';
import { AuthFactorState } from '@zitadel/proto/zitadel/user/v2/user_pb.js';
import { CredentialsCheckErrorSchema, ErrorDetailSchema } from '@zitadel/proto/zitadel/message_pb.js';

import { violation } from './protoValidate.ts';

export type ZitadelUserState = 'USER_STATE_ACTIVE' | 'USER_STATE_INACTIVE' | 'USER_STATE_INITIAL' | 'USER_STATE_LOCKED';
type FactorState = 'AUTH_FACTOR_STATE_READY' | 'AUTH_FACTOR_STATE_NOT_READY';

export interface ZitadelUser {
  id: string;
  state?: ZitadelUserState;
  /** Plain text here: this server stands in for the provider, which keeps the hash. */
  password?: string;
  passkeys?: Array<{ id: string; name: string; state?: FactorState }>;
  idpLinks?: Array<{ idpId: string; userId: string; userName: string }>;
  /** Authentication factors: TOTP (`otp`), U2F security keys, OTP by SMS or e-mail. */
  factors?: Array<{ type: 'otp' | 'otpSms' | 'otpEmail' } | { type: 'u2f'; id: string; name: string; state?: FactorState }>;
  /** Recovery codes: newer Zitadel versions list them (value 8), which the 1.3.1 definitions do not name. */
  recoveryCodes?: boolean;
}

export interface PasswordPolicy {
  minLength: number;
  hasNumber: boolean;
  hasSymbol: boolean;
}

export interface ServiceAccount {
  userId: string;
  keyId: string;
  publicKey: KeyObject;
}

export interface RecordedRequest {
  method: string;
  path: string;
  /** The RPC the request reached (`SetPassword`…), if any. */
  rpc: string | undefined;
  /** The request as Zitadel's definitions decoded it (proto3 JSON, zero values included). */
  message: JsonObject | undefined;
  /** Set when the request broke the definitions' validate rules: the violation. */
  invalid: string | undefined;
  authorization: string | undefined;
  contentType: string | undefined;
  /** `Connect-Protocol-Version`, and the deadline the caller sent (`Connect-Timeout-Ms`). */
  connectProtocolVersion: string | undefined;
  connectTimeoutMs: string | undefined;
}

export interface TokenRequestRecord {
  form: Record<string, string>;
  header: Record<string, unknown> | undefined;
  claims: JWTPayload | undefined;
  outcome: 'issued' | 'refused';
}

export type FailureMode =
  | { kind: 'none' }
  | { kind: 'slow'; delayMs: number }
  | { kind: 'status'; status: 500 | 503 | 429 }
  /** A reverse proxy's own HTML error page. */
  | { kind: 'html'; status: 502 | 503 }
  /** A 200 answer of this many bytes, chunked (a misbehaving proxy, or a huge list). */
  | { kind: 'huge'; bytes: number }
  /** A small gzip answer that inflates to this many bytes (a decompression bomb). */
  | { kind: 'gzip'; bytes: number };

export interface ZitadelServerOptions {
  users?: ZitadelUser[];
  /** Personal access tokens with the ORG_USER_MANAGER role. */
  pats?: string[];
  /** Personal access tokens of a service user without any role (PERMISSION_DENIED AUTH-AWfge). */
  patsWithoutRole?: string[];
  serviceAccount?: ServiceAccount;
  /** Lifetime of the access tokens of the token endpoint (default 43199, as Zitadel's). */
  tokenLifetimeSeconds?: number;
  passwordPolicy?: Partial<PasswordPolicy>;
}

export interface ZitadelServer {
  /** http://127.0.0.1:<port>: the API, the issuer and its token endpoint. */
  url: string;
  users: Map<string, ZitadelUser>;
  requests: RecordedRequest[];
  tokenRequests: TokenRequestRecord[];
  failure: FailureMode;
  /** A wrong current password comes with a `CredentialsCheckError` detail instead of an `ErrorDetail`. */
  wrongPasswordAsCredentialsCheck: boolean;
  /** Forgets every access token issued so far (as after a key rotation): the next call with one gets UNAUTHENTICATED. */
  revokeIssuedTokens(): void;
  close(): Promise<void>;
}

const RECORD = createContextKey<RecordedRequest | undefined>(undefined, { description: 'the recorded request' });

/** A Zitadel error as its connect server writes it: `<message> (<ID>)` and the detail. */
function zitadelError(code: Code, id: string, message: string, desc: DescMessage = ErrorDetailSchema): ConnectError {
  return new ConnectError(`${message} (${id})`, code, undefined, [{ desc, value: { id, message } }]);
}

function json(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

const FACTOR_METHOD = { otp: AuthenticationMethodType.TOTP, u2f: AuthenticationMethodType.U2F, otpSms: AuthenticationMethodType.OTP_SMS, otpEmail: AuthenticationMethodType.OTP_EMAIL } as const;
const RECOVERY_CODE = 8 as AuthenticationMethodType; // AUTHENTICATION_METHOD_TYPE_RECOVERY_CODE of later definitions
const ready = (state: FactorState | undefined) => (state ?? 'AUTH_FACTOR_STATE_READY') === 'AUTH_FACTOR_STATE_READY';

export async function startZitadelServer(options: ZitadelServerOptions = {}): Promise<ZitadelServer> {
  const users = new Map((options.users ?? []).map((user) => [user.id, structuredClone({ state: 'USER_STATE_ACTIVE' as ZitadelUserState, ...user })]));
  const pats = new Set(options.pats ?? []);
  const patsWithoutRole = new Set(options.patsWithoutRole ?? []);
  const policy: PasswordPolicy = { minLength: 8, hasNumber: true, hasSymbol: false, ...options.passwordPolicy };
  const issued = new Map<string, number>(); // access token → expiry (ms)
  const requests: RecordedRequest[] = [];
  const tokenRequests: TokenRequestRecord[] = [];
  let url = '';

  const state: ZitadelServer = {
    url: '',
    users,
    requests,
    tokenRequests,
    failure: { kind: 'none' },
    wrongPasswordAsCredentialsCheck: false,
    revokeIssuedTokens: () => issued.clear(),
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };

  /** Zitadel's chain, in its order: the failure modes stand for the provider failing as a whole. */
  const record: Interceptor = (next) => async (req) => {
    const entry = req.contextValues.get(RECORD);
    if (entry && !req.stream) {
      entry.rpc = req.method.name;
      entry.message = toJson(req.method.input, req.message, { alwaysEmitImplicit: true }) as JsonObject;
    }
    return next(req);
  };
  const failures: Interceptor = (next) => async (req) => {
    const failure = state.failure;
    if (failure.kind === 'status') {
      if (failure.status === 429) throw zitadelError(Code.ResourceExhausted, 'QUOTA-vjAy8', 'Quota exceeded');
      throw zitadelError(failure.status === 503 ? Code.Unavailable : Code.Internal, 'INTERNAL-0j6bk', 'Errors.Internal');
    }
    return next(req);
  };
  const authenticate: Interceptor = (next) => async (req) => {
    const token = /^Bearer (.+)$/.exec(req.header.get('authorization') ?? '')?.[1];
    const expiresAt = token ? issued.get(token) : undefined;
    const known = token !== undefined && (pats.has(token) || patsWithoutRole.has(token) || (expiresAt !== undefined && expiresAt > Date.now()));
    if (!known) throw zitadelError(Code.Unauthenticated, 'AUTH-7fs1e', 'Errors.Token.Invalid');
    return next(req);
  };
  const validate: Interceptor = (next) => async (req) => {
    const problem = req.stream ? 'streaming calls are not served here' : violation(req.method.input, req.message);
    if (problem) {
      const entry = req.contextValues.get(RECORD);
      if (entry) entry.invalid = problem;
      throw new ConnectError(problem, Code.InvalidArgument);
    }
    return next(req);
  };

  /** The target user, checked before the caller's permission (research §1c). */
  function target(userId: string, notFoundId: string, notFoundMessage = 'User could not be found'): ZitadelUser {
    const user = users.get(userId);
    if (!user) throw zitadelError(Code.NotFound, notFoundId, notFoundMessage);
    return user;
  }
  function permitted(header: Headers): void {
    const token = /^Bearer (.+)$/.exec(header.get('authorization') ?? '')?.[1];
    if (token && patsWithoutRole.has(token)) throw zitadelError(Code.PermissionDenied, 'AUTH-AWfge', 'No matching permissions found');
  }
  const objectDetails = () => ({ sequence: BigInt(Date.now()), resourceOwner: '259100000000000001' });

  const routes = (router: ConnectRouter) => router.service(UserService, {
    listAuthenticationMethodTypes(req, context) {
      const user = target(req.userId, 'QUERY-Dfbg2');
      permitted(context.requestHeader);
      const types: AuthenticationMethodType[] = [];
      if (user.password !== undefined) types.push(AuthenticationMethodType.PASSWORD);
      if (user.passkeys?.some((p) => ready(p.state))) types.push(AuthenticationMethodType.PASSKEY);
      if (user.idpLinks?.length) types.push(AuthenticationMethodType.IDP);
      for (const factor of user.factors ?? []) types.push(FACTOR_METHOD[factor.type]);
      if (user.recoveryCodes) types.push(RECOVERY_CODE);
      const unique = [...new Set(types)];
      return { details: { totalResult: BigInt(unique.length) }, authMethodTypes: unique };
    },
    listPasskeys(req, context) {
      const user = target(req.userId, 'QUERY-Dfbg2');
      permitted(context.requestHeader);
      const result = (user.passkeys ?? []).map((p) => ({ id: p.id, name: p.name, state: ready(p.state) ? AuthFactorState.READY : AuthFactorState.NOT_READY }));
      return { details: { totalResult: BigInt(result.length) }, result };
    },
    listIDPLinks(req, context) {
      const user = target(req.userId, 'QUERY-Dfbg2');
      permitted(context.requestHeader);
      const result = (user.idpLinks ?? []).slice(Number(req.query?.offset ?? 0n), req.query?.limit ? Number(req.query.offset ?? 0n) + req.query.limit : undefined);
      return { details: { totalResult: BigInt(user.idpLinks?.length ?? 0) }, result };
    },
    listAuthenticationFactors(req, context) {
      const user = target(req.userId, 'QUERY-Dfbg2');
      permitted(context.requestHeader);
      // Without filters: every factor type, in state READY (internal/api/grpc/user/v2 ListAuthenticationFactors).
      const result = (user.factors ?? [])
        .filter((factor) => factor.type !== 'u2f' || ready(factor.state))
        .map((factor) => ({
          state: AuthFactorState.READY,
          type: factor.type === 'u2f' ? { case: 'u2f' as const, value: { id: factor.id, name: factor.name } } : ({ case: factor.type, value: {} } as { case: 'otp'; value: object }),
        }));
      return { result };
    },
    setPassword(req, context) {
      const user = target(req.userId, 'COMMAND-G8dh3', 'Password not found');
      const next = req.newPassword?.password ?? '';
      if (req.verification.case !== 'currentPassword') {
        // Without the current password (an administrator's set, or a reset code): not scripted here.
        permitted(context.requestHeader);
        throw zitadelError(Code.Unimplemented, 'TEST-nocode', 'this fake changes passwords with the current one only');
      }
      const current = req.verification.value;
      if (next === '') throw zitadelError(Code.InvalidArgument, 'COMMAND-3M0fs', 'Password is empty');
      if (user.state === 'USER_STATE_INITIAL') throw zitadelError(Code.FailedPrecondition, 'COMMAND-M9dse', 'User is not yet initialized');
      if (user.password === undefined) throw zitadelError(Code.FailedPrecondition, 'COMMAND-Fds3s', 'User has not set a password');
      if (current !== user.password) {
        throw zitadelError(Code.InvalidArgument, 'COMMAND-3M0fs', 'Password is invalid', state.wrongPasswordAsCredentialsCheck ? CredentialsCheckErrorSchema : ErrorDetailSchema);
      }
      if (next === user.password) throw zitadelError(Code.FailedPrecondition, 'COMMAND-Aesh5', 'New password cannot be the same as your current password');
      if ([...next].length < policy.minLength) throw zitadelError(Code.InvalidArgument, 'DOMAIN-HuJf6', 'Password is too short');
      if (policy.hasNumber && !/\d/.test(next)) throw zitadelError(Code.InvalidArgument, 'DOMAIN-ZBv4H', 'Password must contain number');
      if (policy.hasSymbol && !/[^\p{L}\p{N}]/u.test(next)) throw zitadelError(Code.InvalidArgument, 'DOMAIN-ZDLwA', 'Password must contain symbol');
      user.password = next;
      return { details: objectDetails() };
    },
    deactivateUser(req, context) {
      const user = target(req.userId, 'COMMAND-5gp2p62iin');
      if (user.state === 'USER_STATE_INACTIVE') throw zitadelError(Code.FailedPrecondition, 'COMMAND-5gunjw0cd7', 'User already inactive');
      if (user.state === 'USER_STATE_INITIAL') throw zitadelError(Code.FailedPrecondition, 'COMMAND-gvx4kct9r2', 'User with state initial can only be deleted not deactivated');
      permitted(context.requestHeader);
      user.state = 'USER_STATE_INACTIVE';
      return { details: objectDetails() };
    },
    deleteUser(req, context) {
      target(req.userId, 'COMMAND-uss1z');
      permitted(context.requestHeader);
      users.delete(req.userId);
      return { details: objectDetails() };
    },
  });

  const entries = new WeakMap<IncomingMessage, RecordedRequest>();
  const rpcHandler = connectNodeAdapter({
    routes,
    interceptors: [record, failures, authenticate, validate],
    contextValues: (req) => createContextValues().set(RECORD, entries.get(req as IncomingMessage)),
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const target = new URL(req.url ?? '/', 'http://zitadel.test');
    const header = (name: string) => req.headers[name] as string | undefined;
    const entry: RecordedRequest = {
      method: req.method ?? '', path: target.pathname, rpc: undefined, message: undefined, invalid: undefined,
      authorization: header('authorization'), contentType: header('content-type'),
      connectProtocolVersion: header('connect-protocol-version'), connectTimeoutMs: header('connect-timeout-ms'),
    };
    requests.push(entry);
    entries.set(req, entry);

    const failure = state.failure;
    if (failure.kind === 'slow') await new Promise((resolve) => setTimeout(resolve, failure.delayMs));
    if (res.destroyed) return;
    if (failure.kind === 'huge') {
      // Chunked, without Content-Length: the reader has to count.
      res.writeHead(200, { 'Content-Type': 'application/proto' });
      for (let sent = 0; sent < failure.bytes && !res.destroyed; sent += 1024) res.write(Buffer.alloc(1024, 0x0a));
      res.end();
      return;
    }
    if (failure.kind === 'gzip') {
      const body = gzipSync(Buffer.alloc(failure.bytes, 0x0a));
      res.writeHead(200, { 'Content-Type': 'application/proto', 'Content-Encoding': 'gzip', 'Content-Length': body.length });
      res.end(body);
      return;
    }
    if (failure.kind === 'html') {
      res.writeHead(failure.status, { 'Content-Type': 'text/html' });
      res.end(`<html><body><h1>${failure.status} Bad Gateway</h1></body></html>`);
      return;
    }
    if (target.pathname === '/.well-known/openid-configuration' && req.method === 'GET') {
      if (failure.kind === 'status') return json(res, 500, { error: 'server_error' });
      json(res, 200, { issuer: url, token_endpoint: `${url}/oauth/v2/token`, jwks_uri: `${url}/oauth/v2/keys`, grant_types_supported: ['urn:ietf:params:oauth:grant-type:jwt-bearer'] });
      return;
    }
    if (target.pathname === '/oauth/v2/token' && req.method === 'POST') {
      if (failure.kind === 'status') return json(res, 500, { error: 'server_error' });
      await tokenEndpoint(req, res, await readBody(req));
      return;
    }
    // Everything else is the connect server's: an RPC path, or its plain 404.
    rpcHandler(req, res);
  }

  /** Zitadel's token endpoint for a service user's JWT-profile grant (RFC 7523). */
  async function tokenEndpoint(req: IncomingMessage, res: ServerResponse, text: string): Promise<void> {
    const form = Object.fromEntries(new URLSearchParams(text));
    const record: TokenRequestRecord = { form, header: undefined, claims: undefined, outcome: 'refused' };
    tokenRequests.push(record);
    const refuse = (description: string) => json(res, 400, { error: 'invalid_grant', error_description: description });
    const account = options.serviceAccount;
    if (!(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) return refuse('form expected');
    if (form.grant_type !== 'urn:ietf:params:oauth:grant-type:jwt-bearer') return json(res, 400, { error: 'unsupported_grant_type' });
    const scopes = (form.scope ?? '').split(' ');
    if (!scopes.includes('openid') || !scopes.includes('urn:zitadel:iam:org:project:id:zitadel:aud')) return refuse('the API audience scope is missing');
    if (!account || !form.assertion) return refuse('no assertion');
    try {
      record.header = decodeProtectedHeader(form.assertion) as Record<string, unknown>;
      record.claims = decodeJwt(form.assertion);
    } catch {
      return refuse('malformed assertion');
    }
    if (record.header.kid !== account.keyId) return refuse('unknown key');
    try {
      const { payload } = await jwtVerify(form.assertion, account.publicKey, { algorithms: ['RS256'], issuer: account.userId, subject: account.userId, audience: url });
      if (typeof payload.iat !== 'number' || typeof payload.exp !== 'number' || payload.exp - payload.iat > 3600) return refuse('assertion lives too long');
    } catch {
      return refuse('assertion invalid');
    }
    const accessToken = randomBytes(24).toString('base64url');
    const lifetime = options.tokenLifetimeSeconds ?? 43199;
    issued.set(accessToken, Date.now() + lifetime * 1000);
    record.outcome = 'issued';
    json(res, 200, { access_token: accessToken, token_type: 'Bearer', expires_in: lifetime });
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) json(res, 500, { code: 'internal', message: `test server failure: ${String(error)}` });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.url = url;
  return state;
}
