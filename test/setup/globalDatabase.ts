import type { TestProject } from 'vitest/node';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startEmbeddedDatabase } from '../../src/db/embedded.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Connection string of a maintenance database on the test server; each test file makes its own database. */
    databaseAdminUrl: string;
  }
}

/**
 * One real PostgreSQL for the whole run: TEST_DATABASE_URL when set, otherwise
 * the embedded server in a temporary folder, removed afterwards.
 */
export default async function setup(project: TestProject) {
  const external = process.env.TEST_DATABASE_URL;
  if (external) {
    project.provide('databaseAdminUrl', external);
    return undefined;
  }
  const folder = await mkdtemp(path.join(tmpdir(), 'auth-gateway-test-'));
  // mkdtemp makes the folder owner-only; as root, PostgreSQL runs as `postgres` and must get in.
  await chmod(folder, 0o755);
  const server = await startEmbeddedDatabase({ dataDir: path.join(folder, 'data'), port: 0, persistent: false });
  project.provide('databaseAdminUrl', server.adminUrl);
  return async () => {
    await server.stop();
    await rm(folder, { recursive: true, force: true });
  };
}
