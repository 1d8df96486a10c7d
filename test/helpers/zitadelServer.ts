// A local HTTP server that answers as Zitadel's published v2 user API does (shared/research/
// zitadel-api.md §0, §1, §1a-c, §2), for testing the gateway's Zitadel adapter over real HTTP:
// - grpc-gateway JSON: lowerCamelCase names, empty lists and zero values omitted, int64 values as
//   strings, enums as names; errors as `{code, message, details:[{@type, id, message}]}` with the
//   gRPC code mapped to the HTTP status; 404 `{code:5,"message":"Not Found"}` for unknown routes and
//   405 `{code:12}` for a wrong method;
// - the caller must send `Authorization: Bearer <token>`: a personal access token it was given, or
//   an access token from its own token endpoint, where a service user's JWT-profile assertion is
//   verified against the key file's public key (RS256, kid, iss = sub = userId, aud = issuer,
//   exp at most one hour after iat, grant and scope as Zitadel wants them);
// - scripted users (state, password, passkeys, IdP links, factors), a password policy, and
//   failure modes: slow, 500, 503; every request is recorded (bodies too, for the assertions).

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes, type KeyObject } from 'node:crypto';
import { decodeJwt, decodeProtectedHeader, jwtVerify, type JWTPayload } from 'jose';

export type ZitadelUserState = 'USER_STATE_ACTIVE' | 'USER_STATE_INACTIVE' | 'USER_STATE_INITIAL' | 'USER_STATE_LOCKED';

