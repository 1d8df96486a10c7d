// A platform's Express app on the kit, in front of the real gateway, dev identity provider and
// PostgreSQL (test/helpers/flowHarness.ts): the set-up the kit's end-to-end tests share.
import http from 'node:http';
import express from 'express';
import { randomBytes } from 'node:crypto';
import { startHarness, type Harness } from '../../../test/helpers/flowHarness.ts';
import { freePort } from '../../../src/db/embedded.ts';
import { CLI_ACTOR, createPlatform } from '../../../src/services/registry/index.ts';
import { createPlatformKit, type PlatformKit, type PlatformKitOptions } from '../src/index.ts';
import { platformKitRouter } from '../src/express.ts';

export interface KitApp {
  harness: Harness;
  kit: PlatformKit;
  appUrl: string;
  /** Whether a URL is the gateway's or the provider's (a browser following a login stops elsewhere). */
  isGatewayOrProvider(url: string): boolean;
  close(): Promise<void>;
}

/**
 * A platform registered with onboarding mode `none`, the kit configured for it (its own cookie
 * secret), and an app serving the kit's routes and then `routes`.
 */
export async function startKitApp(options: {
  platformKey: string;
  displayName: string;
  kit?: Partial<PlatformKitOptions>;
  routes(app: express.Express, kit: PlatformKit): void;
}): Promise<KitApp> {
  const harness = await startHarness();
  const port = await freePort();
  const appUrl = `http://127.0.0.1:${port}`;
  const created = await createPlatform(
    harness.database.db,
    { platformKey: options.platformKey, displayName: options.displayName, callbackUrl: `${appUrl}/auth/callback`, allowedReturnUrls: [`${appUrl}/`], defaultOnboardingMode: 'none' },
    CLI_ACTOR,
  );
  const kit = createPlatformKit({
    gatewayUrl: harness.baseUrl,
    platformKey: options.platformKey,
    clientId: created.platform.clientId!,
    clientSecret: created.clientSecret,
    publicUrl: appUrl,
    cookieSecret: randomBytes(32).toString('base64url'),
    ...options.kit,
  });
  const app = express();
  app.use(platformKitRouter(kit));
  options.routes(app, kit);
  const server = await new Promise<http.Server>((resolve) => {
    const listening = app.listen(port, '127.0.0.1', () => resolve(listening));
  });
  return {
    harness,
    kit,
    appUrl,
    isGatewayOrProvider: (url) => url.startsWith(harness.baseUrl) || url.startsWith(harness.idp.issuer),
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await harness.close();
    },
  };
}
