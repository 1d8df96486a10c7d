// Shared set-up of the registry and audit API tests: a real dev identity provider
// for Bearer tokens, gateway sessions for cookie callers, and handoff codes issued
// directly (transaction + session + issueHandoff) for exchange tests.

import { randomBytes, randomUUID } from 'node:crypto';
import type { Test } from 'supertest';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { obtainTokens } from '../helpers/oidcBrowser.ts';
import { startDevIdp, type DevIdp } from '../../src/devidp/index.ts';
import type { Db } from '../../src/db/knex.ts';
import type { Permission } from '../../src/api/types.ts';
import { upsertUserFromIdp } from '../../src/services/account/usersRepository.ts';
import { findPlatformByKey } from '../../src/services/registry/platformsRepository.ts';
import { insertTransaction } from '../../src/services/login/transactionsRepository.ts';
import { createSession } from '../../src/services/sessions/create.ts';
import { issueHandoff } from '../../src/services/login/handoff.ts';
import { CLI_ACTOR, createPlatform, type PlatformCreateInput } from '../../src/services/registry/index.ts';

/** The test configuration's account center origin: in CORS_ORIGINS by default. */
export const ACCOUNT_CENTER_ORIGIN = 'http://account.test';
export const FOREIGN_ORIGIN = 'http://evil.test';
const ADMIN_SCOPE = 'openid profile email platforms:admin onboarding:schema:read onboarding:schema:write';

export interface Caller {
  name: string;
  /** Adds this caller's credentials (and, for cookie writes, the allowed Origin) to a request. */
  apply(test: Test): Test;
  /** Who the audit log should name. */
  userId: string | null;
  sub: string;
}

export interface RegistryTestContext {
  gateway: TestApp;
  idp: DevIdp;
  bearerAdmin: Caller;
  bearerAlice: Caller;
  cookieAdmin: Caller;
  cookieAlice: Caller;
  /** A cookie admin whose browser request comes from an origin outside CORS_ORIGINS. */
  cookieAdminForeignOrigin: Caller;
  close(): Promise<void>;
}

export async function startRegistryTestContext(db: Db): Promise<RegistryTestContext> {
  const clientId = 'registry-tests';
  const clientSecret = randomBytes(24).toString('base64url');
  const redirectUri = 'http://client.test/callback';
  const idp = await startDevIdp({ port: 0, clients: [{ clientId, clientSecret, redirectUris: [redirectUri] }] });
  const gateway = await createTestApp({
    db,
    // These files make far more administrative writes per caller than the default limit allows;
    // the limits themselves are tested in rateLimits.test.ts.
    env: { RATE_LIMIT_ADMIN_WRITES_PER_MINUTE: '100000' },
    oidc: { issuer: idp.issuer, clientId, clientSecret },
  });

  const token = async (username: string, password: string) =>
    (await obtainTokens({ issuer: idp.issuer, clientId, clientSecret, redirectUri, username, password, scope: ADMIN_SCOPE })).accessToken;
  const [adminToken, aliceToken] = await Promise.all([token('admin', 'admin-password'), token('alice', 'alice-password')]);

  const cookieUser = async (sub: string, permissions: Permission[]) => {
    const user = await upsertUserFromIdp(db, { sub, email: null, emailVerified: false, displayName: sub, givenName: null, familyName: null });
    const session = await createSession(db, { userId: user.id, permissions, ttlSeconds: 3600 });
    return { userId: user.id, sub, token: session.token };
  };
  const cookieAdmin = await cookieUser('cookie-admin', ['platforms:admin']);
  const cookieAlice = await cookieUser('cookie-alice', ['onboarding:schema:read', 'onboarding:schema:write']);

  const bearer = (name: string, accessToken: string, sub: string): Caller => ({
    name,
    apply: (test) => test.set('Authorization', `Bearer ${accessToken}`),
    // Bearer callers who never logged in through the gateway have no local user.
    userId: null,
    sub,
  });
  const cookie = (name: string, user: { userId: string; sub: string; token: string }, origin: string): Caller => ({
    name,
    apply: (test) => test.set('Cookie', `gw_session=${user.token}`).set('Origin', origin),
    userId: user.userId,
    sub: user.sub,
  });

  return {
    gateway,
    idp,
    bearerAdmin: bearer('Bearer admin', adminToken, 'dev-user-admin'),
    bearerAlice: bearer('Bearer alice (no platforms:admin)', aliceToken, 'dev-user-alice'),
    cookieAdmin: cookie('cookie admin', cookieAdmin, ACCOUNT_CENTER_ORIGIN),
    cookieAlice: cookie('cookie user without platforms:admin', cookieAlice, ACCOUNT_CENTER_ORIGIN),
    cookieAdminForeignOrigin: cookie('cookie admin from a foreign origin', cookieAdmin, FOREIGN_ORIGIN),
    async close() {
      await idp.close();
    },
  };
}

