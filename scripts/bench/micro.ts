// Per-call costs behind the CPU cuts of issue 15, each beside what it replaced, in one
// process (`node scripts/bench/micro.ts`). Not part of `npm run bench`: the bench measures
// whole requests; this shows where a part of the difference comes from.
//
//   serverMetadata()            openid-client deep-copies the provider metadata per call
//   AbortSignal.timeout         a signal, a timer and a DOMException per provider call
//   coarseTimeout               src/oidc/timeouts.ts: one shared signal per 100 ms
//   helmet                      a chain of a dozen middlewares per response
//   precomputed headers         the same headers set in one call: measured, not adopted
//                               (0.4 µs per response is not worth a replay of helmet)
//   cors without Origin         cors's per-request option copy and callbacks, then nothing
//                               set; skipping it without Origin: measured, not adopted (0.1 µs)
//   callback path               new URL(AUTH_CALLBACK_URL).pathname per start and callback
//                               (the binding cookie's Path); parsed once: measured, not adopted
//                               (0.15 µs)

import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import * as client from 'openid-client';
import helmet from 'helmet';
import cors from 'cors';
import { coarseTimeout } from '../../src/oidc/timeouts.ts';

function measure(label: string, iterations: number, run: () => void): number {
  for (let i = 0; i < Math.min(iterations, 20_000); i++) run(); // warm-up
  const began = process.cpuUsage();
  for (let i = 0; i < iterations; i++) run();
  const used = process.cpuUsage(began);
  const us = (used.user + used.system) / iterations;
  process.stdout.write(`${label.padEnd(48)} ${us.toFixed(2).padStart(8)} µs CPU per call\n`);
  return us;
}

const issuer = 'https://idp.example.test';
const metadata: client.ServerMetadata = {
  issuer,
  authorization_endpoint: `${issuer}/oauth/v2/authorize`,
  token_endpoint: `${issuer}/oauth/v2/token`,
  introspection_endpoint: `${issuer}/oauth/v2/introspect`,
  userinfo_endpoint: `${issuer}/oidc/v1/userinfo`,
  revocation_endpoint: `${issuer}/oauth/v2/revoke`,
  end_session_endpoint: `${issuer}/oidc/v1/end_session`,
  jwks_uri: `${issuer}/oauth/v2/keys`,
  scopes_supported: ['openid', 'profile', 'email', 'phone', 'address', 'offline_access'],
  response_types_supported: ['code', 'id_token', 'id_token token'],
  grant_types_supported: ['authorization_code', 'implicit', 'refresh_token', 'client_credentials', 'urn:ietf:params:oauth:grant-type:jwt-bearer'],
  subject_types_supported: ['public'],
  id_token_signing_alg_values_supported: ['EdDSA', 'RS256', 'RS384', 'RS512', 'ES256', 'ES384', 'ES512'],
  token_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post', 'private_key_jwt'],
  claims_supported: ['sub', 'aud', 'exp', 'iat', 'iss', 'auth_time', 'nonce', 'acr', 'amr', 'c_hash', 'at_hash', 'act', 'scopes', 'client_id', 'azp', 'preferred_username', 'name', 'family_name', 'given_name', 'locale', 'email', 'email_verified', 'phone_number', 'phone_number_verified'],
  code_challenge_methods_supported: ['S256'],
  ui_locales_supported: ['bg', 'cs', 'de', 'en', 'es', 'fr', 'hu', 'id', 'it', 'ja', 'ko', 'mk', 'nl', 'pl', 'pt', 'ru', 'sv', 'zh'],
  request_parameter_supported: true,
  request_uri_parameter_supported: false,
};
const config = new client.Configuration(metadata, 'gateway', 'secret');
const cached = config.serverMetadata();
measure('serverMetadata() per call (3 per callback before)', 100_000, () => void config.serverMetadata().issuer);
measure('metadata read once after discovery', 100_000, () => void cached.issuer);

const signals: AbortSignal[] = [];
measure('AbortSignal.timeout(5000) per provider call', 100_000, () => void signals.push(AbortSignal.timeout(5000)));
signals.length = 0;
const shared = coarseTimeout(5000);
measure('coarseTimeout(5000)() per provider call', 100_000, () => void signals.push(shared()));
signals.length = 0;

const headers = helmet({ contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"] } }, strictTransportSecurity: { maxAge: 31536000 } });
const req = new IncomingMessage(new Socket());
const response = () => new ServerResponse(req);
measure('new ServerResponse (subtract from the two below)', 50_000, () => void response());
measure('helmet chain on a response', 50_000, () => headers(req, response(), () => {}));
const recorded = new Map<string, string | number | readonly string[]>();
const stand = { setHeader: (name: string, value: string) => recorded.set(name, value), removeHeader: () => {}, getHeader: () => undefined } as unknown as ServerResponse;
headers(req, stand, () => {});
measure('precomputed headers on a response', 50_000, () => void response().setHeaders(recorded));

const corsOrigins = ['https://account.example.test'];
const corsMiddleware = cors({
  origin: (origin, callback) => callback(null, origin !== undefined && corsOrigins.includes(origin) ? origin : false),
  credentials: true,
  methods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
  allowedHeaders: ['Content-Type', 'Authorization', 'X-Request-Id'],
  exposedHeaders: ['X-Request-Id', 'Retry-After'],
  maxAge: 600,
});
const plain = new IncomingMessage(new Socket());
plain.headers = { host: 'gateway.example.test' };
const out = response();
measure('cors on a request without Origin', 200_000, () => corsMiddleware(plain, out, () => {}));
measure('the same, skipped when Origin is absent', 200_000, () => void (plain.headers.origin === undefined ? undefined : corsMiddleware(plain, out, () => {})));

const callbackUrl = 'https://gateway.example.test/v1/auth/callback';
measure('new URL(callbackUrl).pathname per cookie', 200_000, () => void new URL(callbackUrl).pathname);
const paths = new WeakMap<object, string>();
const configKey = {};
paths.set(configKey, new URL(callbackUrl).pathname);
measure('the path parsed once per config', 200_000, () => void paths.get(configKey));
process.exit(0);
