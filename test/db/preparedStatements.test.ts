import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { createDb, type Db } from '../../src/db/knex.ts';
import { findActivePlatformByKey, findActivePlatformByKeyCounting } from '../../src/db/repositories/platforms.ts';
import { consumeTransactionByState, insertTransaction } from '../../src/db/repositories/transactions.ts';
import { createPlatform, CLI_ACTOR } from '../../src/services/platformRegistry.ts';
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
    const count = { key: `auth_start:${randomToken()}`, durationMs: 60_000 };
    const first = await findActivePlatformByKeyCounting(db, 'PREPARED', count);
    expect(first.platform?.id).toBe(platformId);
    expect(first.counted.points).toBe(1);
    expect(first.counted.expire).toBeGreaterThan(Date.now());
    const second = await findActivePlatformByKeyCounting(db, 'NO-SUCH-PLATFORM', count);
    expect(second.platform).toBeUndefined();
    expect(second.counted).toEqual({ points: 2, expire: first.counted.expire });
    const state = randomToken();
    await insertTransaction(db, {
      id: randomUUID(), platformId, stateDigest: sha256(state), nonceDigest: sha256(randomToken()),
      pkceVerifierSealed: 'x', nonceSealed: 'x', onboardingMode: 'none', platformCallbackUrl: 'https://p.example/cb',
      returnTo: 'https://p.example/', browserBindingDigest: sha256(randomToken()), handoffChallenge: null, ttlSeconds: 600,
    });
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

  it('refuses a value other than true or false', () => {
    expect(() => loadConfig({ DATABASE_PREPARED_STATEMENTS: 'yes' })).toThrow(/DATABASE_PREPARED_STATEMENTS/);
  });
});
