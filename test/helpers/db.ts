import { inject } from 'vitest';
import { randomBytes } from 'node:crypto';
import { createDb, migrateLatest, type Db } from '../../src/db/knex.ts';

export interface TestDatabase {
  db: Db;
  url: string;
  name: string;
  drop(): Promise<void>;
}

/** An isolated, migrated database for one test file on the run's PostgreSQL server. */
export async function createTestDatabase(options: { migrate?: boolean } = {}): Promise<TestDatabase> {
  const adminUrl = inject('databaseAdminUrl');
  const name = `test_${randomBytes(6).toString('hex')}`;
  const admin = createDb(adminUrl, { poolMax: 1 });
  await admin.raw(`CREATE DATABASE ${name}`);
  await admin.destroy();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const db = createDb(url.href);
  if (options.migrate ?? true) await migrateLatest(db);
  return {
    db,
    url: url.href,
    name,
    async drop() {
      await db.destroy();
      const cleanup = createDb(adminUrl, { poolMax: 1 });
      await cleanup.raw(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await cleanup.destroy();
    },
  };
}
