import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import * as migration from '../../migrations/20261122001400_handoff_challenge_required.ts';

/**
 * The migration that makes every platform require handoffChallenge at start: platforms
 * registered before it exist without the column, and must come out requiring it. Its own
 * up and down are called directly, so a later migration cannot change what is tested.
 */
describe('migration 20261122001400_handoff_challenge_required', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await database.drop();
  });

  const columnExists = async () =>
    (
      await database.db.raw<{ rows: unknown[] }>(
        `SELECT 1 FROM information_schema.columns WHERE table_name = 'platforms' AND column_name = 'handoff_challenge_required'`,
      )
    ).rows.length === 1;

  it('sets the setting true for platforms that existed before it, and is the default for new ones', async () => {
    const db = database.db;
    await migration.down(db);
    expect(await columnExists()).toBe(false);
    await db('platforms').insert([
      { platform_key: 'EXISTING_ACTIVE', display_name: 'Existing', active: false },
      { platform_key: 'EXISTING_OTHER', display_name: 'Other', active: false },
    ]);

    await migration.up(db);
    const { rows } = await db.raw<{ rows: Array<{ key: string; required: boolean }> }>(
      `SELECT platform_key AS key, handoff_challenge_required AS required FROM platforms ORDER BY 1`,
    );
    expect(rows).toEqual([
      { key: 'EXISTING_ACTIVE', required: true },
      { key: 'EXISTING_OTHER', required: true },
    ]);
    await db('platforms').insert({ platform_key: 'NEW_ONE', display_name: 'New', active: false });
    expect((await db('platforms').where({ platform_key: 'NEW_ONE' }).first('handoff_challenge_required')).handoff_challenge_required).toBe(true);
    // An operator may turn it off; NULL is not a setting.
    await db('platforms').where({ platform_key: 'NEW_ONE' }).update({ handoff_challenge_required: false });
    await expect(db('platforms').where({ platform_key: 'NEW_ONE' }).update({ handoff_challenge_required: null })).rejects.toMatchObject({ code: '23502' });
  });

  it('down drops the column again', async () => {
    await migration.down(database.db);
    expect(await columnExists()).toBe(false);
    await migration.up(database.db);
    expect(await columnExists()).toBe(true);
  });
});
