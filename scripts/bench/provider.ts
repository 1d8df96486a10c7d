// The benchmark's OpenID provider: approves every authorization request at once
// and issues real RS256 tokens (an ID token and an RFC 9068 JWT access token)
// signed with a key it publishes as a JWKS. It runs in its own process (forked
// by run.ts), so its CPU is accounted apart from the measured servers', and it
// is deliberately minimal, so that what a login costs is the server's own work.
// It speaks https, as a production provider does (a certificate the driver makes
// for the run; the servers trust it through NODE_EXTRA_CA_CERTS).
//
//   GET  /.well-known/openid-configuration   discovery
//   GET  /jwks                               the signing key
//   GET  /authorize                          302 straight back to redirect_uri with code, state, iss
//   POST /token                              authorization_code grant, client_secret_basic, PKCE S256
//
// Codes live in memory, are single use and expire after 10 minutes: the
// driver collects a batch of them before it measures the callbacks.
//
// Started by run.ts (fork); not meant to be run by hand.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import { readFileSync } from 'node:fs';
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { reportFailure } from './protocol.ts';

export interface ProviderSettings {
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  /** The subject every login signs in as (one returning user, as in a steady state). */
  sub: string;
  email: string;
  /** PEM files of the provider's TLS certificate (for 127.0.0.1) and key. */
  tls: { cert: string; key: string };
}

const CODE_TTL_MS = 10 * 60_000;

interface PendingCode {
  nonce: string;
  codeChallenge: string;
  expires: number;
}

async function main(): Promise<void> {
  const settings = JSON.parse(process.env.BENCH_PROVIDER_SETTINGS ?? '{}') as ProviderSettings;
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const kid = randomBytes(8).toString('hex');
  const jwks = JSON.stringify({ keys: [{ ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' }] });
  const codes = new Map<string, PendingCode>();
  const expectedCredentials = Buffer.from(`${settings.clientId}:${settings.clientSecret}`);
  let issuer = '';
  let discovery = '';

  const json = (res: ServerResponse, status: number, body: string): void => {
    res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(body);
  };

  function authorize(url: URL, res: ServerResponse): void {
    const q = url.searchParams;
    if (q.get('client_id') !== settings.clientId || q.get('redirect_uri') !== settings.redirectUri || q.get('response_type') !== 'code'
      || q.get('code_challenge_method') !== 'S256' || !q.get('code_challenge') || !q.get('nonce') || !q.get('state')) {
      return json(res, 400, JSON.stringify({ error: 'invalid_request' }));
    }
    const code = randomBytes(24).toString('base64url');
    codes.set(code, { nonce: q.get('nonce')!, codeChallenge: q.get('code_challenge')!, expires: Date.now() + CODE_TTL_MS });
    const back = new URL(settings.redirectUri);
    back.search = new URLSearchParams({ code, state: q.get('state')!, iss: issuer }).toString();
    res.writeHead(302, { location: back.href }).end();
  }

  async function token(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
    // RFC 6749 §2.3.1: both parts form-encoded before Base64 (openid-client encodes even '-').
    const header = req.headers.authorization ?? '';
    const decoded = header.startsWith('Basic ') ? Buffer.from(header.slice(6), 'base64').toString('utf8') : '';
    const colon = decoded.indexOf(':');
    const given = Buffer.from(colon < 0 ? '' : `${decodeURIComponent(decoded.slice(0, colon))}:${decodeURIComponent(decoded.slice(colon + 1))}`);
    if (given.length !== expectedCredentials.length || !timingSafeEqual(given, expectedCredentials)) return json(res, 401, JSON.stringify({ error: 'invalid_client' }));
    const code = form.get('code') ?? '';
    const pending = codes.get(code);
    codes.delete(code);
    if (form.get('grant_type') !== 'authorization_code' || !pending || pending.expires < Date.now() || form.get('redirect_uri') !== settings.redirectUri
      || createHash('sha256').update(form.get('code_verifier') ?? '').digest('base64url') !== pending.codeChallenge) {
      return json(res, 400, JSON.stringify({ error: 'invalid_grant' }));
    }
    const now = Math.floor(Date.now() / 1000);
    const sid = randomBytes(12).toString('base64url');
    const idToken = await new SignJWT({ nonce: pending.nonce, sid, email: settings.email, email_verified: true, name: 'Bench User', given_name: 'Bench', family_name: 'User' })
      .setProtectedHeader({ alg: 'RS256', kid, typ: 'JWT' })
      .setIssuer(issuer).setSubject(settings.sub).setAudience(settings.clientId).setIssuedAt(now).setExpirationTime(now + 300)
      .sign(privateKey);
    const accessToken = await new SignJWT({ client_id: settings.clientId, scope: 'openid profile email', jti: randomBytes(12).toString('base64url') })
      .setProtectedHeader({ alg: 'RS256', kid, typ: 'at+jwt' })
      .setIssuer(issuer).setSubject(settings.sub).setAudience(settings.clientId).setIssuedAt(now).setExpirationTime(now + 300)
      .sign(privateKey);
    json(res, 200, JSON.stringify({ access_token: accessToken, token_type: 'Bearer', expires_in: 300, id_token: idToken, scope: 'openid profile email' }));
  }

  const server = createServer({ cert: readFileSync(settings.tls.cert), key: readFileSync(settings.tls.key) }, (req, res) => {
    const url = new URL(req.url ?? '/', issuer);
    if (req.method === 'GET' && url.pathname === '/.well-known/openid-configuration') return json(res, 200, discovery);
    if (req.method === 'GET' && url.pathname === '/jwks') return json(res, 200, jwks);
    if (req.method === 'GET' && url.pathname === '/authorize') return authorize(url, res);
    if (req.method === 'POST' && url.pathname === '/token') {
      token(req, res).catch((error: unknown) => {
        process.stderr.write(`provider: ${String(error)}\n`);
        if (!res.headersSent) json(res, 500, '{"error":"server_error"}');
      });
      return;
    }
    json(res, 404, '{"error":"not_found"}');
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  discovery = JSON.stringify({
    issuer,
    authorization_endpoint: `${issuer}/authorize`,
    token_endpoint: `${issuer}/token`,
    jwks_uri: `${issuer}/jwks`,
    response_types_supported: ['code'],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: ['RS256'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['client_secret_basic'],
    scopes_supported: ['openid', 'profile', 'email'],
    grant_types_supported: ['authorization_code'],
  });
  // Expired codes (collected but never redeemed) do not pile up.
  setInterval(() => {
    const now = Date.now();
    for (const [code, pending] of codes) if (pending.expires < now) codes.delete(code);
  }, 30_000).unref();
  process.send?.({ type: 'ready', port: (server.address() as AddressInfo).port });
  process.on('message', (message: { type: string }) => {
    if (message.type === 'stop') server.close(() => process.exit(0));
  });
  process.on('disconnect', () => process.exit(0));
}

main().catch(reportFailure);
