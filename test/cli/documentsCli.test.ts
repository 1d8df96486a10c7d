import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';

// `npm run gateway -- documents …` end to end (issue 25): a child process against the run's
// real PostgreSQL, through DATABASE_URL; the same services as the admin API, the draft body
// checked against the contract's schema, publications audited with actor "cli".

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const MAIN = path.join(ROOT, 'src/cli/main.ts');
const PLATFORM = 'CLI_DOCUMENTS';

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

describe('operator CLI (npm run gateway -- documents …)', () => {
  let database: TestDatabase;
  let folder: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    folder = await mkdtemp(path.join(tmpdir(), 'documents-cli-'));
    const created = await cli('platforms', 'create', '--key', PLATFORM, '--name', 'CLI documents', '--callback-url', 'https://cli.example/cb', '--return-url', 'https://cli.example/');
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
  const json = <T = Record<string, unknown>>(result: CliResult): T => {
    expect(result.code, result.stderr).toBe(0);
    return JSON.parse(result.stdout) as T;
  };

  it('draft from a Markdown file, edit, dry run, publish (raising requirementVersion once, audited as cli), list with counts', { timeout: 120_000 }, async () => {
    const file = path.join(folder, 'terms.md');
    await writeFile(file, '# Terms\n\nBe kind.\n');
    const before = (await database.db.raw('SELECT requirement_version FROM platforms WHERE platform_key = ?', [PLATFORM])).rows[0].requirement_version as number;

    const draft = json<{ version: number; status: string; texts: { en: { sha256: string } } }>(await cli('documents', 'draft', PLATFORM, 'terms', '--kind', 'terms', '--title', 'Terms of use', '--markdown-file', file, '--json'));
    expect(draft).toMatchObject({ version: 1, status: 'draft' });
    const edited = json<{ texts: Record<string, { title: string; url?: string }> }>(
      await cli('documents', 'edit', PLATFORM, 'terms', '1', '--language', 'de', '--title', 'Nutzungsbedingungen', '--url', 'https://cli.example/agb', '--sha256', 'c'.repeat(64), '--json'),
    );
    expect(Object.keys(edited.texts).sort()).toEqual(['de', 'en']);
    expect(edited.texts.en!.title).toBe('Terms of use');

    const dryRun = await cli('documents', 'publish', PLATFORM, 'terms', '1', '--dry-run');
    expect(dryRun.code, dryRun.stderr).toBe(0);
    expect(dryRun.stdout).toMatch(/^Dry run \(nothing written\): publishing terms version 1 asks 0 of 0 active users/);
    json(await cli('documents', 'publish', PLATFORM, 'terms', '1', '--json'));
    expect((await database.db.raw('SELECT requirement_version FROM platforms WHERE platform_key = ?', [PLATFORM])).rows[0].requirement_version).toBe(before + 1);
    const audit = (await database.db.raw(`SELECT actor_type, document_key, document_version FROM audit_events WHERE action = 'document.publish' AND platform_key = ?`, [PLATFORM])).rows;
    expect(audit).toEqual([{ actor_type: 'cli', document_key: 'terms', document_version: 1 }]);

    const list = await cli('documents', 'list', PLATFORM);
    expect(list.stdout).toContain('terms (terms), current version 1');
    expect(list.stdout).toContain('0 of 0 accepted');
    // A published version never changes.
    const refused = await cli('documents', 'edit', PLATFORM, 'terms', '1', '--title', 'Other');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/\(CONFLICT\)/);
  });

  it('refuses what the contract refuses, before any write, and usage errors with exit 2', { timeout: 120_000 }, async () => {
    const bad = await cli('documents', 'draft', PLATFORM, 'privacy', '--kind', 'privacy', '--title', 'Privacy', '--url', 'http://cli.example/privacy', '--sha256', 'd'.repeat(64));
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/VALIDATION_FAILED/);
    const foreign = await cli('documents', 'draft', PLATFORM, 'privacy', '--kind', 'privacy', '--title', 'Privacy', '--url', 'https://elsewhere.example/privacy', '--sha256', 'd'.repeat(64));
    expect(foreign.code).toBe(1);
    expect(foreign.stderr).toMatch(/allowed return origins/);
    expect((await cli('documents', 'draft', PLATFORM, 'privacy', '--title', 'Privacy')).code).toBe(2);
    expect((await cli('documents', 'publish', PLATFORM, 'terms', 'one')).code).toBe(2);
    expect((await database.db.raw(`SELECT count(*)::int AS n FROM platform_documents WHERE document_key = 'privacy'`)).rows[0].n).toBe(0);
  });
});
