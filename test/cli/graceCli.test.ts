import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';

// Issue 36 from the operator CLI: a field change and a document publication with
// --enforce-after, `grace list` and `grace move`, against the run's real PostgreSQL (a child
// process, as `npm run gateway` runs it).

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const MAIN = path.join(ROOT, 'src/cli/main.ts');
const PLATFORM = 'CLI_GRACE';

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

describe('operator CLI: grace periods (issue 36)', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase();
    const created = await cli('platforms', 'create', '--key', PLATFORM, '--name', 'Grace', '--inactive');
    expect(created.code, created.stderr).toBe(0);
  });
  afterAll(async () => {
    await database?.drop();
  });

  function cli(...args: string[]): Promise<CliResult> {
    const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: database.url, NODE_ENV: 'test' };
    delete env.LOG_LEVEL;
    return new Promise((resolve) => {
      execFile(process.execPath, [MAIN, ...args], { cwd: ROOT, env, timeout: 60_000 }, (error, stdout, stderr) => {
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr });
      });
    });
  }

  it('publishes with --enforce-after, lists the version in grace, moves it to the past (enforced), and refuses a past date', async () => {
    const deadline = new Date(Date.now() + 7 * 24 * 3600 * 1000).toISOString();
    const dry = await cli('fields', 'create', PLATFORM, '--key', 'company', '--label', 'Company', '--type', 'TEXT', '--required', 'true', '--dry-run', '--enforce-after', deadline);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain(`Enforced from ${deadline}: until then 0 of them sign in as before (GRACE); 0 already meet it and only confirm.`);

    const created = await cli('fields', 'create', PLATFORM, '--key', 'company', '--label', 'Company', '--type', 'TEXT', '--required', 'true', '--enforce-after', deadline, '--json');
    expect(created.code, created.stderr).toBe(0);
    const listed = await cli('grace', 'list', PLATFORM, '--json');
    expect(JSON.parse(listed.stdout)).toEqual({ platformKey: PLATFORM, requirementVersion: 2, items: [{ requirementVersion: 2, enforceAfter: deadline }] });
    expect((await cli('grace', 'list', PLATFORM)).stdout).toBe(`${PLATFORM}: requirementVersion 2; in grace:\n  version 2  enforced from ${deadline}\n`);

    const past = await cli('fields', 'create', PLATFORM, '--key', 'city', '--label', 'City', '--type', 'TEXT', '--enforce-after', '2020-01-01T00:00:00Z');
    expect(past.code).toBe(1);
    expect(past.stderr).toContain('--enforce-after: must be in the future');

    const moved = await cli('grace', 'move', PLATFORM, '--enforce-after', '2020-01-01T00:00:00Z');
    expect(moved.code, moved.stderr).toBe(0);
    expect(moved.stdout).toBe(`${PLATFORM}: requirementVersion 2; every change is enforced.\n`);
    const audit = await database.db.raw(`SELECT action, actor_type, changed_fields FROM audit_events WHERE platform_key = ? ORDER BY occurred_at, id`, [PLATFORM]);
    expect(audit.rows.slice(-2)).toEqual([
      { action: 'onboarding_field.create', actor_type: 'cli', changed_fields: ['fieldKey', 'label', 'fieldType', 'required', 'enforceAfter'] },
      { action: 'requirement_grace.move', actor_type: 'cli', changed_fields: ['enforceAfter'] },
    ]);
    expect((await cli('grace', 'move', PLATFORM)).code).toBe(2);
  });
  it('refuses a date that is not an RFC 3339 date-time with its offset (a bare number, a local time) and moves nothing', async () => {
    const key = 'CLI_GRACE_LOOSE';
    expect((await cli('platforms', 'create', '--key', key, '--name', 'Loose', '--inactive')).code).toBe(0);
    const deadline = new Date(Date.now() + 7 * 24 * 3600 * 1000).toISOString();
    expect((await cli('fields', 'create', key, '--key', 'company', '--label', 'Company', '--type', 'TEXT', '--required', 'true', '--enforce-after', deadline)).code).toBe(0);
    // JavaScript's Date reads "1" as the year 2001 (in the past: enforced now) and a time without
    // an offset as the machine's local time: neither is what the operator meant.
    for (const loose of ['1', '2040-01-15 10:00', '2040-01-15T10:00:00']) {
      const moved = await cli('grace', 'move', key, '--enforce-after', loose);
      expect(moved.code, loose).toBe(1);
      expect(moved.stderr).toContain('must be a date-time');
      const created = await cli('fields', 'create', key, '--key', 'city', '--label', 'City', '--type', 'TEXT', '--enforce-after', loose);
      expect(created.code, loose).toBe(1);
      expect(created.stderr).toContain('must be a date-time');
    }
    expect(JSON.parse((await cli('grace', 'list', key, '--json')).stdout).items).toEqual([{ requirementVersion: 2, enforceAfter: deadline }]);
  });
});
