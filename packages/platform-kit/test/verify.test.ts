// The kit's verification of the gateway's signed tokens (src/verify.ts), against a key set
// served over HTTP as the gateway serves its JWKS: each check of a logout token (OpenID Connect
// Back-Channel Logout 1.0 §2.6) refuses what it must, and a token signed by a key the cached set
// does not hold yet (the gateway rotated) makes the kit fetch the set again.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair, SignJWT, type JWK, type JWTPayload, type CryptoKey } from 'jose';
import { BACKCHANNEL_LOGOUT_EVENT, GatewayTokenError, gatewayKeySet, verifyLogoutToken, type GatewayKeySet } from '../src/verify.ts';

const AUDIENCE = 'pc_verify_test';

describe('verifying the gateway’s logout tokens', () => {
  let server: http.Server;
  let issuer: string;
  let keys: GatewayKeySet;
  let published: JWK[] = [];
  let fetches = 0;
  const signing: Record<string, CryptoKey> = {};

  async function addKey(kid: string): Promise<void> {
    const { privateKey, publicKey } = await generateKeyPair('ES256');
    signing[kid] = privateKey;
    published = [...published, { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' }];
  }

  beforeAll(async () => {
    await addKey('first');
    server = http.createServer((req, res) => {
      if (req.url !== '/.well-known/jwks.json') return void res.writeHead(404).end();
      fetches += 1;
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ keys: published }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    keys = gatewayKeySet(issuer, { cooldownMs: 0 });
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  const sign = (claims: JWTPayload, header: { typ?: string; kid?: string } = {}) => {
    const kid = header.kid ?? 'first';
    const now = Math.floor(Date.now() / 1000);
    // The claims the gateway sends (delivery.ts), each replaceable by the case under test.
    const payload = { iss: issuer, aud: AUDIENCE, sub: 'user-1', iat: now, exp: now + 120, sid: 'session-1', events: { [BACKCHANNEL_LOGOUT_EVENT]: {} }, jti: randomUUID(), ...claims };
    return new SignJWT(payload).setProtectedHeader({ alg: 'ES256', kid, typ: header.typ ?? 'logout+jwt' }).sign(signing[kid]!);
  };
  const verify = (token: string) => verifyLogoutToken(token, { keys, issuer, audience: AUDIENCE });

  it('accepts the gateway’s logout token and answers its sid', async () => {
    await expect(verify(await sign({}))).resolves.toMatchObject({ sid: 'session-1', sub: 'user-1' });
  });

  it.each<[string, () => Promise<string>]>([
    ['another type (an ID token, a Security Event Token)', () => sign({}, { typ: 'JWT' })],
    ['a nonce', () => sign({ nonce: 'n' })],
    ['no back-channel logout event', () => sign({ events: { 'https://example.com/other': {} } })],
    ['an event that is not an object', () => sign({ events: { [BACKCHANNEL_LOGOUT_EVENT]: 'yes' } })],
    ['no sid', () => sign({ sid: undefined })],
    ['another audience', () => sign({ aud: 'pc_someone_else' })],
    ['another issuer', () => sign({ iss: 'https://elsewhere.example' })],
    ['an iat far in the past', () => sign({ iat: Math.floor(Date.now() / 1000) - 3600, exp: Math.floor(Date.now() / 1000) + 60 })],
    ['an exp passed', () => sign({ exp: Math.floor(Date.now() / 1000) - 10 })],
    ['no jti', () => sign({ jti: undefined })],
    // Back-Channel Logout 1.0 §2.4: exp is REQUIRED (a recent iat alone is not enough).
    ['no exp', () => sign({ exp: undefined })],
  ])('refuses a token with %s', async (_why, make) => {
    await expect(verify(await make())).rejects.toBeInstanceOf(GatewayTokenError);
  });

  it('refuses a token whose signature is not the gateway’s', async () => {
    const { privateKey } = await generateKeyPair('ES256');
    const forged = await new SignJWT({ sid: 'session-1', events: { [BACKCHANNEL_LOGOUT_EVENT]: {} }, jti: randomUUID() })
      .setProtectedHeader({ alg: 'ES256', kid: 'first', typ: 'logout+jwt' })
      .setIssuer(issuer).setAudience(AUDIENCE).setIssuedAt().setExpirationTime('2m')
      .sign(privateKey);
    await expect(verify(forged)).rejects.toBeInstanceOf(GatewayTokenError);
  });

  it('fetches the key set again for a key it does not hold yet (a rotation), and not for every token', async () => {
    await verify(await sign({}));
    const before = fetches;
    await verify(await sign({}));
    expect(fetches).toBe(before); // cached
    await addKey('second');
    await expect(verify(await sign({}, { kid: 'second' }))).resolves.toMatchObject({ sid: 'session-1' });
    expect(fetches).toBe(before + 1);
  });
});
