import path from 'node:path';
import type { Logger } from 'pino';
import type { Config } from '../config/index.ts';
import type { Db } from '../db/knex.ts';
import { startDevIdp, PERMISSION_SCOPES, type DevIdp, type DevIdpAccounts } from '../devidp/index.ts';
import type { FieldCreateInput } from '../services/onboarding/schema.ts';
import { acceptsPublishedDevCredentials, DEV_OIDC_CLIENT, DEV_PLATFORM_CREDENTIALS } from '../security/devCredentials.ts';
import { seedDemoDocuments, seedDemoPlatform, type DemoDocument } from './seed.ts';
import { seedDemoBranding } from './branding.ts';
import { announceReady } from './announcement.ts';
import { startDemoBff, type DemoBff } from './demoBff.ts';
import { signedOutPath } from '../services/sessions/signOut.ts';
import { otpauthUri } from '../devidp/totp.ts';
import type { AccountCenterServer } from '../../account-center/server/server.ts';

export const DEMO_PLATFORM_KEY = 'DEMO_PLATFORM';
/** A second demo platform in central mode, with required fields, to click through central onboarding. */
export const DEMO_CENTRAL_PLATFORM_KEY = 'DEMO_CENTRAL';
/** The account center's own platform when AUTH_PLATFORM_KEY is unset. */
export const ACCOUNT_CENTER_PLATFORM_KEY = 'ACCOUNT_CENTER';
const DEV_CLIENT_ID = DEV_OIDC_CLIENT.clientId;
/** Terms and a privacy notice of the central demo platform: a new person accepts both in the account center (issue 25). */
const DEMO_CENTRAL_DOCUMENTS: readonly DemoDocument[] = [
  {
    documentKey: 'terms',
    kind: 'terms',
    title: 'Terms of use',
    markdown: '# Terms of use\n\nThis is the **demo** platform of the development stack. Use it to try the gateway; nothing here is real.\n\n- Be kind.\n- Do not store real personal data.\n\nThe full text of real terms would be here, or [linked](https://example.com/terms).',
  },
  {
    documentKey: 'privacy',
    kind: 'privacy',
    title: 'Privacy notice',
    markdown: '# Privacy notice\n\nThe demo keeps what you enter in a local database under `.data/`, on this machine only.',
  },
];
/** The dev identity provider's users, password hashes and states, kept across restarts (git-ignored). */
export const DEV_IDP_USERS_FILE = path.resolve('.data/dev-idp-users.json');

export interface DevStack {
  /** The configuration with the dev identity provider filled in as the OIDC client. */
  config: Config;
  /** The dev identity provider's accounts, for the gateway's development adapter (password change, methods). */
  idpAccounts: DevIdpAccounts;
  /** The "what next" block (announcement.ts); `pretty`: the log is read at a terminal. */
  announce(logger: Logger, output: { pretty: boolean }): void;
  close(): Promise<void>;
}

/**
 * The no-configuration demo (development only, never in production): the dev
 * identity provider as the gateway's OpenID provider, a seeded demo platform,
 * and an example platform BFF to click through a whole login.
 */
