// How the gateway authenticates to Zitadel's APIs as a service user (research/zitadel-api.md §2):
// - a personal access token (IDP_ADMIN_TOKEN), sent as `Authorization: Bearer <PAT>` as is;
// - a JWT-profile key file (IDP_ADMIN_KEY_FILE): an RS256 assertion (iss = sub = the key's
//   userId, aud = the issuer, kid = keyId, at most one hour) exchanged at the token endpoint
//   from discovery with grant urn:ietf:params:oauth:grant-type:jwt-bearer and scope
//   `openid urn:zitadel:iam:org:project:id:zitadel:aud` (without that audience scope the token
//   cannot call the APIs). The access token is cached until shortly before it expires, and one
//   request fetches it for every caller waiting at that moment.
// The service user needs the ORG_USER_MANAGER role on the users' organisation (or
// IAM_USER_MANAGER on the instance): user.read, user.write (password, deactivate), user.delete.
//
// Discovery and the token endpoint stay hand-written HTTP (http.ts): they are OAuth endpoints, not
// RPCs of Zitadel's service definitions, and @zitadel/client has no call for them. Its
// `newSystemToken` signs a token for Zitadel's system API users (configured in the runtime
// configuration of a self-hosted Zitadel, sent as a bearer as is), not a service user's JWT-profile
// grant; its `createServerTransport` takes a fixed token, which a renewed access token is not.

import { createPrivateKey, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { SignJWT } from 'jose';

import { ProviderUnreachable, sendRequest, type HttpAnswer, type HttpLimits } from './http.ts';

export interface AdminCredential {
  readonly kind: 'pat' | 'jwt-profile';
  /** The Authorization header of an API call. */
  authorization(): Promise<string>;
  /** Forgets a cached access token after the API refused it; true when a new one may help. */
  invalidate(): boolean;
}

/** The token endpoint refused the gateway's assertion, or answered something unusable: a misconfiguration. */
export class AdminCredentialRefused extends Error {
  override name = 'AdminCredentialRefused';
  readonly status: number;
  readonly oauthError: string | undefined;
  constructor(message: string, status: number, oauthError?: string) {
    super(message);
    this.status = status;
    this.oauthError = oauthError;
  }
}

export function patCredential(token: string): AdminCredential {
  const header = `Bearer ${token}`;
  return {
    kind: 'pat',
    authorization: async () => header,
    invalidate: () => false,
  };
}

/** A Zitadel service-user key file ("type": "serviceaccount"). */
export interface ServiceAccountKey {
  keyId: string;
  userId: string;
  privateKey: KeyObject;
}

/** Reads and checks IDP_ADMIN_KEY_FILE at boot; a bad file stops the start with a message naming it. */
export function readServiceAccountKeyFile(file: string): ServiceAccountKey {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`IDP_ADMIN_KEY_FILE=${file} cannot be read as JSON: ${(error as Error).message}`);
  }
  return parseServiceAccountKey(parsed, `IDP_ADMIN_KEY_FILE=${file}`);
}

export function parseServiceAccountKey(value: unknown, source = 'the key file'): ServiceAccountKey {
  const key = (value ?? {}) as Record<string, unknown>;
  if (key.type !== 'serviceaccount') {
    throw new Error(`${source} is not a service user's key (type "serviceaccount"); an application key (type "application") cannot call the user API`);
  }
  for (const name of ['keyId', 'key', 'userId']) {
    if (typeof key[name] !== 'string' || key[name] === '') throw new Error(`${source} lacks "${name}"`);
  }
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey(key.key as string); // PKCS#1 ("RSA PRIVATE KEY", as Zitadel writes it) or PKCS#8
  } catch {
    throw new Error(`${source} has a "key" that is not a PEM private key`);
  }
  if (privateKey.asymmetricKeyType !== 'rsa') throw new Error(`${source} has a "key" that is not an RSA key (RS256 is required)`);
  return { keyId: key.keyId as string, userId: key.userId as string, privateKey };
}

