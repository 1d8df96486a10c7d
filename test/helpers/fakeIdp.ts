// A small, fully scriptable OpenID provider for negative tests of the gateway's
// relying-party side. Unlike the dev IdP (oidc-provider, always correct), this one
// answers with whatever a test scripts: tokens signed with the wrong algorithm or
// key, wrong claims, OAuth errors, 500s, or no answer at all.
//
// Endpoints (all on 127.0.0.1, a port picked by the OS unless one is given):
//   GET  /.well-known/openid-configuration   discovery (RFC 8414 / OIDC Discovery)
//   GET  /jwks                               the currently published public keys
//   GET  /authorize                          records the request and redirects back with code, state, iss
//   POST /token                              client_secret_basic, authorization_code, redirect_uri, PKCE S256
//   POST /introspect                         RFC 7662, scripted per token (scriptIntrospection)
//
// What it checks is what a real provider checks, so that a passing baseline proves the
// gateway sends a conformant token request (right client credentials, the redirect_uri of
// the authorization request, a code_verifier that matches the recorded code_challenge).

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';

/** How a scripted JWT is signed. */
export type SigningMode =
  /** RS256 with the provider's current key (published in /jwks). */
  | 'rs256'
  /** RS256 with a key whose kid is not (or no longer) published. */
  | 'unknown-kid'
  /** `alg: none`, empty signature. */
  | 'none'
  /** HS256 with the client secret as the HMAC key. */
  | 'hs256'
  /** Header names the current kid, but the signature is made with another private key. */
  | 'bad-signature'
  /** RS256 with the current key, but a `typ` header of the other token kind (at+jwt on an ID token, JWT on an access token). */
  | 'wrong-typ';

/** Claim overrides: a value replaces the default claim, `undefined` removes it. */
export type ClaimOverrides = Record<string, unknown>;

export interface JwtScript {
  claims?: ClaimOverrides;
  signing?: SigningMode;
  /** Explicit `typ` header (wins over the signing mode's default). */
  typ?: string;
  /** Extra protected header parameters. */
  header?: Record<string, unknown>;
}

/**
 * An introspection answer (RFC 7662 §2.2). For an active token the defaults are iss, client_id,
 * aud (the access token audience), exp, iat and token_type Bearer; a member set to `undefined`
 * is left out of the answer. Any other member (e.g. Zitadel's roles claims) is sent as given.
 */
export interface IntrospectionScript {
  active: boolean;
  sub?: string;
  scope?: string;
  aud?: string | string[];
  client_id?: string;
  exp?: number;
  iss?: string;
  token_type?: string;
  [member: string]: unknown;
}

export type AccessTokenScript =
  | ({ format?: 'jwt' } & JwtScript)
  | { format: 'opaque'; value?: string; introspection: IntrospectionScript };

export type TokenScript =
  | {
      kind?: 'tokens';
      /** `null` leaves the id_token out of the response. */
      idToken?: JwtScript | null;
      accessToken?: AccessTokenScript;
      /** `scope` member of the token response. */
      scope?: string;
    }
  | { kind: 'oauth-error'; error: string; status?: number; description?: string }
  | { kind: 'server-error'; status?: number }
  /** Accepts the request and never answers (until close()). */
  | { kind: 'hang' };

export interface AuthorizeBehaviour {
  /** `iss` on the redirect back: the issuer (default), `null` to leave it out, or any string. */
  iss?: string | null;
  /** Answer with this OAuth error (e.g. access_denied) instead of a code. */
  error?: string;
}

export interface AuthorizeRecord {
  clientId: string | null;
  redirectUri: string | null;
  responseType: string | null;
  scope: string | null;
  state: string | null;
  nonce: string | null;
  codeChallenge: string | null;
  codeChallengeMethod: string | null;
  /** Every query parameter as received. */
  query: Record<string, string[]>;
  /** The code issued (null when an error was returned). */
  code: string | null;
}

export interface TokenRequestRecord {
  code: string | null;
  /** null when the request passed every check; otherwise why it was refused. */
  refusal: string | null;
  scripted: TokenScript['kind'] | 'tokens' | null;
}

export interface FakeIdpOptions {
  clientId: string;
  clientSecret: string;
  /** Listen on this port (0 = any free port). */
  port?: number;
  /** `authorization_response_iss_parameter_supported` in discovery (default true). */
  issParameterSupported?: boolean;
  /** Default subject of issued tokens. */
  defaultSub?: string;
  /** Default access token `aud`. */
  accessTokenAudience?: string | string[];
  /**
   * `acr_values_supported` in discovery (none by default, as Zitadel's). The provider records the
   * `max_age`, `prompt` and `acr_values` it is sent (AuthorizeRecord.query) and, like a provider
   * that ignores them, issues tokens as scripted: a test scripts `auth_time` and `amr`.
   */
  acrValuesSupported?: string[];
}

