// The baseline of the benchmark: what a hand-written server on `node:http` and a
// `pg` Pool does for the same three endpoints (start, callback, exchange), with the same SQL statements (taken
// from the gateway's repository functions, see statements.ts), the same pool
// size, the same key ring and the same credential helpers. Validation is what a
// careful hand-written server would do, nothing more: no framework, no
// contract validation, no request logging, no security headers. The callback makes
// the same token request (fetch), verifies both tokens with `jose` as the gateway
// does (signature, iss, aud, exp, iat age, nonce, typ, client, subject), opens and
// seals the same AES-GCM values, and runs the same statements in the same
// transaction; the onboarding status comes from the gateway's own rule. As the gateway in
// production: `__Host-` cookies (Path=/), the platform's handoff challenge stored at start and
// its verifier checked by the exchange's statement, the provider over https.
//
// Started by run.ts (fork); not meant to be run by hand.

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { parseKeyRing, randomToken, s256Challenge, sha256 } from '../../src/security/crypto.ts';
import type { PlatformRow } from '../../src/services/registry/platformsRepository.ts';
import type { RedeemedHandoff } from '../../src/services/login/handoffsRepository.ts';
import { onboardingInputsOf, type OnboardingInputRow } from '../../src/services/onboarding/onboardingRepository.ts';
import type { LoginUserRow } from '../../src/services/account/usersRepository.ts';
import type { ConsumedTransaction } from '../../src/services/login/transactionsRepository.ts';
import { calculateStatus } from '../../src/services/onboarding/status.ts';
import { permissionsFromScope } from '../../src/oidc/permissions.ts';
import { addressSubject, statementRateLimit } from '../../src/services/rateLimits/rateLimits.ts';
import { statementLimitBindings } from '../../src/services/rateLimits/repository.ts';
import { loadConfig } from '../../src/config/index.ts';
import { PLATFORM_KEY_PATTERN as PLATFORM_KEY } from '../../src/services/registry/rules.ts';
import { captureGatewayStatements, queryFor } from './statements.ts';
import { BENCH_RATE_LIMITS, readSettings, reportFailure, serveUntilStopped } from './protocol.ts';

const TRANSACTION_TTL_SECONDS = 600;
const SESSION_TTL_SECONDS = 8 * 3600;
const HANDOFF_TTL_SECONDS = 60;
/** The production name (RFC 6265bis §4.1.3.2: Secure, Path=/, no Domain), as the gateway's. */
const COOKIE = '__Host-gw_session';
const HANDOFF_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
const HANDOFF_VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;
const BODY_LIMIT = 64 * 1024;

