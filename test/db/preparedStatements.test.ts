import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertTestTransaction } from '../helpers/transactions.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { createDb, runPrepared, type Db } from '../../src/db/knex.ts';
import { findActivePlatformByKey, findActivePlatformByKeyCounting } from '../../src/services/registry/platformsRepository.ts';
import { consumeTransactionByState } from '../../src/services/login/transactionsRepository.ts';
import { createPlatform, CLI_ACTOR } from '../../src/services/registry/index.ts';
import { loadConfig } from '../../src/config/index.ts';
import { randomToken, sha256 } from '../../src/security/crypto.ts';

// DATABASE_PREPARED_STATEMENTS: the login's hot statements are named for pg, which prepares
// them once per connection (PostgreSQL lists them in pg_prepared_statements of that
// connection); with the switch off, as behind a pooler without prepared statements, the
// same statements run unnamed and nothing is prepared.
describe('prepared statements (DATABASE_PREPARED_STATEMENTS)', () => {
  let database: TestDatabase;
  let platformId: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    await createPlatform(
      database.db,
      { platformKey: 'PREPARED', displayName: 'Prepared', callbackUrl: 'https://p.example/cb', allowedReturnUrls: ['https://p.example/'], defaultOnboardingMode: 'none' },
      CLI_ACTOR,
    );
    platformId = (await findActivePlatformByKey(database.db, 'PREPARED'))!.id;
  });
  afterAll(async () => {
    await database?.drop();
  });

  /** A start and a callback's consume on a one-connection pool; then what that connection has prepared. */
  async function loginStatements(db: Db): Promise<{ prepared: string[]; synchronousCommit: string; consumed: boolean }> {
    expect((await findActivePlatformByKey(db, 'PREPARED'))?.id).toBe(platformId);
    // The start's read with its rate-limit count (committed asynchronously too): a point per call, and the platform.
    const limit = { key: `auth_start:${randomToken()}`, points: 1, durationMs: 60_000 };
    const first = await findActivePlatformByKeyCounting(db, 'PREPARED', limit);
    expect(first.platform?.id).toBe(platformId);
    expect(first.rateLimitedUntil).toBeNull();
    const second = await findActivePlatformByKeyCounting(db, 'NO-SUCH-PLATFORM', limit);
    expect(second.platform).toBeUndefined();
    expect(second.rateLimitedUntil).toBeGreaterThan(Date.now()); // the second point of a budget of one
    const { state } = await insertTestTransaction(db, platformId);
    const consumed = await consumeTransactionByState(db, sha256(state));
    const again = await consumeTransactionByState(db, sha256(state));
    expect(again).toBeUndefined(); // single use, named or not
    const { rows } = await db.raw<{ rows: { name: string }[] }>('SELECT name FROM pg_prepared_statements ORDER BY name');
    // The start's asynchronous commit is local to its own transaction: the connection is back to the default.
    const { rows: setting } = await db.raw<{ rows: { synchronous_commit: string }[] }>('SHOW synchronous_commit');
    return { prepared: rows.map((row) => row.name), synchronousCommit: setting[0]!.synchronous_commit, consumed: consumed?.platform.platformKey === 'PREPARED' };
  }

  it('on (the default): the hot statements are prepared on the connection', async () => {
    expect(loadConfig({}).databasePreparedStatements).toBe(true);
    const db = createDb(database.url, { poolMax: 1, preparedStatements: loadConfig({}).databasePreparedStatements });
    try {
      const seen = await loginStatements(db);
      expect(seen.consumed).toBe(true);
      expect(seen.prepared).toEqual(expect.arrayContaining(['gw_active_platform_by_key', 'gw_active_platform_by_key_counting', 'gw_insert_transaction', 'gw_consume_transaction']));
      expect(seen.synchronousCommit).toBe('on');
    } finally {
      await db.destroy();
    }
  });

  it('off: the same statements run, and none is prepared', async () => {
    const preparedStatements = loadConfig({ DATABASE_PREPARED_STATEMENTS: 'false' }).databasePreparedStatements;
    expect(preparedStatements).toBe(false);
    const db = createDb(database.url, { poolMax: 1, preparedStatements });
    try {
      const seen = await loginStatements(db);
      expect(seen.consumed).toBe(true);
      expect(seen.prepared).toEqual([]);
      expect(seen.synchronousCommit).toBe('on');
    } finally {
      await db.destroy();
    }
  });

  // runPrepared sends the hot statements through pg itself, without knex's query builder.
  describe('runPrepared', () => {
    it('binds named and positional values, a repeated name once, and leaves casts (::) alone', async () => {
      const named = await runPrepared<{ a: string; b: number; again: string }>(
        database.db,
        'test_named_bindings',
        'SELECT CAST(:a AS text) AS a, :b::int + 1 AS b, CAST(:a AS text) AS again',
        { a: 'x:y', b: 41, unused: 'ignored' },
      );
      expect(named.rows).toEqual([{ a: 'x:y', b: 42, again: 'x:y' }]);
      const positional = await runPrepared<{ first: string; second: string }>(database.db, 'test_positional_bindings', 'SELECT CAST(? AS text) AS first, CAST(? AS text) AS second', ['1', '2']);
      expect(positional.rows).toEqual([{ first: '1', second: '2' }]);
    });

    it('refuses an undefined value, as knex does, rather than sending NULL', async () => {
      await expect(runPrepared(database.db, 'test_undefined_binding', 'SELECT CAST(:a AS text) AS a', { a: undefined })).rejects.toThrow(/Undefined binding a/);
    });

    it('refuses one name for two texts (pg would run the first text with the second one\'s values)', async () => {
      await runPrepared(database.db, 'test_one_name', 'SELECT 1 AS one', []);
      await expect(runPrepared(database.db, 'test_one_name', 'SELECT 2 AS two', [])).rejects.toThrow(/two different texts/);
    });

    it('emits knex\'s query events (what traces listen to), and a failed statement returns its connection', async () => {
      const db = createDb(database.url, { poolMax: 1 });
      const events: string[] = [];
      db.on('query', (query: { sql: string }) => events.push(`query ${query.sql}`));
      db.on('query-response', () => events.push('response'));
      db.on('query-error', (error: { code?: string }) => events.push(`error ${error.code}`));
      try {
        await runPrepared(db, 'test_events', 'SELECT CAST(? AS int) AS n', [1]);
        await expect(runPrepared(db, 'test_events_error', 'SELECT 1 / CAST(? AS int) AS n', [0])).rejects.toMatchObject({ code: '22012' });
        // One connection in the pool: a connection not released would make this wait for the acquire timeout.
        expect((await runPrepared<{ n: number }>(db, 'test_events', 'SELECT CAST(? AS int) AS n', [2])).rows).toEqual([{ n: 2 }]);
        expect(events).toEqual(['query SELECT CAST($1 AS int) AS n', 'response', 'query SELECT 1 / CAST($1 AS int) AS n', 'error 22012', 'query SELECT CAST($1 AS int) AS n', 'response']);
      } finally {
        await db.destroy();
      }
    });
  });

  it('refuses a value other than true or false', () => {
    expect(() => loadConfig({ DATABASE_PREPARED_STATEMENTS: 'yes' })).toThrow(/DATABASE_PREPARED_STATEMENTS/);
  });
});
