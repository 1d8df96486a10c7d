import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { migrateLatest, migrateRollbackAll, type Db } from '../../src/db/knex.ts';

/**
 * The migrations on a fresh, unmigrated database: what they create, the
 * invariants the schema enforces by itself, and a full down/up round trip.
 * The tests of this file run in order and share the database.
 */

const TABLES = [
  'platforms',
  'users',
  'platform_credentials',
  'profiles',
  'auth_transactions',
  'gateway_sessions',
  'handoff_codes',
  'platform_memberships',
  'onboarding_fields',
  'onboarding_values',
  'audit_events',
  'rate_limits',
  'avatar_upload_tickets',
  'avatars',
  'backchannel_logout_jtis',
  'backchannel_logout_give_ups',
  'platform_documents',
  'document_versions',
  'agreement_records',
].sort();
const KNEX_TABLES = ['knex_migrations', 'knex_migrations_lock'];
// Every file of migrations/ must be applied (src/db/migrationList.ts lists them explicitly: a forgotten one fails here).
const MIGRATIONS = readdirSync(fileURLToPath(new URL('../../migrations/', import.meta.url)))
  .filter((name) => name.endsWith('.ts'))
  .map((name) => name.replace(/\.ts$/, ''))
  .sort();

async function userTables(db: Db): Promise<string[]> {
  const { rows } = await db.raw<{ rows: Array<{ name: string }> }>(
    `SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p', 'v', 'm') ORDER BY 1`,
  );
  return rows.map((row) => row.name);
}

/** The PostgreSQL error of a statement that must fail. */
async function failure(statement: Promise<unknown>): Promise<{ code: string; constraint?: string }> {
  try {
    await statement;
  } catch (error) {
    return error as { code: string; constraint?: string };
  }
  throw new Error('the statement succeeded but the schema should have refused it');
}

const digest = () => randomBytes(32);
const CHECK_VIOLATION = '23514';
const UNIQUE_VIOLATION = '23505';

