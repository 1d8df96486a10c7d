// The baseline of the benchmark: what a hand-written server on `node:http` and a
// `pg` Pool does for the same two endpoints, with the same SQL statements (taken
// from the gateway's repository functions, see statements.ts), the same pool
// size, the same key ring and the same credential helpers. Validation is what a
// careful hand-written server would do, nothing more: no framework, no
// contract validation, no request logging, no security headers.
//
// Started by run.ts (fork); not meant to be run by hand.

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createHash, randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { parseKeyRing, randomToken, sha256 } from '../../src/security/crypto.ts';
import type { PlatformRow } from '../../src/db/repositories/platforms.ts';
import type { RedeemedHandoff } from '../../src/db/repositories/handoffs.ts';
import { captureGatewayStatements, queryFor } from './statements.ts';
import { readSettings, reportFailure, serveUntilStopped } from './protocol.ts';

const PLATFORM_KEY = /^[A-Z][A-Z0-9_]{1,63}$/;
const TRANSACTION_TTL_SECONDS = 600;
const BODY_LIMIT = 64 * 1024;

async function main(): Promise<void> {
  const settings = readSettings();
  const keyRing = parseKeyRing(settings.encryptionKeys);
  const statements = await captureGatewayStatements();
  const pool = new pg.Pool({ connectionString: settings.databaseUrl, max: settings.poolSize, application_name: 'bench-bare' });

  // Discovery once at boot, as any OIDC client does.
  const discovery = await fetch(new URL('/.well-known/openid-configuration', settings.issuer));
  if (!discovery.ok) throw new Error(`discovery answered ${discovery.status}`);
  const authorizationEndpoint = ((await discovery.json()) as { authorization_endpoint: string }).authorization_endpoint;
  const scope = settings.scopes.join(' ');

  async function start(url: URL, res: ServerResponse): Promise<void> {
    const platformKey = url.searchParams.get('platformKey');
    const rawReturnTo = url.searchParams.get('returnTo');
    const assertedMode = url.searchParams.get('onboardingMode');
    if (!platformKey || !PLATFORM_KEY.test(platformKey) || !rawReturnTo || rawReturnTo.length > 2048) return problem(res, 400);

    const { rows } = await pool.query<PlatformRow>(queryFor(statements.activePlatform, { platformKey }));
    const platform = rows[0];
    if (!platform) return problem(res, 404);
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
        handoffChallenge: null,
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
      'set-cookie': `gw_session_login_${id}=${browserBinding}; Max-Age=${TRANSACTION_TTL_SECONDS}; Path=/v1/auth/callback; HttpOnly; Secure; SameSite=Lax`,
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
    try {
      code = (JSON.parse(text) as { code?: unknown } | null)?.code;
    } catch {
      return problem(res, 400);
    }
    if (typeof code !== 'string' || !code.startsWith('handoff_') || code.length > 200) return problem(res, 400);

    const platformCredential = `gwp_${randomToken(32)}`;
    const { rows } = await pool.query<RedeemedHandoff>(
      queryFor(statements.redeemHandoff, {
        clientId: decoded.slice(0, colon),
        secretDigest: sha256(decoded.slice(colon + 1)),
        codeDigest: sha256(code),
        handoffChallenge: null,
        credentialDigest: sha256(platformCredential),
      }),
    );
    const row = rows[0]!;
    if (!row.credentialsValid) return problem(res, 401);
    if (!row.sessionId || !row.userId || !row.sub || !row.platformKey || !row.onboarding || !row.returnTo) {
      return problem(res, 404);
    }
    const body = JSON.stringify({
      session: { id: row.sessionId, expiresAt: row.sessionExpiresAt!.toISOString(), gatewayToken: platformCredential },
      user: { id: row.userId, sub: row.sub },
      platform: { key: row.platformKey },
      onboarding: row.onboarding,
      permissions: row.permissions ?? [],
      returnTo: row.returnTo,
    });
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', pragma: 'no-cache' }).end(body);
  }

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://bare.local');
    let handled: Promise<void>;
    if (url.pathname === '/v1/auth/start' && req.method === 'GET') handled = start(url, res);
    else if (url.pathname === '/v1/auth/exchange' && req.method === 'POST') handled = exchange(req, res);
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

function problem(res: ServerResponse, status: number): void {
  res.writeHead(status, { 'content-type': 'application/problem+json' }).end(JSON.stringify({ status }));
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
