// A platform's back-channel logout receiver for the tests: a node:http server on 127.0.0.1 that
// verifies every logout token against the gateway's published keys (OpenID Connect Back-Channel
// Logout 1.0 §2.6) and keeps the verified ones.
import http from 'node:http';
import { createRemoteJWKSet, jwtVerify, type JWTPayload } from 'jose';
import { freePort } from '../../src/db/embedded.ts';
import type { Harness } from './flowHarness.ts';

/** A platform's back-channel logout receiver: verifies each token against the gateway's published keys. */
export async function startLogoutReceiver(harness: Harness, clientId: string) {
  const jwks = createRemoteJWKSet(new URL('/.well-known/jwks.json', harness.baseUrl));
  const tokens: JWTPayload[] = [];
  const port = await freePort();
  const server = http.createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    try {
      const { payload } = await jwtVerify(new URLSearchParams(body).get('logout_token') ?? '', jwks, { issuer: harness.baseUrl, audience: clientId, typ: 'logout+jwt' });
      tokens.push(payload);
      res.writeHead(200).end();
    } catch {
      res.writeHead(400).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', () => resolve()));
  return {
    url: `http://127.0.0.1:${port}/backchannel-logout`,
    tokens,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
