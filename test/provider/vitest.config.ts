import { defineConfig } from 'vitest/config';

// `npm run test:provider`: the gateway against LemonLDAP::NG, and Glewlwyd for check 5 (test/provider/README in docs/providers.md).
// Its own vitest configuration, not a project of the main one: it installs Debian packages and
// starts a provider that npm test must not need, and its files share that one provider and change
// its configuration (a rotated key), so they run one after the other, in one worker.
export default defineConfig({
  test: {
    name: 'provider',
    root: new URL('../..', import.meta.url).pathname,
    include: ['test/provider/**/*.test.ts'],
    globalSetup: ['test/setup/globalDatabase.ts', 'test/provider/globalProvider.ts'],
    setupFiles: ['test/setup/env.ts'],
    fileParallelism: false,
    maxWorkers: 1,
    // Every check is bounded: a login through a real browser and provider takes a few seconds.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    teardownTimeout: 30_000,
    reporters: ['default', './test/provider/closingLine.ts'],
  },
});
