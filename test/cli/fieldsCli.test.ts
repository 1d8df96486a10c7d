import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';

// `npm run gateway -- fields …` end to end: a child process (Node 24, as `npm run gateway`
// runs it) against the run's real PostgreSQL, through DATABASE_URL. The commands call the
// same onboarding schema service as the admin API. Spawning Node is slow, so independent
// commands run side by side and each test checks several things.

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const MAIN = path.join(ROOT, 'src/cli/main.ts');

const PLATFORM = 'CLI_FIELDS';
const DRY_PLATFORM = 'CLI_FIELDS_DRY';
const RACE_PLATFORM = 'CLI_FIELDS_RACE';

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

interface Field {
  fieldKey: string;
  label: string;
  fieldType: string;
  source: string;
  profileField: string | null;
  required: boolean;
  sortOrder: number;
  options: { value: string; label: string }[];
  validation: Record<string, number>;
  uiConfig: Record<string, string>;
  placeholder: string | null;
  description: string | null;
  archived: boolean;
  archivedAt: string | null;
}

describe('operator CLI (npm run gateway -- fields …)', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase();
    const created = await Promise.all([PLATFORM, DRY_PLATFORM, RACE_PLATFORM].map((key) => cli('platforms', 'create', '--key', key, '--name', key, '--inactive')));
    for (const result of created) expect(result.code, result.stderr).toBe(0);
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
  const versionOf = async (key: string) =>
    (await database.db.raw('SELECT requirement_version FROM platforms WHERE platform_key = ?', [key])).rows[0]?.requirement_version as number;
  const auditOf = async (key: string) =>
    (
      await database.db.raw(
        'SELECT action, field_key, actor_type, actor_user_id, actor_sub, request_id, changed_fields FROM audit_events WHERE platform_key = ? ORDER BY occurred_at, id',
        [key],
      )
    ).rows as { action: string; field_key: string | null; actor_type: string; actor_user_id: string | null; actor_sub: string | null; request_id: string | null; changed_fields: string[] }[];
  const fieldAudit = async (key: string) => (await auditOf(key)).filter((row) => row.action.startsWith('onboarding_field.'));
  const fieldRowCount = async (key: string, fieldKey: string) =>
    Number(
      (
        await database.db.raw(
          'SELECT count(*) AS count FROM onboarding_fields f JOIN platforms p ON p.id = f.platform_id WHERE p.platform_key = ? AND f.field_key = ?',
          [key, fieldKey],
        )
      ).rows[0].count,
    );

  it('--help documents the fields commands, --dry-run, --inactive and exit code 78', async () => {
    const [help, fieldsHelp, createHelp] = await Promise.all([cli('--help'), cli('fields', '--help'), cli('fields', 'create', PLATFORM, '--help')]);
    for (const result of [help, fieldsHelp, createHelp]) {
      expect(result.code).toBe(0);
      expect(result.stdout).toBe(help.stdout);
    }
    for (const text of [
      'fields list <KEY> [--archived]',
      'fields create <KEY> --key FIELD_KEY --label LABEL --type TYPE',
      '[--option VALUE=LABEL]...',
      '--profile-field NAME',
      '--min-length N',
      '--width full|half|third',
      'fields update <KEY> <FIELD_KEY>',
      '--clear-options',
      'fields archive <KEY> <FIELD_KEY> [--dry-run]',
      'SELECT, MULTI_SELECT',
      'COMPLETE',
      '--inactive',
    ]) {
      expect(help.stdout).toContain(text);
    }
    expect(help.stdout).toMatch(/Exit codes: 0 done, 1 refused or failed \(the problem is printed\), 2 usage error,\s+78 bad configuration/);
  });

  it('create: every option kind, each change audited as cli with the field key and one requirementVersion bump', async () => {
    const before = await versionOf(PLATFORM);
    const [select, profile, number, multi] = await Promise.all([
      cli(
        'fields', 'create', PLATFORM,
        '--key', 'teamSize', '--label', 'Team size', '--type', 'SELECT',
        '--option', '1-10=1 to 10', '--option', '11-50=11 to 50', '--option', '51+=More than 50',
        '--required', 'true', '--sort-order', '30',
        '--width', 'half', '--help-text', 'Roughly how many people use the platform.',
        '--description', 'Used to size your workspace.',
        '--json',
      ),
      cli(
        'fields', 'create', PLATFORM,
        '--key', 'firstName', '--label', 'First name', '--type', 'TEXT',
        '--source', 'PROFILE_FIELD', '--profile-field', 'firstName', '--sharing', 'ask',
        '--required', 'true', '--sort-order', '10', '--min-length', '1', '--max-length', '100', '--placeholder', 'Ada',
      ),
      cli('fields', 'create', PLATFORM, '--key', 'budget', '--label', 'Budget', '--type', 'NUMBER', '--min=-5', '--max', '1000.5', '--sort-order=-1', '--json'),
      cli('fields', 'create', PLATFORM, '--key', 'interests', '--label', 'Interests', '--type', 'MULTI_SELECT', '--option', 'dev=Development', '--option', 'ops=Ops = Operations', '--json'),
    ]);

    expect(json<Field>(select)).toMatchObject({
      fieldKey: 'teamSize',
      label: 'Team size',
      fieldType: 'SELECT',
      source: 'CUSTOM_FIELD',
      profileField: null,
      required: true,
      sortOrder: 30,
      options: [
        { value: '1-10', label: '1 to 10' },
        { value: '11-50', label: '11 to 50' },
        { value: '51+', label: 'More than 50' },
      ],
      validation: {},
      uiConfig: { width: 'half', helpText: 'Roughly how many people use the platform.' },
      placeholder: null,
      description: 'Used to size your workspace.',
      archived: false,
      archivedAt: null,
    });
    expect(json<Field>(number)).toMatchObject({ fieldType: 'NUMBER', validation: { min: -5, max: 1000.5 }, sortOrder: -1, required: false, options: [] });
    // The value ends at the first "="; the label keeps the rest.
    expect(json<Field>(multi).options).toEqual([
      { value: 'dev', label: 'Development' },
      { value: 'ops', label: 'Ops = Operations' },
    ]);

    // Text output: the definition, one property a line.
    expect(profile.code, profile.stderr).toBe(0);
    expect(profile.stderr).toBe('');
    for (const line of [
      /^fieldKey\s+firstName$/m,
      /^label\s+First name$/m,
      /^fieldType\s+TEXT$/m,
      /^source\s+PROFILE_FIELD$/m,
      /^profileField\s+firstName$/m,
      /^sharing\s+ask$/m,
      /^required\s+yes$/m,
      /^sortOrder\s+10$/m,
      /^options\s+\(none\)$/m,
      /^validation\s+minLength 1, maxLength 100$/m,
      /^placeholder\s+Ada$/m,
      /^archived\s+no$/m,
    ]) {
      expect(profile.stdout).toMatch(line);
    }

    expect(await versionOf(PLATFORM)).toBe(before + 4);
    const audit = await fieldAudit(PLATFORM);
    expect(audit.map((row) => row.field_key).sort()).toEqual(['budget', 'firstName', 'interests', 'teamSize']);
    for (const row of audit) {
      expect(row).toMatchObject({ action: 'onboarding_field.create', actor_type: 'cli', actor_user_id: null, actor_sub: null, request_id: null });
    }
    const changedOf = (fieldKey: string) => [...audit.find((row) => row.field_key === fieldKey)!.changed_fields].sort();
    expect(changedOf('teamSize')).toEqual(['description', 'fieldKey', 'fieldType', 'label', 'options', 'required', 'sortOrder', 'uiConfig']);
    expect(changedOf('firstName')).toEqual(['fieldKey', 'fieldType', 'label', 'placeholder', 'profileField', 'required', 'sharing', 'sortOrder', 'source', 'validation']);

    // The audit command shows the field key too.
    const listed = await cli('audit', 'list', '--platform', PLATFORM, '--action', 'onboarding_field.create');
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout.split('\n')[0]).toMatch(/^OCCURRED AT\s+ACTION\s+PLATFORM\s+FIELD\s+ACTOR\s+CHANGED\s+REQUEST$/);
    expect(listed.stdout).toMatch(/onboarding_field\.create\s+CLI_FIELDS\s+teamSize\s+cli\s/);
  });

  it('list: a table in sortOrder with the requirementVersion, and --json', async () => {
    const [text, asJson] = await Promise.all([cli('fields', 'list', PLATFORM), cli('fields', 'list', PLATFORM, '--json')]);
    expect(text.code, text.stderr).toBe(0);
    const version = await versionOf(PLATFORM);
    expect(text.stdout).toMatch(new RegExp(`^platformKey\\s+${PLATFORM}\\nrequirementVersion\\s+${version}\\n`));
    const lines = text.stdout.split('\n');
    const header = lines.findIndex((line) => line.startsWith('KEY'));
    expect(lines[header]).toMatch(/^KEY\s+TYPE\s+SOURCE\s+REQUIRED\s+ORDER\s+ARCHIVED\s+LABEL$/);
    expect(lines.slice(header + 1, header + 5)).toEqual([
      expect.stringMatching(/^budget\s+NUMBER\s+custom\s+no\s+-1\s+no\s+Budget$/),
      expect.stringMatching(/^interests\s+MULTI_SELECT\s+custom\s+no\s+0\s+no\s+Interests$/),
      expect.stringMatching(/^firstName\s+TEXT\s+profile:firstName \(ask\)\s+yes\s+10\s+no\s+First name$/),
      expect.stringMatching(/^teamSize\s+SELECT\s+custom\s+yes\s+30\s+no\s+Team size$/),
    ]);

    const list = json<{ platformKey: string; requirementVersion: number; items: Field[] }>(asJson);
    expect(list.platformKey).toBe(PLATFORM);
    expect(list.requirementVersion).toBe(version);
    expect(list.items.map((item) => item.fieldKey)).toEqual(['budget', 'interests', 'firstName', 'teamSize']);
    expect(list.items[2]).toMatchObject({ source: 'PROFILE_FIELD', profileField: 'firstName', validation: { minLength: 1, maxLength: 100 } });
  });

  it('update: two at once, each changing its own validation key, keep both (the keys merge under the lock)', async () => {
    expect(json<Field>(await cli('fields', 'create', RACE_PLATFORM, '--key', 'company', '--label', 'Company', '--type', 'TEXT', '--json'))).toMatchObject({ validation: {} });
    // The platform held locked while both start: each has read what it reads before either may
    // write, as two operators at once would. A merge of keys read before the lock loses one.
    const waitingOnLocks = async () =>
      (await database.db.raw("SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'")).rows[0].n as number;
    let updates: Promise<CliResult[]> | undefined;
    await database.db.transaction(async (trx) => {
      await trx.raw('SELECT 1 FROM platforms WHERE platform_key = ? FOR UPDATE', [RACE_PLATFORM]);
      updates = Promise.all([
        cli('fields', 'update', RACE_PLATFORM, 'company', '--min-length', '2'),
        cli('fields', 'update', RACE_PLATFORM, 'company', '--max-length', '80'),
      ]);
      await expect.poll(waitingOnLocks, { timeout: 30_000, interval: 50 }).toBe(2);
    });
    for (const result of await updates!) expect(result.code, result.stderr).toBe(0);
    const list = json<{ items: Field[] }>(await cli('fields', 'list', RACE_PLATFORM, '--json'));
    expect(list.items.find((field) => field.fieldKey === 'company')?.validation).toEqual({ minLength: 2, maxLength: 80 });
  });

  it('update: only the given options change; validation and ui keys merge; "" clears; --option replaces the list', async () => {
    const before = await versionOf(PLATFORM);
    const auditBefore = (await fieldAudit(PLATFORM)).length;
    const [profile, select, clear] = await Promise.all([
      cli('fields', 'update', PLATFORM, 'firstName', '--max-length', '50', '--placeholder', '', '--json'),
      cli('fields', 'update', PLATFORM, 'teamSize', '--label', 'Team', '--option', 'small=Small', '--option', 'large=Large', '--help-text', '', '--json'),
      cli('fields', 'update', PLATFORM, 'interests', '--type', 'TEXT', '--clear-options', '--description', 'Free text now'),
    ]);
    expect(json<Field>(profile)).toMatchObject({ fieldKey: 'firstName', validation: { minLength: 1, maxLength: 50 }, placeholder: null, label: 'First name', required: true });
    expect(json<Field>(select)).toMatchObject({
      label: 'Team',
      options: [
        { value: 'small', label: 'Small' },
        { value: 'large', label: 'Large' },
      ],
      uiConfig: { width: 'half' },
      description: 'Used to size your workspace.',
      required: true,
      sortOrder: 30,
    });
    expect(clear.code, clear.stderr).toBe(0);
    expect(clear.stdout).toMatch(/^fieldType\s+TEXT$/m);
    expect(clear.stdout).toMatch(/^options\s+\(none\)$/m);
    expect(clear.stdout).toMatch(/^description\s+Free text now$/m);

    expect(await versionOf(PLATFORM)).toBe(before + 3);
    const audit = (await fieldAudit(PLATFORM)).slice(auditBefore);
    const changedOf = (fieldKey: string) => audit.find((row) => row.field_key === fieldKey)?.changed_fields;
    expect(audit.every((row) => row.action === 'onboarding_field.update' && row.actor_type === 'cli')).toBe(true);
    expect(changedOf('firstName')).toEqual(['validation', 'placeholder']);
    expect(changedOf('teamSize')).toEqual(['label', 'options', 'uiConfig']);
    expect(changedOf('interests')).toEqual(['fieldType', 'options', 'description']);

    // Setting what is already stored changes nothing: no audit, no bump.
    const same = await cli('fields', 'update', PLATFORM, 'teamSize', '--label', 'Team', '--width', 'half');
    expect(same.code, same.stderr).toBe(0);
    expect(same.stdout).toMatch(/^label\s+Team$/m);
    expect(await versionOf(PLATFORM)).toBe(before + 3);
    expect(await fieldAudit(PLATFORM)).toHaveLength(auditBefore + 3);
  });

  it('archive: soft, listed only with --archived; archiving again changes nothing', async () => {
    const before = await versionOf(PLATFORM);
    const archived = await cli('fields', 'archive', PLATFORM, 'budget');
    expect(archived.code, archived.stderr).toBe(0);
    expect(archived.stdout).toMatch(/^archived\s+yes, at \d{4}-\d\d-\d\dT/m);
    expect(await versionOf(PLATFORM)).toBe(before + 1);
    expect((await fieldAudit(PLATFORM)).at(-1)).toMatchObject({ action: 'onboarding_field.archive', field_key: 'budget', actor_type: 'cli', changed_fields: ['archived'] });

    const [active, all, again] = await Promise.all([
      cli('fields', 'list', PLATFORM, '--json'),
      cli('fields', 'list', PLATFORM, '--archived'),
      cli('fields', 'archive', PLATFORM, 'budget', '--json'),
    ]);
    expect(json<{ items: Field[] }>(active).items.map((item) => item.fieldKey)).not.toContain('budget');
    expect(all.code, all.stderr).toBe(0);
    expect(all.stdout).toMatch(/^budget\s+NUMBER\s+custom\s+no\s+-1\s+yes\s+Budget$/m);
    expect(json<Field>(again)).toMatchObject({ fieldKey: 'budget', archived: true });
    expect(await versionOf(PLATFORM)).toBe(before + 1);
    expect((await fieldAudit(PLATFORM)).filter((row) => row.action === 'onboarding_field.archive')).toHaveLength(1);
    expect(await fieldRowCount(PLATFORM, 'budget')).toBe(1);
  });

  it('--dry-run prints the preview (users reopened, next requirementVersion) and writes nothing', async () => {
    const version = await versionOf(DRY_PLATFORM);
    // Three users who completed the platform's current requirements.
    await database.db.raw(
      `WITH u AS (INSERT INTO users (sub) SELECT 'cli-dry-' || n FROM generate_series(1, 3) n RETURNING id)
       INSERT INTO platform_memberships (user_id, platform_id, completed_requirement_version, completed_at)
       SELECT u.id, p.id, p.requirement_version, now() FROM u, platforms p WHERE p.platform_key = ?`,
      [DRY_PLATFORM],
    );
    const create = ['fields', 'create', DRY_PLATFORM, '--key', 'company', '--label', 'Company', '--type', 'TEXT', '--required', 'true', '--dry-run'];
    const [text, asJson] = await Promise.all([cli(...create), cli(...create, '--json')]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/^Dry run: nothing was written\.$/m);
    expect(text.stdout).toMatch(/^would change:\s+yes$/m);
    expect(text.stdout).toMatch(/^changed properties:\s+fieldKey, label, fieldType, required$/m);
    expect(text.stdout).toMatch(new RegExp(`^requirementVersion:\\s+would become ${version + 1}$`, 'm'));
    expect(text.stdout).toMatch(/^3 users' onboarding would go from COMPLETE to IN_PROGRESS\.$/m);
    expect(text.stdout).toMatch(/^fieldKey\s+company$/m);
    expect(json(asJson)).toMatchObject({
      dryRun: true,
      changed: true,
      changedFields: ['fieldKey', 'label', 'fieldType', 'required'],
      requirementVersion: version + 1,
      reopenedUsers: 3,
      field: { fieldKey: 'company', label: 'Company', fieldType: 'TEXT', required: true, archived: false },
    });
    expect(await versionOf(DRY_PLATFORM)).toBe(version);
    expect(await fieldRowCount(DRY_PLATFORM, 'company')).toBe(0);
    expect(await fieldAudit(DRY_PLATFORM)).toEqual([]);

    // Now for real; then previews of an update, a no-op update and an archive.
    expect((await cli(...create.slice(0, -1))).code).toBe(0);
    expect(await versionOf(DRY_PLATFORM)).toBe(version + 1);
    const [update, noop, archive] = await Promise.all([
      cli('fields', 'update', DRY_PLATFORM, 'company', '--label', 'Employer', '--max-length', '80', '--dry-run'),
      cli('fields', 'update', DRY_PLATFORM, 'company', '--label', 'Company', '--dry-run'),
      cli('fields', 'archive', DRY_PLATFORM, 'company', '--dry-run', '--json'),
    ]);
    expect(update.code, update.stderr).toBe(0);
    expect(update.stdout).toMatch(/^would change:\s+yes$/m);
    expect(update.stdout).toMatch(/^changed properties:\s+label, validation$/m);
    expect(update.stdout).toMatch(new RegExp(`^requirementVersion:\\s+would become ${version + 2}$`, 'm'));
    // The three completed the previous version: nobody is COMPLETE any more.
    expect(update.stdout).toMatch(/^0 users' onboarding would go from COMPLETE to IN_PROGRESS\.$/m);
    expect(update.stdout).toMatch(/^label\s+Employer$/m);
    expect(noop.code, noop.stderr).toBe(0);
    expect(noop.stdout).toMatch(/^would change:\s+no$/m);
    expect(noop.stdout).toMatch(/^changed properties:\s+\(none\)$/m);
    expect(noop.stdout).toMatch(new RegExp(`^requirementVersion:\\s+stays ${version + 1}$`, 'm'));
    expect(json(archive)).toMatchObject({ dryRun: true, changed: true, changedFields: ['archived'], requirementVersion: version + 2, field: { archived: true } });

    const list = json<{ requirementVersion: number; items: Field[] }>(await cli('fields', 'list', DRY_PLATFORM, '--json'));
    expect(list.requirementVersion).toBe(version + 1);
    expect(list.items).toEqual([expect.objectContaining({ fieldKey: 'company', label: 'Company', validation: {}, archived: false })]);
    expect((await fieldAudit(DRY_PLATFORM)).map((row) => row.action)).toEqual(['onboarding_field.create']);
  });

  describe('refusals: the service refuses as for the API, exit 1, the problem on stderr naming the option', () => {
    // Sixteen CLI processes at once: each loads the service's modules, seconds of CPU on a busy two-core machine.
    it('conflicts, missing platforms and fields, and validation failures; nothing is written', { timeout: 90_000 }, async () => {
      const version = await versionOf(PLATFORM);
      const audit = (await auditOf(PLATFORM)).length;
      const create = (fieldKey: string, ...rest: string[]) => ['fields', 'create', PLATFORM, '--key', fieldKey, '--label', 'Label', ...rest];
      const cases: [string[], RegExp[]][] = [
        [create('teamSize', '--type', 'TEXT'), [/CONFLICT/, /already has a field teamSize/]],
        [create('size', '--type', 'SELECT'), [/VALIDATION_FAILED/, /^ {2}--option: must not be empty for SELECT fields$/m]],
        [
          create('size', '--type', 'SELECT', '--option', 'a=A', '--option', '=Empty', '--option', 'a=Again', '--option', ' b=Padded'),
          [/^ {2}--option #2 value: must not be empty$/m, /^ {2}--option #3 value: duplicates the value of --option #1$/m, /^ {2}--option #4 value: must not begin or end with white space$/m],
        ],
        [create('nick', '--type', 'TEXT', '--source', 'PROFILE_FIELD'), [/^ {2}--profile-field: is required when source is PROFILE_FIELD$/m]],
        [create('nick', '--type', 'TEXT', '--profile-field', 'lastName'), [/^ {2}--profile-field: must be null when source is CUSTOM_FIELD$/m]],
        [create('nick', '--type', 'TEXT', '--sharing', 'ask'), [/^ {2}--sharing: must be null when source is not PROFILE_FIELD$/m]],
        [create('tel', '--type', 'NUMBER', '--source', 'PROFILE_FIELD', '--profile-field', 'phone'), [/^ {2}--type: must be PHONE for the profile property phone$/m]],
        [create('given', '--type', 'TEXT', '--source', 'PROFILE_FIELD', '--profile-field', 'firstName'), [/^ {2}--profile-field: is already bound by the field firstName of this platform$/m]],
        [
          create('bad key', '--type', 'FOO', '--sort-order', '2000000', '--width', 'wide', '--label', ''),
          [/^ {2}--key: must match/m, /^ {2}--type: must be one of TEXT, /m, /^ {2}--sort-order: must be an integer from -1000000 to 1000000$/m, /^ {2}--width: must be one of full, half, third$/m, /^ {2}--label: must not be empty$/m],
        ],
        [create('count', '--type', 'NUMBER', '--min-length', '5', '--min', '10', '--max', '1', '--sort-order', '1.5'), [/^ {2}--min-length: does not apply to NUMBER fields$/m, /^ {2}--min: must not be greater than max$/m, /^ {2}--sort-order: must be an integer/m]],
        [['fields', 'update', PLATFORM, 'interests', '--type', 'SELECT'], [/^ {2}--option: must not be empty for SELECT fields$/m]],
        [['fields', 'update', PLATFORM, 'nope', '--label', 'x'], [/FIELD_NOT_FOUND/, /no onboarding field nope/]],
        [['fields', 'update', PLATFORM, 'nope', '--min-length', '3'], [/FIELD_NOT_FOUND/]],
        [['fields', 'archive', PLATFORM, 'nope'], [/FIELD_NOT_FOUND/]],
        [['fields', 'list', 'CLI_NOPE'], [/PLATFORM_NOT_FOUND/]],
        [['fields', 'create', 'CLI_NOPE', '--key', 'x1', '--label', 'x', '--type', 'TEXT'], [/PLATFORM_NOT_FOUND/]],
        [['fields', 'update', 'CLI_NOPE', 'x1', '--width', 'full'], [/PLATFORM_NOT_FOUND/]],
      ];
      const results = await Promise.all(cases.map(([args]) => cli(...args)));
      for (const [index, result] of results.entries()) {
        const [args, patterns] = cases[index]!;
        expect(result.code, args.join(' ')).toBe(1);
        expect(result.stdout, args.join(' ')).toBe('');
        expect(result.stderr, args.join(' ')).toMatch(/^gateway: .+ \([A-Z_]+\)\n/);
        for (const pattern of patterns) expect(result.stderr, args.join(' ')).toMatch(pattern);
      }
      expect(await versionOf(PLATFORM)).toBe(version);
      expect(await auditOf(PLATFORM)).toHaveLength(audit);
      for (const fieldKey of ['size', 'nick', 'tel', 'given', 'count']) expect(await fieldRowCount(PLATFORM, fieldKey)).toBe(0);
    });

    it('the platform commands name --inactive, not the API property', async () => {
      const result = await cli('platforms', 'create', '--key', 'CLI_FIELDS_ACTIVE', '--name', 'x');
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('--callback-url: is required for an active platform (or create the platform inactive)');
      expect(result.stderr).not.toContain('active false');
    });

    it('usage errors exit 2 (malformed --option, bad numbers, missing arguments); bad configuration exits 78', async () => {
      const create = ['fields', 'create', PLATFORM, '--key', 'usage', '--label', 'Usage', '--type', 'SELECT'];
      const cases: string[][] = [
        ['fields', 'explode'],
        ['fields', 'list'],
        ['fields', 'create', '--key', 'usage', '--label', 'x', '--type', 'TEXT'],
        ['fields', 'create', PLATFORM, '--label', 'x', '--type', 'TEXT'],
        ['fields', 'create', PLATFORM, '--key', 'usage', '--label', 'x'],
        [...create, '--option', 'a=A', '--option', 'no-equals-sign'],
        [...create, '--option', 'a=A', '--required', 'yes'],
        [...create, '--option', 'a=A', '--sort-order', '-5'],
        [...create, '--option', 'a=A', '--min', '1,5'],
        ['fields', 'update', PLATFORM],
        ['fields', 'update', PLATFORM, 'teamSize'],
        ['fields', 'update', PLATFORM, 'teamSize', '--dry-run'],
        ['fields', 'update', PLATFORM, 'teamSize', '--key', 'renamed'],
        ['fields', 'update', PLATFORM, 'teamSize', '--option', 'a=A', '--clear-options'],
        ['fields', 'archive', PLATFORM, 'teamSize', 'extra'],
      ];
      const [config, ...results] = await Promise.all([cliWithEnv({ NODE_ENV: 'staging' }, 'fields', 'list', PLATFORM), ...cases.map((args) => cli(...args))]);
      for (const [index, result] of results.entries()) {
        const args = cases[index]!.join(' ');
        expect(result.code, args).toBe(2);
        expect(result.stderr, args).toMatch(/^gateway: .+\n(?:.+\n)*Run `npm run gateway -- --help` for usage\.\n$/);
        expect(result.stdout, args).toBe('');
      }
      const malformed = results[cases.findIndex((args) => args.includes('no-equals-sign'))]!;
      expect(malformed.stderr).toContain('--option must be VALUE=LABEL');
      expect(malformed.stderr).toContain('"no-equals-sign"');
      expect(config.code).toBe(78);
      expect(config.stderr).toMatch(/NODE_ENV/);
      expect(await fieldRowCount(PLATFORM, 'usage')).toBe(0);
    });
  });
});
