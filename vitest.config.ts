import { configDefaults, defineConfig } from 'vitest/config';
import react from '@vitejs/plugin-react';

export default defineConfig({
  test: {
    // Two cores on CI: more workers only queue up behind PostgreSQL.
    maxWorkers: 2,
    reporters: ['default'],
    projects: [
      {
        test: {
          name: 'gateway',
          // The platform kit's tests run against the same gateway, provider and PostgreSQL.
          include: ['test/**/*.test.ts', 'packages/platform-kit/test/**/*.test.ts'],
          // The provider suite has its own configuration and run (npm run test:provider).
          exclude: [...configDefaults.exclude, 'test/provider/**'],
          // One PostgreSQL for the run; the account center built once for the browser tests.
          globalSetup: ['test/setup/globalDatabase.ts', 'test/setup/accountCenterBuild.ts'],
          setupFiles: ['test/setup/env.ts'],
          testTimeout: 30_000,
          hookTimeout: 60_000,
          // expect.poll's default second is too short on a loaded two-core CI machine (a page that
          // renders in 2 s there failed the branding test); a poll still ends as soon as it holds.
          expect: { poll: { timeout: 10_000 } },
        },
      },
      {
        plugins: [react()],
        test: {
          name: 'account-center',
          include: ['account-center/src/**/*.test.{ts,tsx}'],
          environment: 'jsdom',
          setupFiles: ['account-center/src/test/setup.ts'],
          // Typing with userEvent in jsdom takes seconds on a busy two-core machine.
          testTimeout: 20_000,
        },
      },
    ],
  },
});