export async function startDevStack(config: Config, db: Db, logger: Logger): Promise<DevStack> {
  if (config.isProduction) throw new Error('the development stack never runs in production');
  // Published (src/security/devCredentials.ts): the dev provider runs only here, and
  // `npm run gateway -- dev token` signs in with this client too.
  const clientSecret = DEV_OIDC_CLIENT.clientSecret;
  // The published demo credentials only on the dev stack's own database (never on DATABASE_URL's).
  const published = (platformKey: string) => (acceptsPublishedDevCredentials(config) ? DEV_PLATFORM_CREDENTIALS[platformKey] ?? null : null);
  const idp: DevIdp = await startDevIdp({
    port: config.devIdpPort,
    clients: [{
      clientId: DEV_CLIENT_ID,
      clientSecret,
      redirectUris: [config.authCallbackUrl],
      postLogoutRedirectUris: [`${config.publicBaseUrl}${signedOutPath}`],
      backchannelLogoutUri: `${config.publicBaseUrl}/v1/auth/backchannel-logout`,
    }],
    usersFile: DEV_IDP_USERS_FILE,
    homeUrl: `http://localhost:${config.demoBffPort}/`, // the example BFF: where a dev login starts
    logger: { info: (obj, msg) => logger.debug({ devIdp: obj }, msg ?? 'dev identity provider') },
  });
  logger.info({ issuer: idp.issuer, usersFile: DEV_IDP_USERS_FILE }, 'OIDC_ISSUER is unset: started the development identity provider');

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
  const credentials = await seedDemoPlatform(db, {
    platformKey: DEMO_PLATFORM_KEY,
    displayName: 'Demo platform',
    callbackUrl: `${bffUrl}/auth/callback`,
    // The example BFF ends its own session when a gateway session ends (back-channel logout).
    backchannelLogoutUrl: `${bffUrl}/backchannel-logout`,
    // …and hears about its people (deletion, erasure, leaving it, profile changes) by pushed SETs.
    eventDelivery: 'push',
    eventReceiverUrl: `${bffUrl}/security-events`,
    allowedReturnUrls: [`${bffUrl}/`],
    defaultOnboardingMode: 'none',
  }, published(DEMO_PLATFORM_KEY), DEMO_FIELDS);
  const centralCredentials = await seedDemoPlatform(
    db,
    {
      platformKey: DEMO_CENTRAL_PLATFORM_KEY,
      displayName: 'Demo platform with central onboarding',
      callbackUrl: `${bffUrl}/central/auth/callback`,
      backchannelLogoutUrl: `${bffUrl}/central/backchannel-logout`,
      eventDelivery: 'push',
      eventReceiverUrl: `${bffUrl}/central/security-events`,
      allowedReturnUrls: [`${bffUrl}/central/`],
      defaultOnboardingMode: 'central',
      // Support access (issue 35): the person approves first; the example BFF's own sign-in route
      // forwards the access to the gateway's start (the platform kit does).
      supportAccess: 'approve',
      supportSignInUrl: `${bffUrl}/central/login`,
    },
    published(DEMO_CENTRAL_PLATFORM_KEY),
    DEMO_CENTRAL_FIELDS,
  );
  // Their faces on the onboarding page and the sign-in error pages (issue 27).
  await seedDemoBranding(db, config.publicBaseUrl, DEMO_PLATFORM_KEY, { primaryColor: '#5a2d82', displayNames: { de: 'Demo-Plattform' }, logo: { fill: '#5a2d82', ring: '#f4c430' } });
  await seedDemoBranding(db, config.publicBaseUrl, DEMO_CENTRAL_PLATFORM_KEY, {
    primaryColor: '#0b6e69',
    displayNames: { de: 'Demo-Plattform mit zentralem Onboarding' },
    logo: { fill: '#0b6e69', ring: '#ffffff' },
  });
  await seedDemoDocuments(db, DEMO_CENTRAL_PLATFORM_KEY, DEMO_CENTRAL_DOCUMENTS);
  const accountCenter = await startAccountCenter(config, db, logger, published);
  let bff: DemoBff | null = null;
  try {
    bff = await startDemoBff({
      port: config.demoBffPort,
      gatewayUrl: config.publicBaseUrl,
      gatewayCookieName: config.gatewayCookieName,
      ...(config.listenHost ? { host: config.listenHost } : {}),
      platforms: [
        { platformKey: DEMO_PLATFORM_KEY, name: 'Demo platform', basePath: '', ...credentials },
        { platformKey: DEMO_CENTRAL_PLATFORM_KEY, name: 'Demo platform with central onboarding', basePath: '/central', ...centralCredentials },
      ],
    });
  } catch (error) {
    logger.warn({ err: error, port: config.demoBffPort }, 'the example platform BFF could not start (set DEMO_BFF_PORT)');
  }

  return {
    config: devConfig,
    idpAccounts: idp.accounts,
    announce(log, output) {
      announceReady(log, {
        bffUrl: bff?.url ?? null,
        accountCenterUrl: accountCenter?.url ?? null,
        gatewayUrl: config.publicBaseUrl,
        devIdpUrl: idp.issuer,
        platforms: [
          { platformKey: DEMO_PLATFORM_KEY, ...credentials },
          { platformKey: DEMO_CENTRAL_PLATFORM_KEY, ...centralCredentials },
        ],
        // Only the seeded users whose published password still works (a changed one is never shown).
        users: idp.seedHints().map((user) => `${user.username} / ${user.password}`).join(', ') || `a user of ${DEV_IDP_USERS_FILE}`,
        secondFactors: idp.users.filter((user) => idp.totpSecrets[user.sub]).map((user) => ({ username: user.username, uri: otpauthUri('Dev IdP', user.username, idp.totpSecrets[user.sub]!) })),
      }, output);
    },
    async close() {
      await accountCenter?.close();
      await bff?.close();
      await idp.close();
    },
  };
}