async function main(): Promise<void> {
  const settings = readSettings();
  const keyRing = parseKeyRing(settings.encryptionKeys);
  const statements = await captureGatewayStatements();
  // BENCH_PREPARED=false: unnamed, as the gateway with DATABASE_PREPARED_STATEMENTS=false.
  if (!settings.preparedStatements) for (const statement of Object.values(statements)) delete (statement as { name?: string }).name;
  const pool = new pg.Pool({ connectionString: settings.databaseUrl, max: settings.poolSize, application_name: 'bench-bare' });

  // Discovery once at boot, as any OIDC client does.
  const discovery = await fetch(new URL('/.well-known/openid-configuration', settings.issuer));
  if (!discovery.ok) throw new Error(`discovery answered ${discovery.status}`);
  const metadata = (await discovery.json()) as { issuer: string; authorization_endpoint: string; token_endpoint: string; jwks_uri: string };
  const authorizationEndpoint = metadata.authorization_endpoint;
  const jwks = createRemoteJWKSet(new URL(metadata.jwks_uri), { timeoutDuration: 5000, cooldownDuration: 0 });
  const clientAuthorization = `Basic ${Buffer.from(`${encodeURIComponent(settings.oidcClientId)}:${encodeURIComponent(settings.oidcClientSecret)}`).toString('base64')}`;
  const scope = settings.scopes.join(' ');

  // The limits of the gateway in this benchmark, counted in PostgreSQL (no REDIS_URL).
  const limitDeps = { config: { redisUrl: null, rateLimits: loadConfig({ NODE_ENV: 'test', ...BENCH_RATE_LIMITS }).rateLimits } } as Parameters<typeof statementRateLimit>[0];
  const limitFor = async (name: 'start' | 'callback', subject: string) => statementLimitBindings(await statementRateLimit(limitDeps, name, subject));

  async function start(req: IncomingMessage, url: URL, res: ServerResponse): Promise<void> {
    const platformKey = url.searchParams.get('platformKey');
    const rawReturnTo = url.searchParams.get('returnTo');
    const assertedMode = url.searchParams.get('onboardingMode');
    const handoffChallenge = url.searchParams.get('handoffChallenge');
    if (!platformKey || !PLATFORM_KEY.test(platformKey) || !rawReturnTo || rawReturnTo.length > 2048) return problem(res, 400);
    if (handoffChallenge !== null && !HANDOFF_CHALLENGE.test(handoffChallenge)) return problem(res, 400);

    const { rows } = await pool.query<PlatformRow & { rateLimitedUntil: number | null }>(
      queryFor(statements.activePlatform, { platformKey, ...(await limitFor('start', addressSubject(req.socket.remoteAddress))) }),
    );
    if (rows[0]!.rateLimitedUntil !== null) return problem(res, 429);
    const platform = rows[0]!.id ? rows[0] : undefined;
    if (!platform) return problem(res, 404);
    if (platform.handoffChallengeRequired && handoffChallenge === null) return problem(res, 400);
    const mode = assertedMode ?? platform.defaultOnboardingMode;
    if (mode !== platform.defaultOnboardingMode) return problem(res, 403);
    if (mode === 'central' && !platform.centralOnboardingEnabled) return problem(res, 409);
    if (!platform.callbackUrl || !platform.allowedReturnUrls[0]) return problem(res, 409);

    let returnTo: URL;
    try {
      returnTo = new URL(rawReturnTo, platform.allowedReturnUrls[0]);
    } catch {
      return problem(res, 400);
    }
    if (returnTo.username || returnTo.password || returnTo.hash || !/^https?:$/.test(returnTo.protocol)) return problem(res, 400);
    const allowed = platform.allowedReturnUrls.some((root) => {
      const base = new URL(root);
      return base.origin === returnTo.origin && (returnTo.pathname === '/' || returnTo.pathname.startsWith(base.pathname));
    });
    if (!allowed) return problem(res, 403);

    const id = randomUUID();
    const state = randomToken(32);
    const nonce = randomToken(32);
    const codeVerifier = randomToken(32);
    const browserBinding = randomToken(32);
    await pool.query(
      queryFor(statements.insertTransaction, {
        id,
        platformId: platform.id,
        stateDigest: sha256(state),
        nonceDigest: sha256(nonce),
        pkceVerifierSealed: keyRing.seal(codeVerifier, `auth_transactions:pkce_verifier:${id}`),
        nonceSealed: keyRing.seal(nonce, `auth_transactions:nonce:${id}`),
        onboardingMode: mode,
        platformCallbackUrl: platform.callbackUrl,
        returnTo: returnTo.href,
        browserBindingDigest: sha256(browserBinding),
        handoffChallenge,
        platformStateSealed: null,
        maxAgeSeconds: null,
        forceLogin: false,
        secondFactor: false,
        stepUpSub: null,
        ttlSeconds: TRANSACTION_TTL_SECONDS,
      }),
    );
    const query = new URLSearchParams({
      client_id: settings.oidcClientId,
      redirect_uri: settings.callbackUrl,
      response_type: 'code',
      scope,
      state,
      nonce,
      code_challenge: createHash('sha256').update(codeVerifier).digest('base64url'),
      code_challenge_method: 'S256',
    });
    res.writeHead(302, {
      location: `${authorizationEndpoint}?${query}`,
      'cache-control': 'no-store',
      // The same work as the gateway's start: the binding also carries its login's target, sealed (loginWayBack.ts).
      'set-cookie': `${COOKIE}_login_${id}=${browserBinding}.${keyRing.seal(JSON.stringify({ platformKey: platform.platformKey, returnTo: returnTo.href, handoffChallenge: handoffChallenge !== null }), `login_binding:target:${id}`)}; Max-Age=${TRANSACTION_TTL_SECONDS + 3600}; Path=/; HttpOnly; Secure; SameSite=Lax`,
    }).end();
  }

  async function callback(req: IncomingMessage, url: URL, res: ServerResponse): Promise<void> {
    const state = url.searchParams.get('state');
    if (!state) return problem(res, 400);
    const consumed = await pool.query<Omit<ConsumedTransaction, 'platform'> & { platform: ConsumedTransaction['platform'] & { createdAt: string }; rateLimitedUntil: number | null }>(
      queryFor(statements.consumeTransaction, { stateDigest: sha256(state), ...(await limitFor('callback', addressSubject(req.socket.remoteAddress))) }),
    );
    if (consumed.rows[0]!.rateLimitedUntil !== null) return problem(res, 429);
    const tx = consumed.rows[0]!.id ? consumed.rows[0] : undefined;
    if (!tx) return problem(res, 404);
    const bindingName = `${COOKIE}_login_${tx.id}`;
    const clearBinding = `${bindingName}=; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; Secure; SameSite=Lax`;
    const binding = cookieValue(req.headers.cookie, bindingName);
    if (!binding || !tx.browserBindingDigest || !timingSafeEqual(sha256(binding.split('.')[0]!), tx.browserBindingDigest)) return problem(res, 401, clearBinding);
    if (url.searchParams.get('error')) return problem(res, 401, clearBinding);
    const iss = url.searchParams.get('iss');
    if (iss !== null && iss !== metadata.issuer) return problem(res, 401, clearBinding);
    const code = url.searchParams.get('code');
    if (!code) return problem(res, 401, clearBinding);
    const codeVerifier = keyRing.open(tx.pkceVerifierSealed, `auth_transactions:pkce_verifier:${tx.id}`);
    const nonce = keyRing.open(tx.nonceSealed, `auth_transactions:nonce:${tx.id}`);

    const tokenResponse = await fetch(metadata.token_endpoint, {
      method: 'POST',
      headers: { authorization: clientAuthorization, 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: settings.callbackUrl, code_verifier: codeVerifier }).toString(),
      signal: AbortSignal.timeout(5000),
    });
    if (!tokenResponse.ok) return problem(res, tokenResponse.status >= 500 ? 503 : 401, clearBinding);
    const tokens = (await tokenResponse.json()) as { id_token?: unknown; access_token?: unknown; token_type?: unknown };
    if (typeof tokens.id_token !== 'string' || typeof tokens.access_token !== 'string' || String(tokens.token_type).toLowerCase() !== 'bearer') {
      return problem(res, 401, clearBinding);
    }
    const idToken = await jwtVerify(tokens.id_token, jwks, {
      algorithms: ['RS256'], issuer: metadata.issuer, audience: settings.oidcClientId,
      requiredClaims: ['sub', 'exp', 'iat'], maxTokenAge: 3600, clockTolerance: 30,
    }).catch(() => null);
    const claims = idToken?.payload;
    if (!claims || claims.nonce !== nonce || typeof claims.sub !== 'string' || (claims.azp !== undefined && claims.azp !== settings.oidcClientId)) {
      return problem(res, 401, clearBinding);
    }
    const accessToken = await jwtVerify(tokens.access_token, jwks, {
      algorithms: ['RS256', 'PS256', 'ES256', 'EdDSA'], issuer: metadata.issuer, audience: settings.oidcClientId,
      requiredClaims: ['sub', 'exp', 'aud'], clockTolerance: 30, typ: 'at+jwt',
    }).catch(() => null);
    const access = accessToken?.payload;
    if (!access || access.sub !== claims.sub || (access.client_id ?? access.azp) !== settings.oidcClientId || access.nonce !== undefined) {
      return problem(res, 401, clearBinding);
    }
    const platform = tx.platform;
    if (!platform.active || !platform.callbackUrl) return problem(res, 404, clearBinding);

    const sessionId = randomUUID();
    const sessionToken = `gws_${randomToken(32)}`;
    const handoffCode = `handoff_${randomToken(32)}`;
    // The same three statements as the gateway, none in an explicit transaction.
    const user = (await pool.query<LoginUserRow>(queryFor(statements.upsertLoginUser, {
      sub: claims.sub,
      email: typeof claims.email === 'string' ? claims.email : null,
      emailVerified: claims.email_verified === true,
      displayName: typeof claims.name === 'string' ? claims.name : null,
      givenName: typeof claims.given_name === 'string' ? claims.given_name : null,
      familyName: typeof claims.family_name === 'string' ? claims.family_name : null,
      platformId: platform.id,
    }))).rows[0]!;
    if (user.deletedAt) return problem(res, 403, clearBinding);
    const { fields, documents, graces } = onboardingInputsOf(
      (await pool.query<OnboardingInputRow>(queryFor(statements.activeFields, { platformId: platform.id, userId: user.id }))).rows,
    );
    const onboarding = calculateStatus(platform, fields, user.completedRequirementVersion, documents, graces);
    const created = (await pool.query<{ expiresAt: Date; handoffIssued: boolean }>(queryFor(statements.insertLoginSession, {
      id: sessionId,
      userId: user.id,
      tokenDigest: sha256(sessionToken),
      permissions: permissionsFromScope(typeof access.scope === 'string' ? access.scope : undefined),
      ttlSeconds: SESSION_TTL_SECONDS,
      userAgent: req.headers['user-agent']?.slice(0, 300) ?? null,
      ipPrefix: null,
      idpSid: typeof claims.sid === 'string' ? claims.sid : null,
      idTokenSealed: keyRing.seal(tokens.id_token, `gateway_sessions:id_token:${sessionId}`),
      transactionId: tx.id,
      handoffCodeDigest: sha256(handoffCode),
      platformId: platform.id,
      onboarding: JSON.stringify(onboarding),
      handoffTtlSeconds: HANDOFF_TTL_SECONDS,
      authTime: typeof claims.auth_time === 'number' ? claims.auth_time : null,
      amr: Array.isArray(claims.amr) ? claims.amr : null,
      acr: typeof claims.acr === 'string' ? claims.acr : null,
    }))).rows[0];
    if (!created) return problem(res, 403, clearBinding);
    if (!created.handoffIssued) return problem(res, 409, clearBinding);
    const expiresAt = created.expiresAt;
    const target = new URL(platform.callbackUrl);
    target.searchParams.set('code', handoffCode);
    res.writeHead(302, {
      location: target.href,
      'cache-control': 'no-store',
      'set-cookie': [clearBinding, `${COOKIE}=${sessionToken}; Path=/; Expires=${expiresAt.toUTCString()}; HttpOnly; Secure; SameSite=Lax`],
    }).end();
  }

  async function exchange(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const header = req.headers.authorization;
    if (!header || !header.startsWith('Basic ')) return problem(res, 401);
    const decoded = Buffer.from(header.slice(6), 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 1 || colon === decoded.length - 1) return problem(res, 401);

    const text = await readBody(req);
    if (text === null) return problem(res, 413);
    let code: unknown;
    let verifier: unknown;
    try {
      ({ code, handoffVerifier: verifier } = (JSON.parse(text) ?? {}) as { code?: unknown; handoffVerifier?: unknown });
    } catch {
      return problem(res, 400);
    }
    if (typeof code !== 'string' || !code.startsWith('handoff_') || code.length > 200) return problem(res, 400);
    if (verifier !== undefined && (typeof verifier !== 'string' || !HANDOFF_VERIFIER.test(verifier))) return problem(res, 400);

    const platformCredential = `gwp_${randomToken(32)}`;
    const { rows } = await pool.query<RedeemedHandoff>(
      queryFor(statements.redeemHandoff, {
        clientId: decoded.slice(0, colon),
        secretDigest: sha256(decoded.slice(colon + 1)),
        codeDigest: sha256(code),
        handoffChallenge: verifier === undefined ? null : s256Challenge(verifier),
        credentialDigest: sha256(platformCredential),
      }),
    );
    const row = rows[0]!;
    if (row.platformKey === null) return problem(res, 401);
    if (!row.sessionId || !row.userId || !row.sub || !row.onboarding || !row.returnTo) {
      return problem(res, 404);
    }
    const body = JSON.stringify({
      session: { id: row.sessionId, expiresAt: row.sessionExpiresAt!.toISOString(), gatewayToken: platformCredential },
      user: { id: row.userId, sub: row.sub },
      platform: { key: row.platformKey },
      onboarding: row.onboarding,
      permissions: row.permissions ?? [],
      returnTo: row.returnTo,
      authentication: {
        authTime: row.authTime?.toISOString() ?? null,
        amr: row.amr,
        acr: row.acr,
        requested: { maxAge: row.maxAgeSeconds, forceLogin: row.forceLogin === true, secondFactor: row.secondFactor === true, stepUp: row.stepUp === true },
      },
    });
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', pragma: 'no-cache' }).end(body);
  }

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://bare.local');
    let handled: Promise<void>;
    if (url.pathname === '/v1/auth/start' && req.method === 'GET') handled = start(req, url, res);
    else if (url.pathname === '/v1/auth/exchange' && req.method === 'POST') handled = exchange(req, res);
    else if (url.pathname === '/v1/auth/callback' && req.method === 'GET') handled = callback(req, url, res);
    else handled = Promise.resolve(problem(res, 404));
    handled.catch((error: unknown) => {
      process.stderr.write(`bare: ${error instanceof Error ? error.message : String(error)}\n`);
      if (!res.headersSent) problem(res, 500);
      else res.destroy();
    });
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));

  serveUntilStopped((server.address() as AddressInfo).port, async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await pool.end();
  });
}

function problem(res: ServerResponse, status: number, setCookie?: string): void {
  res.writeHead(status, { 'content-type': 'application/problem+json', ...(setCookie ? { 'set-cookie': setCookie } : {}) }).end(JSON.stringify({ status }));
}

/** One cookie's value from a Cookie header. */
function cookieValue(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return decodeURIComponent(part.slice(eq + 1).trim());
  }
  return undefined;
}

/** The body as text, or null when it exceeds the limit. */
function readBody(req: IncomingMessage): Promise<string | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= BODY_LIMIT) chunks.push(chunk);
    });
    req.on('end', () => resolve(size > BODY_LIMIT ? null : Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

main().catch(reportFailure);