export interface ZitadelUser {
  id: string;
  state?: ZitadelUserState;
  /** Plain text here: this server stands in for the provider, which keeps the hash. */
  password?: string;
  passkeys?: Array<{ id: string; name: string; state?: string }>;
  idpLinks?: Array<{ idpId: string; userId: string; userName: string }>;
  /** Authentication factors: TOTP (`otp`), U2F security keys, OTP by SMS or e-mail. */
  factors?: Array<{ type: 'otp' | 'otpSms' | 'otpEmail' } | { type: 'u2f'; id: string; name: string; state?: string }>;
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
  query: string;
  authorization: string | undefined;
  contentType: string | undefined;
  body: unknown;
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
  /** A 200 JSON answer of this many bytes (a misbehaving proxy, or a huge list). */
  | { kind: 'huge'; bytes: number };

export interface ZitadelServerOptions {
  users?: ZitadelUser[];
  /** Personal access tokens with the ORG_USER_MANAGER role. */
  pats?: string[];
  /** Personal access tokens of a service user without any role (403 AUTH-AWfge). */
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
  /** Forgets every access token issued so far (as after a key rotation): the next call with one gets 401. */
  revokeIssuedTokens(): void;
  close(): Promise<void>;
}

const ERROR_DETAIL_TYPE = 'type.googleapis.com/zitadel.v1.ErrorDetail';
/** gRPC code → HTTP status (grpc-gateway HTTPStatusFromCode). */
const HTTP_STATUS: Record<number, number> = { 3: 400, 5: 404, 6: 409, 7: 403, 8: 429, 9: 400, 12: 501, 13: 500, 14: 503, 16: 401 };

function zitadelError(res: ServerResponse, code: number, id: string, message: string): void {
  json(res, HTTP_STATUS[code] ?? 500, { code, message: `${message} (${id})`, details: [{ '@type': ERROR_DETAIL_TYPE, id, message }] });
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

/** `details` of a list answer: int64 as strings, zero omitted. */
function listDetails(total: number): Record<string, unknown> {
  return { ...(total > 0 ? { totalResult: String(total) } : {}), timestamp: new Date().toISOString() };
}

let sequence = 100;
function objectDetails(): Record<string, unknown> {
  return { sequence: String(++sequence), changeDate: new Date().toISOString(), resourceOwner: '259100000000000001' };
}

export async function startZitadelServer(options: ZitadelServerOptions = {}): Promise<ZitadelServer> {
  const users = new Map((options.users ?? []).map((user) => [user.id, structuredClone({ state: 'USER_STATE_ACTIVE' as ZitadelUserState, ...user })]));
  const pats = new Set(options.pats ?? []);
  const patsWithoutRole = new Set(options.patsWithoutRole ?? []);
  const policy: PasswordPolicy = { minLength: 8, hasNumber: true, hasSymbol: false, ...options.passwordPolicy };
  const issued = new Map<string, number>(); // access token → expiry (ms)
  const requests: RecordedRequest[] = [];
  const tokenRequests: TokenRequestRecord[] = [];
  let url = '';

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) json(res, 500, { code: 13, message: `test server failure: ${String(error)}` });
    });
  });

  const state: ZitadelServer = {
    url: '',
    users,
    requests,
    tokenRequests,
    failure: { kind: 'none' },
    revokeIssuedTokens: () => issued.clear(),
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const target = new URL(req.url ?? '/', 'http://zitadel.test');
    const text = await readBody(req);
    let body: unknown = text;
    if ((req.headers['content-type'] ?? '').startsWith('application/json') && text) {
      try {
        body = JSON.parse(text);
      } catch {
        body = text;
      }
    }
    requests.push({ method: req.method ?? '', path: target.pathname, query: target.search, authorization: req.headers.authorization, contentType: req.headers['content-type'], body });

    const failure = state.failure;
    if (failure.kind === 'slow') await new Promise((resolve) => setTimeout(resolve, failure.delayMs));
    if (res.destroyed) return;
    if (failure.kind === 'huge') {
      // Chunked, without Content-Length: the reader has to count.
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write('{"details":{},"padding":"');
      for (let sent = 0; sent < failure.bytes && !res.destroyed; sent += 1024) res.write('x'.repeat(1024));
      res.end('"}');
      return;
    }
    if (failure.kind === 'status') {
      json(res, failure.status, failure.status === 429
        ? { code: 8, message: 'quota exceeded (QUOTA-vjAy8)' }
        : { code: failure.status === 503 ? 14 : 13, message: 'Errors.Internal (INTERNAL-0j6bk)', details: [{ '@type': ERROR_DETAIL_TYPE, id: 'INTERNAL-0j6bk', message: 'Errors.Internal' }] });
      return;
    }

    if (target.pathname === '/.well-known/openid-configuration' && req.method === 'GET') {
      json(res, 200, { issuer: url, token_endpoint: `${url}/oauth/v2/token`, jwks_uri: `${url}/oauth/v2/keys`, grant_types_supported: ['urn:ietf:params:oauth:grant-type:jwt-bearer'] });
      return;
    }
    if (target.pathname === '/oauth/v2/token' && req.method === 'POST') {
      await tokenEndpoint(req, res, text);
      return;
    }

    const match = /^\/v2\/users\/([^/]+)(\/.*)?$/.exec(target.pathname);
    if (!match) {
      json(res, 404, { code: 5, message: 'Not Found' });
      return;
    }
    // Authentication of the caller (every v2 call).
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const expiresAt = token ? issued.get(token) : undefined;
    const known = token !== undefined && (pats.has(token) || patsWithoutRole.has(token) || (expiresAt !== undefined && expiresAt > Date.now()));
    if (!known) {
      json(res, 401, { code: 16, message: 'Errors.Token.Invalid (AUTH-7fs1e)', details: [{ '@type': ERROR_DETAIL_TYPE, id: 'AUTH-7fs1e', message: 'Errors.Token.Invalid' }] });
      return;
    }
    const userId = decodeURIComponent(match[1]!);
    const rest = match[2] ?? '';
    const route = `${req.method} ${rest}`;
    const routes = ['GET /authentication_methods', 'POST /passkeys/_search', 'POST /links/_search', 'POST /authentication_factors/_search', 'POST /password', 'POST /deactivate', 'DELETE '];
    if (!routes.includes(route)) {
      const pathKnown = routes.some((r) => r.split(' ')[1] === rest);
      json(res, pathKnown ? 405 : 404, pathKnown ? { code: 12, message: 'Method Not Allowed' } : { code: 5, message: 'Not Found' });
      return;
    }
    const user = users.get(userId);
    // Existence and state are checked before permission (research §1c).
    if (!user) {
      const ids: Record<string, string> = { 'POST /deactivate': 'COMMAND-5gp2p62iin', 'DELETE ': 'COMMAND-uss1z', 'POST /password': 'COMMAND-G8dh3' };
      zitadelError(res, 5, ids[route] ?? 'QUERY-Dfbg2', route === 'POST /password' ? 'Password not found' : 'User could not be found');
      return;
    }
    if (patsWithoutRole.has(token!)) {
      zitadelError(res, 7, 'AUTH-AWfge', 'No matching permissions found');
      return;
    }

    switch (route) {
      case 'GET /authentication_methods': {
        const types: string[] = [];
        if (user.password !== undefined) types.push('AUTHENTICATION_METHOD_TYPE_PASSWORD');
        if (user.passkeys?.some((p) => (p.state ?? 'AUTH_FACTOR_STATE_READY') === 'AUTH_FACTOR_STATE_READY')) types.push('AUTHENTICATION_METHOD_TYPE_PASSKEY');
        if (user.idpLinks?.length) types.push('AUTHENTICATION_METHOD_TYPE_IDP');
        const factorTypes: Record<string, string> = { otp: 'AUTHENTICATION_METHOD_TYPE_TOTP', u2f: 'AUTHENTICATION_METHOD_TYPE_U2F', otpSms: 'AUTHENTICATION_METHOD_TYPE_OTP_SMS', otpEmail: 'AUTHENTICATION_METHOD_TYPE_OTP_EMAIL' };
        for (const factor of user.factors ?? []) types.push(factorTypes[factor.type]!);
        if (user.recoveryCodes) types.push('AUTHENTICATION_METHOD_TYPE_RECOVERY_CODE');
        json(res, 200, { details: listDetails(types.length), ...(types.length ? { authMethodTypes: [...new Set(types)] } : {}) });
        return;
      }
      case 'POST /passkeys/_search': {
        const result = (user.passkeys ?? []).map((p) => ({ id: p.id, state: p.state ?? 'AUTH_FACTOR_STATE_READY', name: p.name }));
        json(res, 200, { details: listDetails(result.length), ...(result.length ? { result } : {}) });
        return;
      }
      case 'POST /links/_search': {
        const result = (user.idpLinks ?? []).map((l) => ({ idpId: l.idpId, userId: l.userId, userName: l.userName }));
        json(res, 200, { details: listDetails(result.length), ...(result.length ? { result } : {}) });
        return;
      }
      case 'POST /authentication_factors/_search': {
        // No body mapping: a body is ignored; without filters, every type in state READY.
        const result = (user.factors ?? [])
          .filter((f) => f.type !== 'u2f' || (f.state ?? 'AUTH_FACTOR_STATE_READY') === 'AUTH_FACTOR_STATE_READY')
          .map((f) => ({ state: 'AUTH_FACTOR_STATE_READY', ...(f.type === 'u2f' ? { u2f: { id: f.id, name: f.name } } : { [f.type]: {} }) }));
        json(res, 200, result.length ? { result } : {});
        return;
      }
      case 'POST /password': {
        const input = (body && typeof body === 'object' ? body : {}) as { newPassword?: { password?: unknown; changeRequired?: unknown }; currentPassword?: unknown };
        const next = input.newPassword?.password;
        const current = input.currentPassword;
        if (typeof next !== 'string' || next === '' || typeof current !== 'string' || current === '') {
          zitadelError(res, 3, 'COMMAND-3M0fs', 'Password is empty');
          return;
        }
        if (user.state === 'USER_STATE_INITIAL') {
          zitadelError(res, 9, 'COMMAND-M9dse', 'User is not yet initialized');
          return;
        }
        if (user.password === undefined) {
          zitadelError(res, 9, 'COMMAND-Fds3s', 'User has not set a password');
          return;
        }
        if (current !== user.password) {
          zitadelError(res, 3, 'COMMAND-3M0fs', 'Password is invalid');
          return;
        }
        if (next === user.password) {
          zitadelError(res, 9, 'COMMAND-Aesh5', 'New password cannot be the same as your current password');
          return;
        }
        if ([...next].length < policy.minLength) {
          zitadelError(res, 3, 'DOMAIN-HuJf6', 'Password is too short');
          return;
        }
        if (policy.hasNumber && !/\d/.test(next)) {
          zitadelError(res, 3, 'DOMAIN-ZBv4H', 'Password must contain number');
          return;
        }
        if (policy.hasSymbol && !/[^\p{L}\p{N}]/u.test(next)) {
          zitadelError(res, 3, 'DOMAIN-ZDLwA', 'Password must contain symbol');
          return;
        }
        user.password = next;
        json(res, 200, { details: objectDetails() });
        return;
      }
      case 'POST /deactivate': {
        if (user.state === 'USER_STATE_INACTIVE') {
          zitadelError(res, 9, 'COMMAND-5gunjw0cd7', 'User already inactive');
          return;
        }
        if (user.state === 'USER_STATE_INITIAL') {
          zitadelError(res, 9, 'COMMAND-gvx4kct9r2', 'User with state initial can only be deleted not deactivated');
          return;
        }
        user.state = 'USER_STATE_INACTIVE';
        json(res, 200, { details: objectDetails() });
        return;
      }
      case 'DELETE ': {
        users.delete(userId);
        json(res, 200, { details: objectDetails() });
        return;
      }
    }
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

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.url = url;
  return state;
}