/**
 * The demo platform (onboarding mode `none`) asks for the profile's phone, optionally and shared:
 * a number given to it (in the account center, /onboarding/DEMO) is what the central demo
 * platform then offers, asking first (issue 36).
 */
export const DEMO_FIELDS: FieldCreateInput[] = [
  { fieldKey: 'phone', label: 'Phone', fieldType: 'PHONE', source: 'PROFILE_FIELD', profileField: 'phone', sharing: 'shared', sortOrder: 10, placeholder: '+44 20 7183 8750', translations: { de: { label: 'Telefon', placeholder: '+49 30 901820' } } },
];

// German texts beside the English ones (issue 27): a browser asking for German sees the demo's
// onboarding in German; the country list is named by the account center in either language.
export const DEMO_CENTRAL_FIELDS: FieldCreateInput[] = [
  { fieldKey: 'firstName', label: 'First name', fieldType: 'TEXT', source: 'PROFILE_FIELD', profileField: 'firstName', required: true, sortOrder: 10, uiConfig: { width: 'half' }, translations: { de: { label: 'Vorname' } } },
  { fieldKey: 'company', label: 'Company', fieldType: 'TEXT', required: true, sortOrder: 20, placeholder: 'Acme Ltd', uiConfig: { width: 'half' }, translations: { de: { label: 'Unternehmen', placeholder: 'Muster GmbH' } } },
  { fieldKey: 'country', label: 'Country', fieldType: 'COUNTRY', source: 'PROFILE_FIELD', profileField: 'country', required: true, sortOrder: 30, translations: { de: { label: 'Land' } } },
  {
    fieldKey: 'teamSize',
    label: 'Team size',
    fieldType: 'SELECT',
    required: true,
    sortOrder: 40,
    options: [{ value: '1-10', label: '1 to 10' }, { value: '11-50', label: '11 to 50' }, { value: '51+', label: 'More than 50' }],
    uiConfig: { helpText: 'Roughly how many people will use the platform.' },
    translations: {
      de: { label: 'Teamgröße', helpText: 'Ungefähr wie viele Personen die Plattform nutzen werden.', options: { '1-10': '1 bis 10', '11-50': '11 bis 50', '51+': 'Mehr als 50' } },
    },
  },
  // The profile's phone, asked before reusing the number given to the demo platform (issue 36).
  {
    fieldKey: 'phone', label: 'Work phone', fieldType: 'PHONE', source: 'PROFILE_FIELD', profileField: 'phone', sharing: 'ask', sortOrder: 50,
    placeholder: '+44 20 7183 8750', description: 'Only used if your account needs attention.',
    translations: { de: { label: 'Telefon (geschäftlich)', placeholder: '+49 30 901820', description: 'Nur für den Fall, dass wir Sie zu Ihrem Konto erreichen müssen.' } },
  },
  { fieldKey: 'newsletter', label: 'Send me the product newsletter', fieldType: 'BOOLEAN', sortOrder: 60, translations: { de: { label: 'Senden Sie mir den Produkt-Newsletter' } } },
];

/**
 * The account center at ACCOUNT_CENTER_URL, registered as its own platform (its server is
 * that platform's back end), built first when its build is missing or stale.
 */
async function startAccountCenter(
  config: Config,
  db: Db,
  logger: Logger,
  published: (platformKey: string) => { clientId: string; clientSecret: string } | null,
): Promise<AccountCenterServer | null> {
  const url = config.accountCenterUrl;
  const platformKey = config.authPlatformKey ?? ACCOUNT_CENTER_PLATFORM_KEY;
  const credentials = await seedDemoPlatform(db, {
    platformKey,
    displayName: 'Account center',
    callbackUrl: `${url}/auth/callback`,
    allowedReturnUrls: [`${url}/`],
    defaultOnboardingMode: 'none',
  }, published(ACCOUNT_CENTER_PLATFORM_KEY));
  try {
    const { ensureAccountCenterBuilt, ACCOUNT_CENTER_DIST } = await import('../../account-center/server/build.ts');
    if ((await ensureAccountCenterBuilt()) === 'built') logger.info('built the account center');
    const { startAccountCenterServer } = await import('../../account-center/server/server.ts');
    return await startAccountCenterServer({
      port: Number(new URL(url).port || 80),
      host: '127.0.0.1',
      publicUrl: url,
      authBackendUrl: `${config.publicBaseUrl}/v1`,
      platformKey,
      ...credentials,
      distDir: ACCOUNT_CENTER_DIST,
    });
  } catch (error) {
    logger.warn({ err: error, url }, 'the account center could not start (set ACCOUNT_CENTER_URL to another port)');
    return null;
  }
}
