// The development identity provider ("dev IdP").
//
// A real, certified OpenID Provider (oidc-provider, OpenID Connect Core 1.0) run in-process on
// its own HTTP port, so that the gateway (an OIDC relying party) can be developed, demoed and
// tested without an external IdP. GUIDE §3: it starts only when no OIDC_ISSUER is configured and
// never when NODE_ENV=production; startDevIdp() enforces the latter itself.
//
// What it provides, and why:
// - RS256 ID tokens with a `kid` (the spec requires RS256 with aud = the central OIDC client).
// - PKCE (RFC 7636) required for every authorization request, S256 only.
// - JWT access tokens (RFC 9068) for a default resource (RFC 8707 resource indicators), so an
//   authorization-code flow without a `resource` parameter yields a JWT whose `scope` lists only
//   the scopes the user is entitled to (permission scopes are filtered per user). Every client's
//   tokens carry the same `aud`, as Zitadel's do (tokenShape.ts), which is why the gateway must
//   also check `client_id`.
// - On request, tokens shaped like Zitadel's (`tokenShape: 'zitadel'`, tokenShape.ts) and opaque
//   access tokens (`accessTokenFormat: 'opaque'`, Zitadel's default).
// - Token introspection (RFC 7662), including for those JWT access tokens (introspection.ts).
// - A plain HTML login page; consent is implicit (first-party dev clients) (interaction.ts).
// - Accounts the gateway can act on (`accounts`, accounts.ts): the methods of a user, a password
//   change the next login must use, deactivation and deletion; kept across restarts in a users
//   file (`usersFile`, password hashes only) when one is given.
//
// Files: configuration.ts (oidc-provider configuration), interaction.ts (login page),
// introspection.ts, tokenShape.ts (RFC 9068 or Zitadel), users.ts (seeded users),
// accounts.ts (passwords, states, the users file), http.ts.

import { createServer, IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import { calculateJwkThumbprint, exportJWK, generateKeyPair, type CryptoKey } from 'jose';
import Provider from 'oidc-provider';

import { DevIdpAccountStore, type DevIdpAccounts } from './accounts.ts';
import { buildProviderConfiguration, type ActiveUsers, type DevIdpClient } from './configuration.ts';
import { createClientAuthenticator, describeError, sendHtml } from './http.ts';
import { createInteractionHandler } from './interaction.ts';
import { createIntrospectionHandler } from './introspection.ts';
import { createMemoryAdapterFactory, JWT_ACCESS_TOKEN_INDEX } from './memoryAdapter.ts';
import { renderErrorPage } from './pages.ts';
import { createTokenShaper, type TokenShape, type ZitadelShapeOptions } from './tokenShape.ts';
import { DEV_USERS, type DevIdpUser } from './users.ts';
import { DEV_TOTP_SECRETS } from './secondFactor.ts';

export { DEV_USERS, PERMISSION_SCOPES, type DevIdpProfile, type DevIdpUser, type PermissionScope } from './users.ts';
export type { DevIdpAccounts, DevIdpMethod, DevIdpPasswordChange } from './accounts.ts';
export type { DevIdpClient } from './configuration.ts';
export { DEFAULT_ZITADEL_PROJECT_ID, type TokenShape, type ZitadelShapeOptions } from './tokenShape.ts';
export { DEV_TOTP_SECRETS, MULTI_FACTOR_ACR } from './secondFactor.ts';

export interface DevIdpLogger {
  info(obj: object, msg?: string): void;
}

export interface DevIdpOptions {
  /** 0 = random free port */
  port?: number;
  /** default 127.0.0.1 */
  host?: string;
  clients: DevIdpClient[];
  /** default DEV_USERS */
  users?: DevIdpUser[];
  /**
   * A JSON file that keeps the users, their password hashes and states across restarts (read at
   * start, written atomically at every change); unset keeps them in memory only.
   */
  usersFile?: string;
  /** `aud` of the access tokens (RFC 9068 shape); default the first client's id */
  accessTokenAudience?: string;
  /** default 900 */
  accessTokenTtlSeconds?: number;
  /** 'jwt' (default) or 'opaque' (introspection only, Zitadel's default) */
  accessTokenFormat?: 'jwt' | 'opaque';
  /** 'rfc9068' (default: typ at+jwt, permissions in `scope`) or 'zitadel' (see tokenShape.ts) */
  tokenShape?: TokenShape;
  /** Project and organisation of the Zitadel shape. */
  zitadel?: ZitadelShapeOptions;
  /** Where "Back to the application" on the "sign-in expired" page leads; unset: no link. */
  homeUrl?: string;
  /** TOTP secrets (base32) by subject, the second factor (secondFactor.ts); default DEV_TOTP_SECRETS. */
  totpSecrets?: Readonly<Record<string, string>>;
  logger?: DevIdpLogger;
}

export interface DevIdp {
  issuer: string;
  port: number;
  /** The seeded users, with their seed passwords (a changed password is in `accounts` only). */
  users: DevIdpUser[];
  /** What the gateway's development adapter acts on, in-process (src/services/identityProvider/devIdp.ts). */
  accounts: DevIdpAccounts;
  /** The seeded users whose published password still works (for the demo's announcement). */
  seedHints(): Array<{ username: string; password: string }>;
  /**
   * Grants or withdraws permissions of an active user from their next token on, as an
   * administrator changes roles at the provider (tests; in memory, not written to the users file).
   */
  setPermissions(sub: string, permissions: readonly string[]): void;
  /** The TOTP secrets (base32) by subject: the second factor a client can ask for with `acr_values`. */
  totpSecrets: Readonly<Record<string, string>>;
  tokenShape: TokenShape;
  /** The Zitadel project id (Zitadel shape), else undefined. */
  projectId: string | undefined;
  close(): Promise<void>;
}

/** The resource indicator (RFC 8707) of the gateway's API at the dev IdP. */
export const DEFAULT_RESOURCE_INDICATOR = 'urn:auth-gateway';
const DEFAULT_ACCESS_TOKEN_TTL_SECONDS = 900;

const INTERACTION_PATH = /^\/interaction\/([A-Za-z0-9_-]+)$/;

/** Error events oidc-provider emits (docs/events.md); all are routed to the optional logger. */
const PROVIDER_ERROR_EVENTS = [
  'server_error',
  'authorization.error',
  'backchannel.error',
  'discovery.error',
  'end_session.error',
  'grant.error',
  'introspection.error',
  'jwks.error',
  'pushed_authorization_request.error',
  'revocation.error',
  'userinfo.error',
];

async function listen(server: Server, port: number, host: string): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return (server.address() as AddressInfo).port;
}

