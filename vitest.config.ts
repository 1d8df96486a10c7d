import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/setup/globalDatabase.ts'],
    setupFiles: ['test/setup/env.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores on CI: more workers only queue up behind PostgreSQL.
    maxWorkers: 2,
    reporters: ['default'],
  },
});
