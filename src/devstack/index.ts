import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { Config } from '../config/index.ts';
import type { Db } from '../db/knex.ts';
import { startDevIdp, DEV_USERS, PERMISSION_SCOPES, type DevIdp } from '../devidp/index.ts';
import { findPlatformByKey } from '../db/repositories/platforms.ts';
import { createPlatform, rotatePlatformCredentials, type Actor } from '../services/platformRegistry.ts';
import { startDemoBff, type DemoBff } from './demoBff.ts';

export const DEMO_PLATFORM_KEY = 'DEMO_PLATFORM';
const DEV_CLIENT_ID = 'auth-gateway-dev';
const SEED_ACTOR: Actor = { type: 'cli', userId: null, sub: null, requestId: null };

export interface DevStack {
  /** The configuration with the dev identity provider filled in as the OIDC client. */
  config: Config;
  announce(logger: Logger): void;
  close(): Promise<void>;
}

/**
 * The no-configuration demo (development only, never in production): the dev
 * identity provider as the gateway's OpenID provider, a seeded demo platform,
 * and an example platform BFF to click through a whole login.
 */
export async function startDevStack(config: Config, db: Db, logger: Logger): Promise<DevStack> {
  if (config.isProduction) throw new Error('the development stack never runs in production');
  const clientSecret = randomBytes(32).toString('base64url');
  const idp: DevIdp = await startDevIdp({
    port: config.devIdpPort,
    clients: [{ clientId: DEV_CLIENT_ID, clientSecret, redirectUris: [config.authCallbackUrl] }],
    logger: { info: (obj, msg) => logger.debug({ devIdp: obj }, msg ?? 'dev identity provider') },
  });
  logger.info({ issuer: idp.issuer }, 'OIDC_ISSUER is unset: started the development identity provider');

  // Ask for the permission scopes too: the dev provider grants each only to users who hold it.
  const scopesConfigured = Boolean(process.env.OIDC_SCOPES?.trim());
  const devConfig: Config = Object.freeze({
    ...config,
    oidc: Object.freeze({
      ...config.oidc,
      issuer: idp.issuer,
      clientId: DEV_CLIENT_ID,
      clientSecret,
      scopes: scopesConfigured ? config.oidc.scopes : [...config.oidc.scopes, ...PERMISSION_SCOPES],
    }),
  });

  const bffUrl = `http://localhost:${config.demoBffPort}`;
  const credentials = await seedDemoPlatform(db, bffUrl);
  let bff: DemoBff | null = null;
  try {
    bff = await startDemoBff({ port: config.demoBffPort, gatewayUrl: config.publicBaseUrl, platformKey: DEMO_PLATFORM_KEY, ...credentials });
  } catch (error) {
    logger.warn({ err: error, port: config.demoBffPort }, 'the example platform BFF could not start (set DEMO_BFF_PORT)');
  }

  return {
    config: devConfig,
    announce(log) {
      const users = DEV_USERS.map((user) => `${user.username} / ${user.password}`).join(', ');
      log.info(
        { demo: bff?.url, users, devIdp: idp.issuer },
        `demo: open ${bff?.url ?? '(example BFF not running)'} and sign in as ${users}`,
      );
    },
    async close() {
      await bff?.close();
      await idp.close();
    },
  };
}

/**
 * The demo platform exists once; its secret is rotated at every start so the
 * in-process BFF knows it (only the digest is stored).
 */
async function seedDemoPlatform(db: Db, bffUrl: string): Promise<{ clientId: string; clientSecret: string }> {
  if (await findPlatformByKey(db, DEMO_PLATFORM_KEY)) {
    const rotated = await rotatePlatformCredentials(db, DEMO_PLATFORM_KEY, SEED_ACTOR);
    return { clientId: rotated.clientId, clientSecret: rotated.clientSecret };
  }
  const created = await createPlatform(
    db,
    {
      platformKey: DEMO_PLATFORM_KEY,
      displayName: 'Demo platform',
      callbackUrl: `${bffUrl}/auth/callback`,
      allowedReturnUrls: [`${bffUrl}/`],
      defaultOnboardingMode: 'none',
      centralOnboardingEnabled: true,
    },
    SEED_ACTOR,
  );
  return { clientId: created.platform.clientId!, clientSecret: created.clientSecret };
}
