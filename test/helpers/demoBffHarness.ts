// The example BFF (src/devstack/demoBff.ts) in front of a test gateway: the platform it signs in
// to is registered with the registry's defaults (the handoff challenge required), on a free port.
import { startHarness, type Harness } from './flowHarness.ts';
import { startDemoBff, type DemoBff } from '../../src/devstack/demoBff.ts';
import { createPlatform, CLI_ACTOR } from '../../src/services/registry/index.ts';
import { freePort } from '../../src/db/embedded.ts';

export interface DemoBffHarness {
  harness: Harness;
  bff: DemoBff;
  close(): Promise<void>;
}

export async function startDemoBffHarness(platformKey: string): Promise<DemoBffHarness> {
  const harness = await startHarness();
  const bffUrl = `http://127.0.0.1:${await freePort()}`;
  const created = await createPlatform(
    harness.database.db,
    { platformKey, displayName: platformKey.replaceAll('_', ' '), callbackUrl: `${bffUrl}/auth/callback`, allowedReturnUrls: [`${bffUrl}/`], defaultOnboardingMode: 'none' },
    CLI_ACTOR,
  );
  const bff = await startDemoBff({
    port: Number(new URL(bffUrl).port),
    gatewayUrl: harness.baseUrl,
    platformKey,
    clientId: created.platform.clientId!,
    clientSecret: created.clientSecret,
    publicUrl: bffUrl,
  });
  return {
    harness,
    bff,
    async close() {
      await bff.close();
      await harness.close();
    },
  };
}
