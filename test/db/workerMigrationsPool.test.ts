// graphile-worker's migrations (run by migrateLatest) on a pool of their own: graphile-worker ends
// a pool it makes itself without waiting, after taking its error handler off, so a connection
// that the server terminates in that moment (a restart at boot, a test database dropped right
// after migrating) raised an uncaught exception that brings a process down. Here the database
// is dropped (WITH FORCE: its connections are terminated) the moment the migrations return.
import { describe, expect, inject, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { createDb, migrateLatest } from '../../src/db/knex.ts';

describe("graphile-worker's migrations", () => {
  it('leave no connection behind that a terminated server turns into an uncaught exception', async () => {
    const uncaught: unknown[] = [];
    const record = (error: unknown) => uncaught.push(error);
    process.prependListener('uncaughtException', record);
    const admin = createDb(inject('databaseAdminUrl'), { poolMax: 1 });
    try {
      for (let attempt = 0; attempt < 5; attempt++) {
        const name = `test_${randomBytes(6).toString('hex')}`;
        await admin.raw(`CREATE DATABASE ${name}`);
        const url = new URL(inject('databaseAdminUrl'));
        url.pathname = `/${name}`;
        const db = createDb(url.href);
        await migrateLatest(db);
        // At once, on a connection already open: the server terminates every connection to it.
        await admin.raw(`DROP DATABASE ${name} WITH (FORCE)`);
        await db.destroy();
      }
      await new Promise((resolve) => setTimeout(resolve, 300));
    } finally {
      await admin.destroy();
      process.removeListener('uncaughtException', record);
    }
    expect(uncaught.map((error) => String(error))).toEqual([]);
  }, 60_000);
});