export interface FakeIdp {
  readonly issuer: string;
  readonly port: number;
  readonly clientId: string;
  readonly clientSecret: string;
  /** Discovery and JWKS fetches seen so far (for "refetched" assertions). */
  readonly counters: { discovery: number; jwks: number; token: number; introspection: number; authorize: number };
  /** Introspection requests being answered right now, and the most seen at once. */
  readonly introspectionLoad: { inFlight: number; maxInFlight: number };
  /** Delay before each introspection answer (to observe concurrency), default 0. */
  introspectionDelayMs: number;
  /** The status /jwks answers with (200 by default; anything else with an error body, a provider failing). */
  jwksStatus: number;
  /** What /introspect answers for this token (e.g. for Bearer tests); unknown tokens are inactive. */
  scriptIntrospection(token: string, script: IntrospectionScript): void;
  readonly authorizeRequests: AuthorizeRecord[];
  readonly tokenRequests: TokenRequestRecord[];
  /** `authorization_response_iss_parameter_supported` in discovery, changeable at runtime. */
  issParameterSupported: boolean;
  /** The kid currently used for `rs256` signing. */
  readonly currentKid: string;
  /** kids currently published in /jwks. */
  publishedKids(): string[];
  /** Make a new key, publish it and sign with it from now on; `dropOld` unpublishes every previous key. */
  rotateKey(options?: { dropOld?: boolean }): Promise<string>;
  /** How the next /authorize answers (a queue; defaults apply when empty). */
  nextAuthorize(behaviour: AuthorizeBehaviour): void;
  /** What /token answers for the code the next /authorize issues (a queue; valid tokens when empty). */
  scriptNext(script: TokenScript): void;
  /** What /token answers for this code (overrides the queue). */
  scriptCode(code: string, script: TokenScript): void;
  /**
   * Follows an authorize URL (the gateway's Location) to this provider and returns where the
   * provider redirected the browser, i.e. the gateway callback URL with code/state/iss.
   */
  authorize(authorizeUrl: string): Promise<URL>;
  /** Sign a JWT the way /token would, e.g. for Bearer tests. */
  signJwt(claims: Record<string, unknown>, script?: JwtScript & { kind?: 'id' | 'access' }): Promise<string>;
  /**
   * A logout token (Back-Channel Logout 1.0 §2.4) for this provider's client: iss, aud (the client
   * id), iat now, exp in 2 minutes, a fresh jti and the back-channel logout event, typ logout+jwt,
   * RS256 with the current key. `claims` add to or override them (`undefined` removes one): give
   * the `sid` and/or `sub`. `script` signs it otherwise (bad signature, alg none, another typ…).
   */
  logoutToken(claims?: ClaimOverrides, script?: JwtScript): Promise<string>;
  /** Stop listening and drop every open connection (hanging token requests included). */
  close(): Promise<void>;
  /** Listen again on the same port after close() (keys and scripts are kept). */
  reopen(): Promise<void>;
}

interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
  publicJwk: JWK;
}

interface IssuedCode {
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  codeChallengeMethod: string;
  nonce: string | null;
  scope: string;
  script: TokenScript | undefined;
  used: boolean;
}

const nowSeconds = () => Math.floor(Date.now() / 1000);
const b64url = (input: Buffer | string) => Buffer.from(input).toString('base64url');

async function newSigningKey(): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const kid = `k-${randomBytes(6).toString('hex')}`;
  const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' };
  return { kid, privateKey, publicJwk };
}

function applyOverrides(defaults: Record<string, unknown>, overrides: ClaimOverrides | undefined): Record<string, unknown> {
  const claims: Record<string, unknown> = { ...defaults };
  for (const [name, value] of Object.entries(overrides ?? {})) {
    if (value === undefined) delete claims[name];
    else claims[name] = value;
  }
  return claims;
}

function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/** RFC 6749 §2.3.1: both parts are form-urlencoded before the Basic encoding. */
function parseBasic(header: string | undefined): { id: string; secret: string } | null {
  const match = /^Basic ([A-Za-z0-9+/=]+)$/i.exec(header ?? '');
  if (!match?.[1]) return null;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return null;
  const dec = (s: string) => decodeURIComponent(s.replace(/\+/g, ' '));
  try {
    return { id: dec(decoded.slice(0, colon)), secret: dec(decoded.slice(colon + 1)) };
  } catch {
    return null;
  }
}

