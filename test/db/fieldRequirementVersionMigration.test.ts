import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import * as migration from '../../migrations/20261129006000_field_requirement_version.ts';

/**
 * Which fields a grace covers (issue 36 review): fields changed before the column existed get
 * the version of the change in grace that last wrote them (same transaction, same now()), and
 * every other field is in force (NULL). Up and down are called directly.
 */
describe('migration 20261129006000_field_requirement_version', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await database.drop();
  });

  it('backfills the version of a change in grace that last wrote a field, and leaves the others in force', async () => {
    const db = database.db;
    await migration.down(db);
    const [platform] = await db('platforms').insert({ platform_key: 'GRACED', display_name: 'Graced', active: false, requirement_version: 3 }).returning('id');
    const field = (fieldKey: string) => ({ platform_id: platform.id, field_key: fieldKey, label: fieldKey, field_type: 'TEXT', source: 'CUSTOM_FIELD', required: true });
    // Before: a field of an immediate change (version 2, no grace row).
    await db.transaction(async (trx) => {
      await trx('onboarding_fields').insert(field('company'));
    });
    // The change in grace (version 3): the field and the grace row in one transaction.
    await db.transaction(async (trx) => {
      await trx('onboarding_fields').insert(field('teamSize'));
      await trx('requirement_graces').insert({ platform_id: platform.id, requirement_version: 3, enforce_after: new Date(Date.now() + 86_400_000) });
    });

    await migration.up(db);
    const { rows } = await db.raw<{ rows: { fieldKey: string; version: number | null }[] }>(
      'SELECT field_key AS "fieldKey", requirement_version AS version FROM onboarding_fields ORDER BY field_key',
    );
    expect(rows).toEqual([{ fieldKey: 'company', version: null }, { fieldKey: 'teamSize', version: 3 }]);
  });
});
