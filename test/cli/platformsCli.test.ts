import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { sha256 } from '../../src/security/crypto.ts';

// The operator CLI end to end: a child process (Node 24, as `npm run gateway`
// runs it) against the run's real PostgreSQL, through DATABASE_URL.

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const MAIN = path.join(ROOT, 'src/cli/main.ts');

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

describe('operator CLI (npm run gateway -- platforms …)', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await database?.drop();
  });

  function cli(...args: string[]): Promise<CliResult> {
    return cliWithEnv({}, ...args);
  }
  function cliWithEnv(extraEnv: Record<string, string>, ...args: string[]): Promise<CliResult> {
    const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: database.url, NODE_ENV: 'test', ...extraEnv };
    delete env.LOG_LEVEL;
    return new Promise((resolve) => {
      execFile(process.execPath, [MAIN, ...args], { cwd: ROOT, env, timeout: 60_000 }, (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        resolve({ code, stdout, stderr });
      });
    });
  }
  const json = <T = Record<string, unknown>>(result: CliResult): T => {
    expect(result.code, result.stderr).toBe(0);
    return JSON.parse(result.stdout) as T;
  };
  const digestOf = async (key: string) =>
    (await database.db.raw('SELECT client_secret_digest FROM platforms WHERE platform_key = ?', [key])).rows[0]?.client_secret_digest as Buffer | undefined;

  it('runs on Node 24', () => {
    expect(Number(process.versions.node.split('.')[0])).toBeGreaterThanOrEqual(24);
  });

  it('--help prints usage and exits 0', async () => {
    const result = await cli('--help');
    expect(result.code).toBe(0);
    for (const command of ['platforms create', 'platforms list', 'platforms show', 'platforms rotate', 'platforms activate', 'platforms deactivate']) {
      expect(result.stdout).toContain(command);
    }
  });

  it('bootstraps a platform: prints the secret once with a warning, stores only its digest, audits as cli', async () => {
    const result = await cli(
      'platforms', 'create',
      '--key', 'CLI_FIRST',
      '--name', 'First platform',
      '--callback-url', 'https://first.example.test/auth/callback',
      '--return-url', 'https://first.example.test/',
      '--return-url', 'https://first.example.test/app',
      '--mode', 'central',
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/WARNING: the client secret of CLI_FIRST is shown only this once/);
    const secret = /^clientSecret\s+(\S+)$/m.exec(result.stdout)?.[1];
    const clientId = /^clientId\s+(\S+)$/m.exec(result.stdout)?.[1];
    expect(secret).toMatch(/^pcs_[A-Za-z0-9_-]{43}$/);
    expect(clientId).toMatch(/^pc_/);
    expect(result.stdout).toContain('https://first.example.test/app');
    expect(await digestOf('CLI_FIRST')).toEqual(sha256(secret!));

    const { rows } = await database.db.raw('SELECT action, actor_type, actor_user_id, actor_sub, request_id, changed_fields FROM audit_events WHERE platform_key = ?', ['CLI_FIRST']);
    expect(rows).toEqual([
      {
        action: 'platform.create',
        actor_type: 'cli',
        actor_user_id: null,
        actor_sub: null,
        request_id: null,
        changed_fields: expect.arrayContaining(['platformKey', 'clientSecret']),
      },
    ]);
    expect(JSON.stringify(rows)).not.toContain(secret);

    // The secret is never shown again.
    const shown = await cli('platforms', 'show', 'CLI_FIRST');
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain('First platform');
    expect(shown.stdout).toContain(clientId);
    expect(shown.stdout).not.toContain(secret);
  });

  it('--json prints the API representations', async () => {
    const created = json<{ platformKey: string; clientSecret: string; active: boolean; metadata: unknown }>(
      await cli('platforms', 'create', '--key', 'CLI_JSON', '--name', 'Json', '--inactive', '--metadata', '{"team":"ops"}', '--json'),
    );
    expect(created).toMatchObject({ platformKey: 'CLI_JSON', active: false, metadata: { team: 'ops' }, callbackUrl: null });
    expect(created.clientSecret).toMatch(/^pcs_/);

    const shown = json(await cli('platforms', 'show', 'CLI_JSON', '--json'));
    expect(shown).not.toHaveProperty('clientSecret');
    expect(shown).toMatchObject({ platformKey: 'CLI_JSON', active: false });

    const list = json<{ items: { platformKey: string; active: boolean }[]; nextCursor: string | null }>(await cli('platforms', 'list', '--active', 'false', '--json'));
    expect(list.items.map((item) => item.platformKey)).toContain('CLI_JSON');
    expect(list.items.every((item) => !item.active)).toBe(true);
  });

  it('list prints a table and pages with --cursor', async () => {
    const created = await Promise.all(['CLI_PAGE_A', 'CLI_PAGE_B', 'CLI_PAGE_C'].map((key) => cli('platforms', 'create', '--key', key, '--name', key, '--inactive')));
    for (const result of created) expect(result.code, result.stderr).toBe(0);
    const first = await cli('platforms', 'list', '--limit', '2');
    expect(first.code).toBe(0);
    expect(first.stdout.split('\n')[0]).toMatch(/^KEY\s+ACTIVE\s+MODE\s+CLIENT ID\s+CALLBACK URL\s+NAME$/);
    const cursor = /--cursor (\S+)/.exec(first.stdout)?.[1];
    expect(cursor).toBeDefined();
    const next = await cli('platforms', 'list', '--limit', '2', '--cursor', cursor!);
    expect(next.code).toBe(0);
    const keysOf = (text: string) => text.split('\n').slice(1).map((line) => line.split(/\s+/)[0]).filter((word) => /^[A-Z][A-Z0-9_]+$/.test(word ?? ''));
    expect(keysOf(next.stdout).some((key) => keysOf(first.stdout).includes(key))).toBe(false);
  });

  it('rotate prints a new secret once; the old digest is gone', async () => {
    const created = json<{ clientId: string; clientSecret: string }>(
      await cli('platforms', 'create', '--key', 'CLI_ROTATE', '--name', 'Rotate', '--callback-url', 'https://r.example.test/cb', '--return-url', 'https://r.example.test/', '--json'),
    );
    const result = await cli('platforms', 'rotate', 'CLI_ROTATE');
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/WARNING: the client secret of CLI_ROTATE is shown only this once/);
    const secret = /^clientSecret\s+(\S+)$/m.exec(result.stdout)?.[1];
    expect(secret).toMatch(/^pcs_/);
    expect(secret).not.toBe(created.clientSecret);
    expect(result.stdout).toContain(created.clientId);
    expect(await digestOf('CLI_ROTATE')).toEqual(sha256(secret!));
  });

  it('deactivate, activate, update; activation says what is missing', async () => {
    expect((await cli('platforms', 'create', '--key', 'CLI_STATE', '--name', 'State', '--inactive')).code).toBe(0);
    const missing = await cli('platforms', 'activate', 'CLI_STATE');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/PLATFORM_MISSING_CALLBACK_URL/);

    const updated = await cli('platforms', 'update', 'CLI_STATE', '--callback-url', 'https://s.example.test/cb', '--return-url', 'https://s.example.test/', '--name', 'State 2');
    expect(updated.code, updated.stderr).toBe(0);
    expect(updated.stdout).toContain('State 2');

    const on = json<{ active: boolean }>(await cli('platforms', 'activate', 'CLI_STATE', '--json'));
    expect(on.active).toBe(true);
    const off = json<{ active: boolean }>(await cli('platforms', 'deactivate', 'CLI_STATE', '--json'));
    expect(off.active).toBe(false);

    const audit = json<{ items: { action: string; actor: { type: string } }[] }>(await cli('audit', 'list', '--platform', 'CLI_STATE', '--json'));
    expect(audit.items.map((item) => item.action)).toEqual(['platform.deactivate', 'platform.activate', 'platform.update', 'platform.create']);
    expect(audit.items.every((item) => item.actor.type === 'cli')).toBe(true);
  });

  it('support access (issue 35): off by default, set by --support-access, --sensitive and --support-sign-in-url', async () => {
    const created = await cli('platforms', 'create', '--key', 'CLI_SUPPORT', '--name', 'Support', '--inactive');
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toMatch(/supportAccess\s+off/);
    const updated = await cli('platforms', 'update', 'CLI_SUPPORT', '--support-access', 'approve', '--sensitive', 'true', '--support-sign-in-url', 'https://s.example.test/login', '--json');
    expect(updated.code, updated.stderr).toBe(0);
    expect(JSON.parse(updated.stdout)).toMatchObject({ supportAccess: 'approve', sensitive: true, supportSignInUrl: 'https://s.example.test/login' });
    const refused = await cli('platforms', 'update', 'CLI_SUPPORT', '--support-access', 'always');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/supportAccess/);
    expect((await cli('platforms', 'update', 'CLI_SUPPORT', '--sensitive', 'maybe')).code).toBe(2);
    const cleared = await cli('platforms', 'update', 'CLI_SUPPORT', '--support-sign-in-url', '', '--json');
    expect(JSON.parse(cleared.stdout).supportSignInUrl).toBeNull();
  });

  it('handoffChallengeRequired: shown (on by default), set by --handoff-challenge-required, with a warning when turned off', async () => {
    const created = await cli('platforms', 'create', '--key', 'CLI_HANDOFF', '--name', 'Handoff', '--inactive');
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toMatch(/handoffChallengeRequired\s+yes/);
    expect(created.stderr).not.toMatch(/login CSRF/);

    const off = await cli('platforms', 'update', 'CLI_HANDOFF', '--handoff-challenge-required', 'false');
    expect(off.code, off.stderr).toBe(0);
    expect(off.stderr).toMatch(/WARNING: CLI_HANDOFF no longer requires handoffChallenge.*login CSRF/);
    expect((await cli('platforms', 'show', 'CLI_HANDOFF')).stdout).toMatch(/handoffChallengeRequired\s+no \(WARNING/);

    const on = await cli('platforms', 'update', 'CLI_HANDOFF', '--handoff-challenge-required', 'true', '--json');
    expect(json<{ handoffChallengeRequired: boolean }>(on).handoffChallengeRequired).toBe(true);
    expect(on.stderr).toBe('');

    const createdOff = await cli('platforms', 'create', '--key', 'CLI_HANDOFF_OFF', '--name', 'Off', '--inactive', '--handoff-challenge-required', 'false', '--json');
    expect(json<{ handoffChallengeRequired: boolean }>(createdOff).handoffChallengeRequired).toBe(false);
    expect(createdOff.stderr).toMatch(/login CSRF/);

    const bad = await cli('platforms', 'update', 'CLI_HANDOFF', '--handoff-challenge-required', 'maybe');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--handoff-challenge-required/);
    expect((await cli('--help')).stdout).toContain('--handoff-challenge-required');
  });

  it('defaultLanguage: none by default, set by --default-language (canonical tag), cleared with "", a malformed tag refused', async () => {
    const created = await cli('platforms', 'create', '--key', 'CLI_LANGUAGE', '--name', 'Language', '--inactive', '--default-language', 'pt-br', '--json');
    expect(created.code, created.stderr).toBe(0);
    expect(json<{ defaultLanguage: string | null }>(created).defaultLanguage).toBe('pt-BR');
    expect((await cli('platforms', 'show', 'CLI_LANGUAGE')).stdout).toMatch(/defaultLanguage\s+pt-BR/);
    const bad = await cli('platforms', 'update', 'CLI_LANGUAGE', '--default-language', 'not a tag');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/VALIDATION_FAILED[\s\S]*defaultLanguage/);
    const cleared = await cli('platforms', 'update', 'CLI_LANGUAGE', '--default-language', '', '--json');
    expect(json<{ defaultLanguage: string | null }>(cleared).defaultLanguage).toBeNull();
    expect((await cli('platforms', 'show', 'CLI_LANGUAGE')).stdout).toMatch(/defaultLanguage\s+\(none: English\)/);
  });

  describe('bad input: a clear message and a non-zero exit', () => {
    it('validation failures exit 1 naming the option, and write nothing', async () => {
      const lower = await cli('platforms', 'create', '--key', 'lower_case', '--name', 'x', '--callback-url', 'https://x.test/cb', '--return-url', 'https://x.test/');
      expect(lower.code).toBe(1);
      expect(lower.stderr).toMatch(/VALIDATION_FAILED/);
      expect(lower.stderr).toMatch(/--key: must match/);

      const bad = await cli('platforms', 'create', '--key', 'CLI_BAD', '--name', 'x', '--callback-url', 'https://user@x.test/cb', '--return-url', 'https://x.test/?q=1', '--mode', 'central', '--central-onboarding', 'false');
      expect(bad.code).toBe(1);
      expect(bad.stderr).toMatch(/--callback-url: must not contain userinfo/);
      expect(bad.stderr).toMatch(/--return-url #1: must not contain a query/);
      expect(bad.stderr).toMatch(/--central-onboarding: must be true while defaultOnboardingMode is central/);
      expect(bad.stdout).toBe('');

      const active = await cli('platforms', 'create', '--key', 'CLI_BAD', '--name', 'x');
      expect(active.code).toBe(1);
      expect(active.stderr).toMatch(/--callback-url: is required for an active platform/);
      expect(active.stderr).toMatch(/--return-url: needs at least one URL/);
      expect(await digestOf('CLI_BAD')).toBeUndefined();
    });

    it('a duplicate key exits 1 with CONFLICT; an unknown key exits 1 with PLATFORM_NOT_FOUND', async () => {
      expect((await cli('platforms', 'create', '--key', 'CLI_DUP', '--name', 'x', '--inactive')).code).toBe(0);
      const dup = await cli('platforms', 'create', '--key', 'CLI_DUP', '--name', 'y', '--inactive');
      expect(dup.code).toBe(1);
      expect(dup.stderr).toMatch(/CONFLICT/);
      expect(dup.stdout).not.toMatch(/pcs_/);
      const commands = ['show', 'rotate', 'activate', 'deactivate', 'update'];
      const results = await Promise.all(commands.map((command) => cli('platforms', command, 'CLI_NOPE', ...(command === 'update' ? ['--name', 'x'] : []))));
      for (const [index, res] of results.entries()) {
        expect(res.code, commands[index]).toBe(1);
        expect(res.stderr, commands[index]).toMatch(/PLATFORM_NOT_FOUND/);
      }
    });

    it('reserved metadata keys (__proto__, constructor, prototype) exit 1 at any depth, naming --metadata', async () => {
      for (const [metadata, where] of [
        ['{"__proto__":{"isAdmin":true}}', '__proto__'],
        ['{"a":{"constructor":{"prototype":1}}}', 'a/constructor'],
        ['{"list":[{"prototype":{}}]}', 'list/0/prototype'],
      ] as const) {
        const res = await cli('platforms', 'create', '--key', 'CLI_PROTO', '--name', 'x', '--inactive', '--metadata', metadata);
        expect(res.code, metadata).toBe(1);
        expect(res.stderr, metadata).toMatch(/VALIDATION_FAILED/);
        expect(res.stderr, metadata).toContain(`--metadata ${where}: `);
      }
      expect(await digestOf('CLI_PROTO')).toBeUndefined();
      expect((await cli('platforms', 'create', '--key', 'CLI_PROTO_OK', '--name', 'x', '--inactive')).code).toBe(0);
      const update = await cli('platforms', 'update', 'CLI_PROTO_OK', '--metadata', '{"x":{"__proto__":{}}}');
      expect(update.code).toBe(1);
      expect(update.stderr).toContain('--metadata x/__proto__: ');
    });

    it('with NODE_ENV=production, http callback and return URLs exit 1 naming the options', async () => {
      const production = { NODE_ENV: 'production' };
      const create = await cliWithEnv(production, 'platforms', 'create', '--key', 'CLI_HTTP', '--name', 'x', '--callback-url', 'http://x.test/cb', '--return-url', 'https://x.test/', '--return-url', 'http://y.test/');
      expect(create.code, create.stderr).toBe(1);
      expect(create.stderr).toMatch(/--callback-url: must use https/);
      expect(create.stderr).toMatch(/--return-url #2: must use https/);
      expect(await digestOf('CLI_HTTP')).toBeUndefined();

      // The same record is fine outside production; production then refuses to activate it or to set http again.
      expect((await cli('platforms', 'create', '--key', 'CLI_HTTP', '--name', 'x', '--callback-url', 'http://x.test/cb', '--return-url', 'http://x.test/', '--inactive')).code).toBe(0);
      const update = await cliWithEnv(production, 'platforms', 'update', 'CLI_HTTP', '--callback-url', 'http://x.test/other');
      expect(update.code).toBe(1);
      expect(update.stderr).toMatch(/--callback-url: must use https/);
      const activate = await cliWithEnv(production, 'platforms', 'activate', 'CLI_HTTP');
      expect(activate.code).toBe(1);
      expect(activate.stderr).toMatch(/CONFLICT/);
      expect(activate.stderr).toMatch(/https/);
      const fixed = await cliWithEnv(production, 'platforms', 'update', 'CLI_HTTP', '--callback-url', 'https://x.test/cb', '--return-url', 'https://x.test/');
      expect(fixed.code, fixed.stderr).toBe(0);
      const activated = await cliWithEnv(production, 'platforms', 'activate', 'CLI_HTTP');
      expect(activated.code, activated.stderr).toBe(0);
    });

    it('usage errors exit 2', async () => {
      const cases: string[][] = [
        ['frobnicate'],
        ['platforms', 'explode'],
        ['platforms', 'create', '--name', 'no key'],
        ['platforms', 'create', '--key', 'CLI_X'],
        ['platforms', 'create', '--key', 'CLI_X', '--name', 'x', '--colour', 'blue'],
        ['platforms', 'create', '--key', 'CLI_X', '--name', 'x', '--central-onboarding', 'yes'],
        ['platforms', 'create', '--key', 'CLI_X', '--name', 'x', '--metadata', '{not json'],
        ['platforms', 'show'],
        ['platforms', 'show', 'A_B', 'C_D'],
        ['platforms', 'list', '--active', 'maybe'],
        ['platforms', 'list', '--limit', 'ten'],
        ['platforms', 'update', 'CLI_X'],
      ];
      const results = await Promise.all(cases.map((args) => cli(...args)));
      for (const [index, res] of results.entries()) {
        const args = cases[index]!.join(' ');
        expect(res.code, args).toBe(2);
        expect(res.stderr, args).toMatch(/^gateway: .+\nRun `npm run gateway -- --help` for usage\.\n$/);
      }
      expect(await digestOf('CLI_X')).toBeUndefined();
    });
  });
});