async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store', ...headers });
  res.end(JSON.stringify(body));
}

export async function startFakeIdp(options: FakeIdpOptions): Promise<FakeIdp> {
  const { clientId, clientSecret } = options;
  const defaultSub = options.defaultSub ?? 'fake-user-1';
  let keys: SigningKey[] = [await newSigningKey()];
  let current = keys[0]!;
  const imposter = await newSigningKey(); // never published: bad signatures and unknown kids
  const codes = new Map<string, IssuedCode>();
  const codeScripts = new Map<string, TokenScript>();
  const scriptQueue: TokenScript[] = [];
  const authorizeQueue: AuthorizeBehaviour[] = [];
  const introspection = new Map<string, IntrospectionScript>();
  const sockets = new Set<Socket>();
  const counters = { discovery: 0, jwks: 0, token: 0, introspection: 0, authorize: 0 };
  const introspectionLoad = { inFlight: 0, maxInFlight: 0 };
  const authorizeRequests: AuthorizeRecord[] = [];
  const tokenRequests: TokenRequestRecord[] = [];

  let port = options.port ?? 0;
  let issuer = '';

  async function sign(claims: Record<string, unknown>, script: JwtScript, kind: 'id' | 'access'): Promise<string> {
    const mode = script.signing ?? 'rs256';
    const defaultTyp = kind === 'access' ? 'at+jwt' : 'JWT';
    const wrongTyp = kind === 'access' ? 'JWT' : 'at+jwt';
    const typ = script.typ ?? (mode === 'wrong-typ' ? wrongTyp : defaultTyp);
    if (mode === 'none') {
      const header = { alg: 'none', typ, ...script.header };
      return `${b64url(JSON.stringify(header))}.${b64url(JSON.stringify(claims))}.`;
    }
    if (mode === 'hs256') {
      return new SignJWT(claims).setProtectedHeader({ alg: 'HS256', typ, ...script.header }).sign(new TextEncoder().encode(clientSecret));
    }
    const signer = mode === 'bad-signature' || mode === 'unknown-kid' ? imposter : current;
    const kid = mode === 'bad-signature' ? current.kid : signer.kid;
    return new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid, typ, ...script.header }).sign(signer.privateKey);
  }

  async function tokensFor(issued: IssuedCode, script: Extract<TokenScript, { kind?: 'tokens' }>) {
    const now = nowSeconds();
    const sub = defaultSub;
    const response: Record<string, unknown> = { token_type: 'Bearer', expires_in: 300, scope: script.scope ?? issued.scope };

    const accessScript = script.accessToken ?? {};
    if (accessScript.format === 'opaque') {
      const value = accessScript.value ?? `opaque_${randomBytes(24).toString('base64url')}`;
      introspection.set(value, accessScript.introspection);
      response.access_token = value;
    } else {
      const defaults: Record<string, unknown> = {
        iss: issuer,
        sub,
        aud: options.accessTokenAudience ?? options.clientId,
        client_id: clientId,
        iat: now,
        exp: now + 300,
        jti: randomBytes(8).toString('hex'),
        scope: issued.scope,
      };
      response.access_token = await sign(applyOverrides(defaults, accessScript.claims), accessScript, 'access');
    }

    if (script.idToken !== null) {
      const idScript = script.idToken ?? {};
      const defaults: Record<string, unknown> = {
        iss: issuer,
        sub,
        aud: clientId,
        iat: now,
        exp: now + 300,
        auth_time: now,
        ...(issued.nonce !== null ? { nonce: issued.nonce } : {}),
        email: `${sub}@example.test`,
        email_verified: true,
        name: 'Fake User',
      };
      response.id_token = await sign(applyOverrides(defaults, idScript.claims), idScript, 'id');
    }
    return response;
  }

  async function handleToken(req: IncomingMessage, res: ServerResponse): Promise<void> {
    counters.token++;
    const form = await readForm(req);
    const code = form.get('code');
    const refuse = (status: number, error: string, why: string) => {
      tokenRequests.push({ code, refusal: why, scripted: null });
      sendJson(res, status, { error, error_description: why }, status === 401 ? { 'WWW-Authenticate': 'Basic realm="fake-idp"' } : {});
    };
    const caller = parseBasic(req.headers.authorization);
    if (!caller || caller.id !== clientId || !safeEqual(caller.secret, clientSecret)) return refuse(401, 'invalid_client', 'client_secret_basic failed');
    if (form.has('client_secret')) return refuse(400, 'invalid_request', 'more than one client authentication method');
    if (form.get('grant_type') !== 'authorization_code') return refuse(400, 'unsupported_grant_type', 'grant_type must be authorization_code');
    const issued = code ? codes.get(code) : undefined;
    if (!code || !issued) return refuse(400, 'invalid_grant', 'unknown code');
    if (issued.used) return refuse(400, 'invalid_grant', 'code already used');
    issued.used = true;
    if (form.get('redirect_uri') !== issued.redirectUri) return refuse(400, 'invalid_grant', 'redirect_uri differs from the authorization request');
    const verifier = form.get('code_verifier');
    if (!verifier || !/^[A-Za-z0-9._~-]{43,128}$/.test(verifier)) return refuse(400, 'invalid_grant', 'code_verifier missing or malformed');
    if (issued.codeChallengeMethod !== 'S256') return refuse(400, 'invalid_grant', 'only S256 is supported');
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    if (!safeEqual(challenge, issued.codeChallenge)) return refuse(400, 'invalid_grant', 'PKCE verification failed');

    const script = codeScripts.get(code) ?? issued.script ?? {};
    const kind = script.kind ?? 'tokens';
    tokenRequests.push({ code, refusal: null, scripted: kind });
    switch (script.kind) {
      case 'oauth-error':
        sendJson(res, script.status ?? 400, { error: script.error, ...(script.description ? { error_description: script.description } : {}) });
        return;
      case 'server-error':
        res.writeHead(script.status ?? 500, { 'Content-Type': 'text/plain' });
        res.end('internal error');
        return;
      case 'hang':
        return; // never answered; close() drops the socket
      default:
        sendJson(res, 200, await tokensFor(issued, script));
    }
  }

  async function handleIntrospection(req: IncomingMessage, res: ServerResponse): Promise<void> {
    counters.introspection++;
    introspectionLoad.inFlight++;
    introspectionLoad.maxInFlight = Math.max(introspectionLoad.maxInFlight, introspectionLoad.inFlight);
    try {
      if (fake.introspectionDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, fake.introspectionDelayMs));
      await answerIntrospection(req, res);
    } finally {
      introspectionLoad.inFlight--;
    }
  }

  async function answerIntrospection(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const form = await readForm(req);
    const caller = parseBasic(req.headers.authorization);
    if (!caller || caller.id !== clientId || !safeEqual(caller.secret, clientSecret)) {
      sendJson(res, 401, { error: 'invalid_client' }, { 'WWW-Authenticate': 'Basic realm="fake-idp"' });
      return;
    }
    const token = form.get('token') ?? '';
    const script = introspection.get(token);
    if (!script || !script.active) {
      sendJson(res, 200, { active: false });
      return;
    }
    const now = nowSeconds();
    const aud = options.accessTokenAudience ?? clientId;
    sendJson(res, 200, { iss: issuer, client_id: clientId, aud, exp: now + 300, iat: now, token_type: 'Bearer', ...script });
  }

  function handleAuthorize(url: URL, res: ServerResponse): void {
    counters.authorize++;
    const q = url.searchParams;
    const query: Record<string, string[]> = {};
    for (const name of new Set(q.keys())) query[name] = q.getAll(name);
    const behaviour = authorizeQueue.shift() ?? {};
    const record: AuthorizeRecord = {
      clientId: q.get('client_id'),
      redirectUri: q.get('redirect_uri'),
      responseType: q.get('response_type'),
      scope: q.get('scope'),
      state: q.get('state'),
      nonce: q.get('nonce'),
      codeChallenge: q.get('code_challenge'),
      codeChallengeMethod: q.get('code_challenge_method'),
      query,
      code: null,
    };
    authorizeRequests.push(record);
    if (record.clientId !== clientId || !record.redirectUri) {
      // RFC 6749 §4.1.2.1: never redirect to an unverified redirect_uri.
      sendJson(res, 400, { error: 'invalid_request', error_description: 'unknown client or missing redirect_uri' });
      return;
    }
    const back = new URL(record.redirectUri);
    if (behaviour.error) {
      back.searchParams.set('error', behaviour.error);
    } else {
      const code = randomBytes(24).toString('base64url');
      record.code = code;
      codes.set(code, {
        clientId: record.clientId,
        redirectUri: record.redirectUri,
        codeChallenge: record.codeChallenge ?? '',
        codeChallengeMethod: record.codeChallengeMethod ?? 'plain',
        nonce: record.nonce,
        scope: record.scope ?? '',
        script: scriptQueue.shift(),
        used: false,
      });
      back.searchParams.set('code', code);
    }
    if (record.state !== null) back.searchParams.set('state', record.state);
    const iss = behaviour.iss === undefined ? issuer : behaviour.iss;
    if (iss !== null) back.searchParams.set('iss', iss);
    res.writeHead(302, { Location: back.href, 'Cache-Control': 'no-store' });
    res.end();
  }

  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', issuer || 'http://127.0.0.1');
    const route = `${req.method} ${url.pathname}`;
    const fail = (error: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { error: 'server_error', error_description: String(error) });
    };
    switch (route) {
      case 'GET /.well-known/openid-configuration':
        counters.discovery++;
        sendJson(res, 200, {
          issuer,
          authorization_endpoint: `${issuer}/authorize`,
          token_endpoint: `${issuer}/token`,
          jwks_uri: `${issuer}/jwks`,
          introspection_endpoint: `${issuer}/introspect`,
          response_types_supported: ['code'],
          grant_types_supported: ['authorization_code'],
          subject_types_supported: ['public'],
          scopes_supported: ['openid', 'profile', 'email'],
          id_token_signing_alg_values_supported: ['RS256'],
          token_endpoint_auth_methods_supported: ['client_secret_basic'],
          introspection_endpoint_auth_methods_supported: ['client_secret_basic'],
          code_challenge_methods_supported: ['S256'],
          authorization_response_iss_parameter_supported: fake.issParameterSupported,
          ...(options.acrValuesSupported ? { acr_values_supported: options.acrValuesSupported } : {}),
        });
        return;
      case 'GET /jwks':
        counters.jwks++;
        if (fake.jwksStatus !== 200) sendJson(res, fake.jwksStatus, { error: 'server_error' });
        else sendJson(res, 200, { keys: keys.map((key) => key.publicJwk) }, { 'Content-Type': 'application/jwk-set+json' });
        return;
      case 'GET /authorize':
        handleAuthorize(url, res);
        return;
      case 'POST /token':
        handleToken(req, res).catch(fail);
        return;
      case 'POST /introspect':
        handleIntrospection(req, res).catch(fail);
        return;
      default:
        sendJson(res, 404, { error: 'not_found' });
    }
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  async function listen(): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
    port = (server.address() as AddressInfo).port;
    issuer = `http://127.0.0.1:${port}`;
  }
  await listen();

  const fake: FakeIdp = {
    issParameterSupported: options.issParameterSupported ?? true,
    get issuer() {
      return issuer;
    },
    get port() {
      return port;
    },
    clientId,
    clientSecret,
    counters,
    introspectionLoad,
    introspectionDelayMs: 0,
    jwksStatus: 200,
    scriptIntrospection: (token: string, script: IntrospectionScript) => void introspection.set(token, script),
    authorizeRequests,
    tokenRequests,
    get currentKid() {
      return current.kid;
    },
    publishedKids: () => keys.map((key) => key.kid),
    async rotateKey(rotation: { dropOld?: boolean } = {}) {
      const next = await newSigningKey();
      keys = rotation.dropOld ? [next] : [...keys, next];
      current = next;
      return next.kid;
    },
    nextAuthorize: (behaviour: AuthorizeBehaviour) => void authorizeQueue.push(behaviour),
    scriptNext: (script: TokenScript) => void scriptQueue.push(script),
    scriptCode: (code: string, script: TokenScript) => void codeScripts.set(code, script),
    async authorize(authorizeUrl: string) {
      const target = new URL(authorizeUrl);
      if (target.origin !== new URL(issuer).origin) throw new Error(`not this provider's URL: ${authorizeUrl}`);
      const res = await fetch(target, { redirect: 'manual' });
      await res.arrayBuffer();
      const location = res.headers.get('location');
      if (res.status !== 302 || !location) throw new Error(`/authorize answered ${res.status} without a redirect`);
      return new URL(location);
    },
    signJwt: (claims: Record<string, unknown>, script: JwtScript & { kind?: 'id' | 'access' } = {}) => sign(claims, script, script.kind ?? 'access'),
    logoutToken(claims: ClaimOverrides = {}, script: JwtScript = {}) {
      const now = nowSeconds();
      const defaults: Record<string, unknown> = {
        iss: issuer,
        aud: clientId,
        iat: now,
        exp: now + 120,
        jti: randomBytes(12).toString('base64url'),
        events: { 'http://schemas.openid.net/event/backchannel-logout': {} },
      };
      return sign(applyOverrides(defaults, claims), { typ: 'logout+jwt', ...script }, 'id');
    },
    async close() {
      if (!server.listening) return;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      server.closeAllConnections();
      await closed;
    },
    reopen: listen,
  };
  return fake;
}