describe('migrations', () => {
  let database: TestDatabase;
  let db: Db;

  beforeAll(async () => {
    database = await createTestDatabase({ migrate: false });
    db = database.db;
  });
  afterAll(async () => {
    await database.drop();
  });

  it('starts from an empty database', async () => {
    expect(await userTables(db)).toEqual([]);
  });

  it('migrateLatest applies every migration in order and creates every table', async () => {
    expect(MIGRATIONS.length).toBeGreaterThanOrEqual(4);
    expect(await migrateLatest(db)).toEqual(MIGRATIONS);
    expect(await userTables(db)).toEqual(expect.arrayContaining([...KNEX_TABLES, ...TABLES]));
    // a second run has nothing left to do
    expect(await migrateLatest(db)).toEqual([]);
  });

  it('every table carries a comment', async () => {
    const { rows } = await db.raw<{ rows: Array<{ name: string; comment: string | null }> }>(
      `SELECT c.relname AS name, obj_description(c.oid, 'pg_class') AS comment
         FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = 'public' AND c.relkind = 'r' AND NOT (c.relname = ANY(?))`,
      [KNEX_TABLES],
    );
    expect(rows.map((row) => row.name)).toEqual(expect.arrayContaining(TABLES));
    for (const row of rows) expect(row.comment, row.name).toEqual(expect.stringMatching(/\S/));
  });

  it.each([
    ['auth_transactions', 'state_digest'],
    ['handoff_codes', 'code_digest'],
    ['handoff_codes', 'transaction_id'],
    ['gateway_sessions', 'token_digest'],
    ['platform_credentials', 'token_digest'],
    ['platforms', 'platform_key'],
    ['platforms', 'client_id'],
    ['users', 'sub'],
  ])('%s.%s has a unique index', async (table, column) => {
    const { rows } = await db.raw<{ rows: Array<{ unique: boolean }> }>(
      `SELECT i.indisunique AS unique
         FROM pg_index i
         JOIN pg_class t ON t.oid = i.indrelid
         JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = i.indkey[0]
        WHERE t.relname = ? AND a.attname = ? AND i.indnatts = 1`,
      [table, column],
    );
    expect(rows.some((row) => row.unique), `unique index on ${table}(${column})`).toBe(true);
  });

  describe('invariants enforced by the schema', () => {
    let platformId: string;
    let userId: string;
    let sessionId: string;
    let transactionId: string;

    beforeAll(async () => {
      ({ id: platformId } = (await db('platforms').insert({ platform_key: 'MIGRATION_TEST', display_name: 'Migration test' }).returning('id'))[0]!);
      ({ id: userId } = (await db('users').insert({ sub: 'sub-migration-test' }).returning('id'))[0]!);
      ({ id: sessionId } = (
        await db('gateway_sessions').insert({ user_id: userId, token_digest: digest(), expires_at: db.raw("now() + interval '1 hour'") }).returning('id')
      )[0]!);
      ({ id: transactionId } = (await db('auth_transactions').insert(transaction()).returning('id'))[0]!);
    });

    function transaction() {
      return {
        platform_id: platformId,
        state_digest: digest(),
        nonce_digest: digest(),
        pkce_verifier_sealed: 'sealed-verifier',
        nonce_sealed: 'sealed-nonce',
        onboarding_mode: 'none',
        platform_callback_url: 'https://platform.example/callback',
        return_to: 'https://platform.example/',
        expires_at: db.raw("now() + interval '10 minutes'"),
      };
    }

    function handoff(overrides: Record<string, unknown> = {}) {
      return {
        code_digest: digest(),
        transaction_id: transactionId,
        platform_id: platformId,
        user_id: userId,
        session_id: sessionId,
        onboarding: JSON.stringify({ status: 'COMPLETE' }),
        expires_at: db.raw("now() + interval '1 minute'"),
        ...overrides,
      };
    }

    it('a platform key must match ^[A-Z][A-Z0-9_]{1,63}$', async () => {
      const error = await failure(db('platforms').insert({ platform_key: 'lowercase', display_name: 'x' }));
      expect(error.code).toBe(CHECK_VIOLATION);
      expect(error.constraint).toBe('platforms_platform_key_check');
      await db('platforms').insert({ platform_key: 'UPPER_CASE_OK', display_name: 'x' });
    });

    it('a platform key is unique', async () => {
      const error = await failure(db('platforms').insert({ platform_key: 'MIGRATION_TEST', display_name: 'again' }));
      expect(error.code).toBe(UNIQUE_VIOLATION);
    });

    it('an active platform needs a callback URL (and return URLs and credentials)', async () => {
      const complete = {
        display_name: 'Active',
        callback_url: 'https://platform.example/callback',
        allowed_return_urls: ['https://platform.example/'],
        client_id: `client_${randomBytes(4).toString('hex')}`,
        client_secret_digest: digest(),
        active: true,
      };
      const noCallback = await failure(db('platforms').insert({ ...complete, platform_key: 'NO_CALLBACK', callback_url: null }));
      expect(noCallback.code).toBe(CHECK_VIOLATION);
      expect(noCallback.constraint).toBe('platforms_active_is_complete');
      const noReturnUrls = await failure(db('platforms').insert({ ...complete, platform_key: 'NO_RETURN_URLS', allowed_return_urls: [] }));
      expect(noReturnUrls.constraint).toBe('platforms_active_is_complete');
      const noSecret = await failure(db('platforms').insert({ ...complete, platform_key: 'NO_SECRET', client_secret_digest: null }));
      expect(noSecret.constraint).toBe('platforms_active_is_complete');
      // the complete one is accepted, and can then not lose its callback while active
      await db('platforms').insert({ ...complete, platform_key: 'COMPLETE_ACTIVE' });
      const cleared = await failure(db('platforms').where({ platform_key: 'COMPLETE_ACTIVE' }).update({ callback_url: null }));
      expect(cleared.constraint).toBe('platforms_active_is_complete');
    });

    it('central onboarding mode needs central onboarding enabled', async () => {
      const error = await failure(
        db('platforms').insert({ platform_key: 'CENTRAL_OFF', display_name: 'x', default_onboarding_mode: 'central', central_onboarding_enabled: false }),
      );
      expect(error.constraint).toBe('platforms_central_needs_enabled');
    });

    it('at most one handoff code per transaction', async () => {
      await db('handoff_codes').insert(handoff());
      const error = await failure(db('handoff_codes').insert(handoff()));
      expect(error.code).toBe(UNIQUE_VIOLATION);
      expect(error.constraint).toBe('handoff_codes_transaction_id_key');
    });

    it('digests are unique and exactly 32 bytes', async () => {
      const { id: other } = ((await db('auth_transactions').insert(transaction()).returning('id')) as Array<{ id: string }>)[0]!;
      const shortDigest = await failure(db('handoff_codes').insert(handoff({ transaction_id: other, code_digest: randomBytes(16) })));
      expect(shortDigest.code).toBe(CHECK_VIOLATION);
      const { state_digest: used } = (await db('auth_transactions').where({ id: transactionId }).first('state_digest')) as { state_digest: Buffer };
      const duplicateState = await failure(db('auth_transactions').insert({ ...transaction(), state_digest: used }));
      expect(duplicateState.code).toBe(UNIQUE_VIOLATION);
      expect(duplicateState.constraint).toBe('auth_transactions_state_digest_key');
    });

    it('a pending transaction keeps its sealed secrets until consumed', async () => {
      const error = await failure(db('auth_transactions').insert({ ...transaction(), pkce_verifier_sealed: null }));
      expect(error.constraint).toBe('auth_transactions_secrets_until_consumed');
      await db('auth_transactions').insert({ ...transaction(), pkce_verifier_sealed: null, nonce_sealed: null, consumed_at: db.fn.now() });
    });

    it('session permissions are only the three known scopes', async () => {
      const error = await failure(
        db('gateway_sessions').insert({ user_id: userId, token_digest: digest(), permissions: ['admin'], expires_at: db.fn.now() }),
      );
      expect(error.code).toBe(CHECK_VIOLATION);
      await db('gateway_sessions').insert({
        user_id: userId,
        token_digest: digest(),
        permissions: ['platforms:admin', 'onboarding:schema:read', 'onboarding:schema:write'],
        expires_at: db.fn.now(),
      });
    });

    it('a PROFILE_FIELD onboarding field needs profile_field, and a CUSTOM_FIELD one must not have it', async () => {
      const field = { platform_id: platformId, label: 'Field', field_type: 'TEXT' };
      const missing = await failure(db('onboarding_fields').insert({ ...field, field_key: 'firstName', source: 'PROFILE_FIELD' }));
      expect(missing.code).toBe(CHECK_VIOLATION);
      expect(missing.constraint).toBe('onboarding_fields_profile_binding');
      const extra = await failure(db('onboarding_fields').insert({ ...field, field_key: 'company', source: 'CUSTOM_FIELD', profile_field: 'lastName' }));
      expect(extra.constraint).toBe('onboarding_fields_profile_binding');
      // A sharing rule exactly on a profile-bound field (issue 36).
      const unshared = await failure(db('onboarding_fields').insert({ ...field, field_key: 'firstName', source: 'PROFILE_FIELD', profile_field: 'firstName' }));
      expect(unshared.constraint).toBe('onboarding_fields_sharing_profile_bound');
      const customShared = await failure(db('onboarding_fields').insert({ ...field, field_key: 'company', sharing: 'ask' }));
      expect(customShared.constraint).toBe('onboarding_fields_sharing_profile_bound');
      const unknownRule = await failure(db('onboarding_fields').insert({ ...field, field_key: 'firstName', source: 'PROFILE_FIELD', profile_field: 'firstName', sharing: 'sometimes' }));
      expect(unknownRule.code).toBe(CHECK_VIOLATION);
      await db('onboarding_fields').insert({ ...field, field_key: 'firstName', source: 'PROFILE_FIELD', profile_field: 'firstName', sharing: 'shared' });
      await db('onboarding_fields').insert({ ...field, field_key: 'company' });
    });

    it('onboarding field keys are unique per platform and SELECT fields need options', async () => {
      const field = { platform_id: platformId, label: 'Field', field_type: 'TEXT' };
      const duplicate = await failure(db('onboarding_fields').insert({ ...field, field_key: 'company' }));
      expect(duplicate.constraint).toBe('onboarding_fields_key_unique');
      const badKey = await failure(db('onboarding_fields').insert({ ...field, field_key: '1abc' }));
      expect(badKey.code).toBe(CHECK_VIOLATION);
      const noOptions = await failure(db('onboarding_fields').insert({ ...field, field_key: 'size', field_type: 'SELECT' }));
      expect(noOptions.constraint).toBe('onboarding_fields_select_options');
    });
  });

  it('migrateRollbackAll drops everything but knex’s own tables', async () => {
    expect([...(await migrateRollbackAll(db))].sort()).toEqual([...MIGRATIONS].sort());
    expect(await userTables(db)).toEqual(KNEX_TABLES);
    const { rows } = await db.raw<{ rows: unknown[] }>(`SELECT 1 FROM knex_migrations`);
    expect(rows).toEqual([]);
  });

  it('migrateLatest works again after the rollback (down then up round trip)', async () => {
    expect(await migrateLatest(db)).toEqual(MIGRATIONS);
    expect(await userTables(db)).toEqual(expect.arrayContaining([...KNEX_TABLES, ...TABLES]));
    expect(await db('platforms').count({ n: '*' })).toEqual([{ n: 0 }]);
  });
});