export async function startDevIdp(options: DevIdpOptions): Promise<DevIdp> {
  if (process.env.NODE_ENV === 'production') {
    throw new Error('The dev identity provider refuses to start when NODE_ENV=production; configure OIDC_ISSUER to use a real identity provider.');
  }
  if (!options.clients.length) {
    throw new Error('startDevIdp: at least one client is required');
  }

  // The one resource server (RFC 8707 §2: its indicator is an absolute URI without a
  // fragment) and the `aud` its access tokens carry: by default the first client's id,
  // as Zitadel puts the client ids of the project into `aud`.
  const resourceIndicator = DEFAULT_RESOURCE_INDICATOR;
  const audience = options.accessTokenAudience ?? options.clients[0]!.clientId;
  const logger = options.logger;
  const host = options.host ?? '127.0.0.1';
  const accessTokenTtl = options.accessTokenTtlSeconds ?? DEFAULT_ACCESS_TOKEN_TTL_SECONDS;
  const users = (options.users ?? DEV_USERS).map((u) => ({ ...u, permissions: [...u.permissions] }));
  const accounts = await DevIdpAccountStore.open({ seeds: users, usersFile: options.usersFile ?? null });
  const usersBySub: ActiveUsers = { get: (sub) => accounts.activeProfile(sub) };
  const shaper = createTokenShaper(options.tokenShape ?? 'rfc9068', {
    audience,
    clientIds: options.clients.map((c) => c.clientId),
    ...(options.zitadel ? { zitadel: options.zitadel } : {}),
  });

  // Signing key, fresh per start (nothing persists across restarts in dev anyway).
  const { publicKey, privateKey } = await generateKeyPair('RS256', { modulusLength: 2048, extractable: true });
  const privateJwk = await exportJWK(privateKey);
  const kid = await calculateJwkThumbprint(privateJwk); // RFC 7638 thumbprint as kid: derived from the key, so unique per key
  const signingJwk = { ...privateJwk, kid, alg: 'RS256', use: 'sig' };

  // Listen first: with port 0 the issuer is only known once the OS has picked the port.
  let handler: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
  // Idle keep-alive connections stay open longer than a client keeps them (undici: 4 s), as the
  // gateway's own server does: with Node's 5 s default, a process whose event loop was busy for
  // seconds (a test booting an app beside the provider) could send its next token request on a
  // socket the provider was closing, and get ECONNRESET.
  const server: Server = createServer({ keepAliveTimeout: 65_000 }, (req, res) => {
    if (!handler) {
      res.statusCode = 503;
      res.end();
      return;
    }
    handler(req, res);
  });
  const port = await listen(server, options.port ?? 0, host);
  const issuerHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  const issuer = `http://${issuerHost}:${port}`;

  const adapterFactory = createMemoryAdapterFactory(15);
  let provider: Provider;
  try {
    provider = new Provider(issuer, buildProviderConfiguration({
      clients: options.clients,
      usersBySub,
      adapter: adapterFactory,
      signingJwk,
      resourceIndicator,
      audience,
      accessTokenTtl,
      accessTokenFormat: options.accessTokenFormat ?? 'jwt',
      shaper,
      logger,
      homeUrl: options.homeUrl,
    }));
  } catch (err) {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    throw err;
  }

  // Koa prints unhandled errors to stderr unless an 'error' listener exists.
  provider.on('error', (err: unknown) => {
    logger?.info({ component: 'dev-idp', event: 'error', ...describeError(err) }, 'dev IdP error');
  });
  for (const event of PROVIDER_ERROR_EVENTS) {
    provider.on(event, (_ctx: unknown, err: unknown) => {
      logger?.info({ component: 'dev-idp', event, ...describeError(err) }, 'dev IdP request failed');
    });
  }

  // Index of issued JWT access tokens: jti -> grant, kept until the token expires and dropped
  // with its grant (the adapter's revokeByGrantId covers this model too).
  const issuedJwts = adapterFactory(JWT_ACCESS_TOKEN_INDEX);
  provider.on('access_token.issued', (token: { jti?: string; grantId?: string; clientId?: string; accountId?: string; scope?: string }) => {
    if (!token.jti || !token.grantId) return;
    void issuedJwts.upsert(token.jti, {
      grantId: token.grantId,
      clientId: token.clientId,
      accountId: token.accountId,
      scope: token.scope,
    }, accessTokenTtl);
  });

  const providerCallback = provider.callback();
  const introspectionPath = new URL(provider.urlFor('introspection')).pathname;
  const handleIntrospection = createIntrospectionHandler({
    issuer,
    provider,
    providerCallback,
    authenticateClient: createClientAuthenticator(new Map(options.clients.map((c) => [c.clientId, c.clientSecret]))),
    publicKey: publicKey as CryptoKey,
    issuedJwts,
    shaper,
    usersBySub,
    logger,
  });
  const totpSecrets = options.totpSecrets ?? DEV_TOTP_SECRETS;
  const handleInteraction = createInteractionHandler({
    provider, accounts, usersBySub, shaper, showHints: options.users === undefined, homeUrl: options.homeUrl, totpSecrets, logger,
  });

  handler = (req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const interactionMatch = INTERACTION_PATH.exec(path);
    let work: Promise<void>;
    if (interactionMatch?.[1]) {
      work = handleInteraction(req, res, interactionMatch[1]);
    } else if (path === introspectionPath && req.method === 'POST') {
      work = handleIntrospection(req, res);
    } else {
      work = providerCallback(req, res);
    }
    work.catch((err: unknown) => {
      logger?.info({ component: 'dev-idp', ...describeError(err) }, 'dev IdP internal error');
      if (!res.headersSent) {
        sendHtml(res, 500, renderErrorPage({ error: 'server_error' }));
      } else {
        res.destroy();
      }
    });
  };

  logger?.info({
    component: 'dev-idp',
    issuer,
    clients: options.clients.map((c) => c.clientId),
    users: accounts.profiles().map((u) => u.username),
    usersFile: options.usersFile,
    tokenShape: shaper.shape,
  }, 'dev identity provider listening (development only)');

  let closed: Promise<void> | undefined;
  return {
    issuer,
    port,
    users,
    accounts: {
      listMethods: (sub) => accounts.listMethods(sub),
      changePassword: (sub, currentPassword, newPassword) => accounts.changePassword(sub, currentPassword, newPassword),
      deactivate: (sub) => accounts.deactivate(sub),
      delete: (sub) => accounts.delete(sub),
    },
    seedHints: () => accounts.seedHints(),
    setPermissions: (sub, permissions) => {
      const profile = accounts.activeProfile(sub);
      if (profile) profile.permissions = [...permissions];
    },
    totpSecrets,
    tokenShape: shaper.shape,
    projectId: shaper.projectId,
    close(): Promise<void> {
      closed ??= new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        // Drop keep-alive sockets (e.g. from fetch) so close() does not wait for their timeout.
        server.closeAllConnections();
      });
      return closed;
    },
  };
}
