// The comparison of issue 15: express-openid-connect (Auth0's Express middleware, on
// openid-client 6 like the gateway) logging in against the benchmark's provider. It is a
// stateless client: the login's state, nonce and PKCE verifier travel in an encrypted
// cookie, and the session is an encrypted cookie too, so it persists nothing. Its whole
// login is GET /login → provider → GET /v1/auth/callback (302 to /, the session cookie).
// Same provider, same redirect URI, same scopes and client authentication as the gateway;
// a pino-http access line per request as the gateway writes, so both log alike.
//
// Started by run.ts (fork); not meant to be run by hand.

import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import express from 'express';
import { pino } from 'pino';
import { pinoHttp } from 'pino-http';
import { auth } from 'express-openid-connect';
import { readSettings, reportFailure, serveUntilStopped } from './protocol.ts';

async function main(): Promise<void> {
  const settings = readSettings();
  const callback = new URL(settings.callbackUrl);
  const app = express();
  app.disable('x-powered-by');
  app.use(pinoHttp({ logger: pino({ level: settings.logLevel }, pino.destination('/dev/null')) }));
  app.use(
    auth({
      issuerBaseURL: settings.issuer,
      baseURL: callback.origin,
      clientID: settings.oidcClientId,
      clientSecret: settings.oidcClientSecret,
      secret: randomBytes(32).toString('base64url'),
      authRequired: false,
      idpLogout: false,
      authorizationParams: { response_type: 'code', response_mode: 'query', scope: settings.scopes.join(' ') },
      routes: { login: '/login', callback: callback.pathname, logout: false, postLogoutRedirect: '/' },
    }),
  );
  app.get('/', (_req, res) => void res.send('signed in'));
  const server = await new Promise<Server>((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  server.keepAliveTimeout = 65_000;
  serveUntilStopped((server.address() as AddressInfo).port, async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
}

main().catch(reportFailure);
