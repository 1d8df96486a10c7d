// The operator CLI's branding commands end to end (issue 27): a child process against the
// run's real PostgreSQL, the same contrast check and image pipeline as the admin API.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const MAIN = path.join(ROOT, 'src/cli/main.ts');

describe('operator CLI (npm run gateway -- branding …)', () => {
  let database: TestDatabase;
  let folder: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    folder = await mkdtemp(path.join(tmpdir(), 'branding-cli-'));
  });
  afterAll(async () => {
    await database?.drop();
    await rm(folder, { recursive: true, force: true });
  });

  function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: database.url, NODE_ENV: 'test', PUBLIC_BASE_URL: 'https://auth.example.test' };
    delete env.LOG_LEVEL;
    return new Promise((resolve) => {
      execFile(process.execPath, [MAIN, ...args], { cwd: ROOT, env, timeout: 60_000 }, (error, stdout, stderr) => {
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr });
      });
    });
  }

  it('sets a colour and names, refuses a colour below AA contrast, uploads and removes a logo, clears', { timeout: 180_000 }, async () => {
    const created = await cli('platforms', 'create', '--key', 'HARBOUR', '--name', 'Harbour Logistics', '--inactive');
    expect(created.code, created.stderr).toBe(0);

    const set = await cli('branding', 'set', 'HARBOUR', '--color', '#0B6E69', '--name', 'de=Hafen Logistik', '--json');
    expect(set.code, set.stderr).toBe(0);
    expect(JSON.parse(set.stdout)).toEqual({ platformKey: 'HARBOUR', displayName: 'Harbour Logistics', displayNames: { de: 'Hafen Logistik' }, primaryColor: '#0b6e69', logoUrl: null });

    const refused = await cli('branding', 'set', 'HARBOUR', '--color', '#ffcc00');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/VALIDATION_FAILED/);
    expect(refused.stderr).toMatch(/INSUFFICIENT_CONTRAST|contrast/);

    const logoFile = path.join(folder, 'logo.png');
    await writeFile(logoFile, await sharp({ create: { width: 600, height: 300, channels: 4, background: '#0b6e69' } }).png().toBuffer());
    const logo = await cli('branding', 'logo', 'HARBOUR', '--file', logoFile, '--json');
    expect(logo.code, logo.stderr).toBe(0);
    const { logoUrl } = JSON.parse(logo.stdout) as { logoUrl: string };
    expect(logoUrl).toMatch(/^https:\/\/auth\.example\.test\/v1\/platform-logos\/[0-9a-f-]{36}$/);
    const stored = await database.db.raw('SELECT width, height, media_type FROM platform_logos');
    expect(stored.rows).toEqual([{ width: 256, height: 128, media_type: 'image/png' }]);

    const notAnImage = path.join(folder, 'notes.png');
    await writeFile(notAnImage, 'not a picture');
    const invalid = await cli('branding', 'logo', 'HARBOUR', '--file', notAnImage);
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toMatch(/IMAGE_INVALID/);
    expect((await cli('branding', 'logo', 'HARBOUR', '--file', path.join(folder, 'logo.svg'))).code).toBe(2);

    const shown = await cli('branding', 'show', 'HARBOUR');
    expect(shown.stdout).toMatch(/primaryColor\s+#0b6e69/);
    expect(shown.stdout).toMatch(/de: Hafen Logistik/);

    expect(JSON.parse((await cli('branding', 'remove-logo', 'HARBOUR', '--json')).stdout).logoUrl).toBeNull();
    const cleared = JSON.parse((await cli('branding', 'clear', 'HARBOUR', '--json')).stdout);
    expect(cleared).toMatchObject({ displayNames: {}, primaryColor: null, logoUrl: null });

    const audit = await database.db.raw(`SELECT changed_fields, actor_type FROM audit_events WHERE platform_key = 'HARBOUR' AND action = 'platform.update' ORDER BY occurred_at`);
    expect(audit.rows.map((row: { changed_fields: string[] }) => row.changed_fields)).toEqual([['primaryColor', 'displayNames'], ['logo'], ['logo'], ['primaryColor', 'displayNames']]);
    expect(new Set(audit.rows.map((row: { actor_type: string }) => row.actor_type))).toEqual(new Set(['cli']));
  });

  it('usage errors exit 2', { timeout: 120_000 }, async () => {
    expect((await cli('branding', 'set', 'HARBOUR')).code).toBe(2);
    expect((await cli('branding', 'paint', 'HARBOUR')).code).toBe(2);
    expect((await cli('branding', 'show', 'HARBOUR', '--file', 'x.png')).code).toBe(2);
    expect((await cli('branding', 'set', 'HARBOUR', '--name', 'no-equals-sign')).code).toBe(2);
  });
});