export const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
export const ZITADEL_API_SCOPE = 'openid urn:zitadel:iam:org:project:id:zitadel:aud';
/** The assertion is used once, at once: a short life is enough (Zitadel allows up to an hour). */
const ASSERTION_LIFETIME_SECONDS = 600;
/** A cached token is renewed this long before it expires (or at half its life, if shorter). */
const RENEW_BEFORE_SECONDS = 60;

export interface JwtProfileOptions {
  key: ServiceAccountKey;
  /** The issuer whose discovery names the token endpoint. */
  issuer: string;
  limits: HttpLimits;
  now?: () => number;
}

export function jwtProfileCredential(options: JwtProfileOptions): AdminCredential {
  const now = options.now ?? Date.now;
  let cached: { header: string; renewAt: number } | null = null;
  let pending: Promise<string> | null = null;
  let discovery: Promise<{ issuer: string; tokenEndpoint: URL }> | null = null;

  async function discover(): Promise<{ issuer: string; tokenEndpoint: URL }> {
    const url = new URL(`${options.issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`);
    const answer = failedProvider(await sendRequest({ method: 'GET', url, headers: { Accept: 'application/json' } }, options.limits));
    const document = answer.json as { issuer?: unknown; token_endpoint?: unknown } | undefined;
    if (answer.status !== 200 || typeof document?.issuer !== 'string' || typeof document.token_endpoint !== 'string') {
      throw new AdminCredentialRefused(`the issuer's discovery document is unusable (HTTP ${answer.status})`, answer.status);
    }
    let tokenEndpoint: URL;
    try {
      tokenEndpoint = new URL(document.token_endpoint);
    } catch {
      throw new AdminCredentialRefused('the discovery document names no valid token endpoint', answer.status);
    }
    return { issuer: document.issuer, tokenEndpoint };
  }

  async function fetchToken(): Promise<string> {
    discovery ??= discover();
    let found: { issuer: string; tokenEndpoint: URL };
    try {
      found = await discovery;
    } catch (error) {
      discovery = null; // try again next time
      throw error;
    }
    const issuedAt = Math.floor(now() / 1000);
    const assertion = await new SignJWT({})
      .setProtectedHeader({ alg: 'RS256', kid: options.key.keyId })
      .setIssuer(options.key.userId)
      .setSubject(options.key.userId)
      .setAudience(found.issuer)
      .setIssuedAt(issuedAt)
      .setExpirationTime(issuedAt + ASSERTION_LIFETIME_SECONDS)
      .sign(options.key.privateKey);
    const answer = failedProvider(await sendRequest({
      method: 'POST',
      url: found.tokenEndpoint,
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' },
      body: new URLSearchParams({ grant_type: JWT_BEARER_GRANT, scope: ZITADEL_API_SCOPE, assertion }).toString(),
    }, options.limits));
    const body = (answer.json ?? {}) as { access_token?: unknown; expires_in?: unknown; error?: unknown };
    if (answer.status !== 200 || typeof body.access_token !== 'string' || body.access_token === '') {
      const oauthError = typeof body.error === 'string' ? body.error : undefined;
      throw new AdminCredentialRefused(`the token endpoint refused the service user's assertion (HTTP ${answer.status}${oauthError ? `, ${oauthError}` : ''})`, answer.status, oauthError);
    }
    const lifetime = typeof body.expires_in === 'number' && body.expires_in > 0 ? body.expires_in : 300;
    const header = `Bearer ${body.access_token}`;
    cached = { header, renewAt: now() + (lifetime - Math.min(RENEW_BEFORE_SECONDS, lifetime / 2)) * 1000 };
    return header;
  }

  return {
    kind: 'jwt-profile',
    async authorization() {
      if (cached && now() < cached.renewAt) return cached.header;
      pending ??= fetchToken().finally(() => {
        pending = null;
      });
      return pending;
    },
    invalidate() {
      cached = null;
      return true;
    },
  };
}

/** A 5xx or 429 is the provider failing, not a refusal of the gateway's key. */
function failedProvider(answer: HttpAnswer): HttpAnswer {
  if (answer.status >= 500 || answer.status === 429) throw new ProviderUnreachable('server_error', `HTTP ${answer.status}`);
  return answer;
}