let counter = 0;

/** A fresh, unique platform key for one test. */
export function newPlatformKey(prefix = 'T'): string {
  return `${prefix}_${++counter}_${randomBytes(3).toString('hex').toUpperCase()}`;
}

export function platformBody(overrides: Partial<PlatformCreateInput> = {}): PlatformCreateInput {
  const platformKey = overrides.platformKey ?? newPlatformKey();
  return {
    platformKey,
    displayName: `Platform ${platformKey}`,
    callbackUrl: 'https://bff.example.test/auth/callback',
    allowedReturnUrls: ['https://bff.example.test/'],
    defaultOnboardingMode: 'none',
    centralOnboardingEnabled: true,
    ...overrides,
  };
}

/**
 * Registers a platform through the service (as the CLI would); returns its key and credentials.
 * Its starts need no handoffChallenge unless asked for (the registry's default requires one):
 * these tests start logins only to count or refuse them.
 */
export async function seedPlatform(db: Db, overrides: Partial<PlatformCreateInput> = {}) {
  const { platform, clientSecret } = await createPlatform(db, platformBody({ handoffChallengeRequired: false, ...overrides }), CLI_ACTOR);
  return { key: platform.platformKey, clientId: platform.clientId!, clientSecret, platform };
}

export function basic(clientId: string, clientSecret: string): string {
  return `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`;
}

/**
 * An outstanding handoff code for `platformKey`, as the callback would leave it:
 * a consumed-state login transaction, a user, a gateway session, and the code.
 */
export async function issueTestHandoff(gateway: TestApp, platformKey: string): Promise<string> {
  const db = gateway.deps.db;
  const platform = await findPlatformByKey(db, platformKey);
  if (!platform?.callbackUrl) throw new Error(`platform ${platformKey} has no callback URL`);
  const user = await upsertUserFromIdp(db, {
    sub: `handoff-user-${randomUUID()}`,
    email: null,
    emailVerified: false,
    displayName: null,
    givenName: null,
    familyName: null,
  });
  const transactionId = randomUUID();
  await insertTransaction(db, {
    id: transactionId,
    platformId: platform.id,
    stateDigest: randomBytes(32),
    nonceDigest: randomBytes(32),
    pkceVerifierSealed: 'unused-in-this-test',
    nonceSealed: 'unused-in-this-test',
    onboardingMode: platform.defaultOnboardingMode,
    platformCallbackUrl: platform.callbackUrl,
    returnTo: platform.allowedReturnUrls[0]!,
    browserBindingDigest: randomBytes(32),
    handoffChallenge: null,
    ttlSeconds: 600,
  });
  const session = await createSession(db, { userId: user.id, permissions: [], ttlSeconds: 3600 });
  const target = await issueHandoff(db, gateway.config.authHandoffTtlSeconds, {
    transactionId,
    platformId: platform.id,
    userId: user.id,
    sessionId: session.id,
    onboarding: { status: 'COMPLETE', requirementVersion: platform.requirementVersion, missingFields: [], canCompleteCentrally: true, missingDocuments: [], acceptedDocuments: [] },
    callbackUrl: platform.callbackUrl,
  });
  return target.searchParams.get('code')!;
}
