import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { ConfigError, loadDatabaseToolConfig, type LogLevel } from '../config/index.ts';
import { createLogger, type Logger } from '../logger.ts';
import { openDatabase, type OpenedDatabase } from '../db/open.ts';
import type { Db } from '../db/knex.ts';
import { ApiError } from '../errors/catalogue.ts';
import { CLI_ACTOR, listAuditEvents } from '../services/audit.ts';
import {
  activatePlatform,
  createPlatform,
  deactivatePlatform,
  getPlatform,
  listPlatforms,
  rotatePlatformCredentials,
  updatePlatform,
  type PlatformCreateInput,
  type PlatformUpdateInput,
  type RegistryRules,
} from '../services/platformRegistry.ts';
import { describeFieldError, formatAuditList, formatCredentials, formatPlatform, formatPlatformList } from './format.ts';

// The operator command line: bootstrap the first platform before any
// administrator exists, and registry work from a shell. It calls the same
// registry service as the admin API (same validation, same audit log; the actor
// is recorded as `cli`) on the same database the service uses.

export const EXIT_OK = 0;
/** The service refused (validation, not found, conflict) or something failed. */
export const EXIT_FAILED = 1;
/** The command line itself is wrong: unknown command or option, missing argument. */
export const EXIT_USAGE = 2;
/** The environment configuration is invalid (EX_CONFIG, as the service). */
export const EXIT_CONFIG = 78;

export const HELP = `Usage: npm run gateway -- <command> [options]

Platform registry (same rules as the admin API; changes are audited with actor "cli"):
  platforms list [--active true|false] [--limit N] [--cursor C]
  platforms show <KEY>
  platforms create --key KEY --name NAME [--callback-url URL] [--return-url URL]...
                   [--mode none|platform|central] [--central-onboarding true|false]
                   [--onboarding-path PATH] [--metadata JSON] [--inactive]
  platforms update <KEY> [--name NAME] [--callback-url URL|""] [--return-url URL]...
                   [--mode MODE] [--central-onboarding true|false]
                   [--onboarding-path PATH|""] [--metadata JSON]
  platforms rotate <KEY>       new client secret, shown once; the old one stops working at once
  platforms activate <KEY>
  platforms deactivate <KEY>   soft deactivation: logins and exchanges stop, the record stays

Audit log:
  audit list [--platform KEY] [--action ACTION] [--limit N] [--cursor C]

Options:
  --json       print JSON (the API representation) instead of text
  -h, --help   show this help

Notes:
  KEY is used as given (^[A-Z][A-Z0-9_]{1,63}$); it is not uppercased for you.
  create makes an active platform unless --inactive: that needs --callback-url and at
  least one --return-url. --mode defaults to central, --central-onboarding to true.
  update changes only the options given; --return-url replaces the whole list; an empty
  --callback-url or --onboarding-path clears it.
  The database is DATABASE_URL or, when unset, the embedded PostgreSQL under .data/
  (the same one \`npm start\` uses; a running service's server is reused).

Exit codes: 0 done, 1 refused or failed (the problem is printed), 2 usage error.
`;

export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: Readonly<Record<string, string | undefined>>;
}

class UsageError extends Error {
  override name = 'UsageError';
}

/** The platform settings both create and update take. */
const SETTINGS_OPTIONS = {
  name: { type: 'string' },
  'callback-url': { type: 'string' },
  'return-url': { type: 'string', multiple: true },
  mode: { type: 'string' },
  'central-onboarding': { type: 'string' },
  'onboarding-path': { type: 'string' },
  metadata: { type: 'string' },
} as const;
const CREATE_OPTIONS = { key: { type: 'string' }, ...SETTINGS_OPTIONS, inactive: { type: 'boolean' } } as const;
const UPDATE_OPTIONS = SETTINGS_OPTIONS;
const LIST_OPTIONS = { active: { type: 'string' }, limit: { type: 'string' }, cursor: { type: 'string' } } as const;
const AUDIT_OPTIONS = { platform: { type: 'string' }, action: { type: 'string' }, limit: { type: 'string' }, cursor: { type: 'string' } } as const;
const COMMON_OPTIONS = { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } as const;

/** `rules` come from the same NODE_ENV as the service's: production requires https URLs. */
type Command = (db: Db, io: CliIo, json: boolean, rules: RegistryRules) => Promise<void>;

/** Runs one command line; returns the exit code. Never throws. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  let command: Command | null;
  try {
    command = parseCommand(argv, io);
  } catch (error) {
    if (error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      io.stderr(`gateway: ${(error as Error).message}\nRun \`npm run gateway -- --help\` for usage.\n`);
      return EXIT_USAGE;
    }
    throw error;
  }
  if (command === null) {
    io.stdout(HELP);
    return EXIT_OK;
  }

  let config;
  try {
    config = loadDatabaseToolConfig(io.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      io.stderr(`gateway: ${error.message}\n`);
      return EXIT_CONFIG;
    }
    throw error;
  }
  // Logs go to stderr, quiet unless asked for: stdout carries only the command's output.
  const level: LogLevel = io.env.LOG_LEVEL ? config.logLevel : 'warn';
  const logger = createLogger(level, pino.destination({ fd: 2, sync: true }));

  let database: OpenedDatabase | null = null;
  try {
    database = await openDatabase(config.databaseUrl, logger, { migrate: true });
    await command(database.db, io, argv.includes('--json'), { requireHttps: config.isProduction });
    return EXIT_OK;
  } catch (error) {
    return reportFailure(error, io, logger);
  } finally {
    await database?.close().catch((error: unknown) => logger.warn({ err: error }, 'closing the database failed'));
  }
}

/** null: help was asked for. */
function parseCommand(argv: readonly string[], io: CliIo): Command | null {
  const [group, action, ...rest] = argv;
  if (group === undefined || group === '--help' || group === '-h' || group === 'help') return null;
  if (group === 'platforms') return parsePlatformsCommand(action, rest, io);
  if (group === 'audit') return parseAuditCommand(action, rest, io);
  throw new UsageError(`unknown command "${group}" (commands: platforms, audit)`);
}

function parsePlatformsCommand(action: string | undefined, args: string[], io: CliIo): Command | null {
  switch (action) {
    case undefined:
    case '--help':
    case '-h':
      return null;
    case 'list': {
      const { values } = parse(args, LIST_OPTIONS, 0);
      if (values.help) return null;
      const query = {
        active: values.active === undefined ? undefined : booleanOption('--active', values.active),
        limit: values.limit === undefined ? undefined : integerOption('--limit', values.limit),
        cursor: values.cursor,
      };
      return async (db, _io, json) => {
        const page = await listPlatforms(db, query);
        io.stdout(json ? toJson(page) : formatPlatformList(page));
      };
    }
    case 'show': {
      const { values, key } = parseWithKey(args, {}, 'show');
      if (values.help) return null;
      return async (db, _io, json) => {
        const platform = await getPlatform(db, key);
        io.stdout(json ? toJson(platform) : formatPlatform(platform));
      };
    }
    case 'create': {
      const { values } = parse(args, CREATE_OPTIONS, 0);
      if (values.help) return null;
      if (values.key === undefined) throw new UsageError('platforms create needs --key KEY');
      if (values.name === undefined) throw new UsageError('platforms create needs --name NAME');
      const input: PlatformCreateInput = { platformKey: values.key, displayName: values.name };
      if (values['callback-url'] !== undefined) input.callbackUrl = values['callback-url'];
      if (values['return-url'] !== undefined) input.allowedReturnUrls = values['return-url'];
      if (values.mode !== undefined) input.defaultOnboardingMode = values.mode as PlatformCreateInput['defaultOnboardingMode'];
      if (values['central-onboarding'] !== undefined) input.centralOnboardingEnabled = booleanOption('--central-onboarding', values['central-onboarding']);
      if (values['onboarding-path'] !== undefined) input.platformOnboardingPath = values['onboarding-path'];
      if (values.metadata !== undefined) input.metadata = jsonOption('--metadata', values.metadata) as PlatformCreateInput['metadata'];
      if (values.inactive) input.active = false;
      return async (db, _io, json, rules) => {
        const { platform, clientSecret } = await createPlatform(db, input, CLI_ACTOR, rules);
        warnSecretShownOnce(io, platform.platformKey);
        if (json) io.stdout(toJson({ ...platform, clientSecret }));
        else io.stdout(`${formatPlatform(platform)}\n${formatCredentials({ clientId: platform.clientId!, clientSecret })}`);
      };
    }
    case 'update': {
      const { values, key } = parseWithKey(args, UPDATE_OPTIONS, 'update');
      if (values.help) return null;
      const patch: PlatformUpdateInput = {};
      if (values.name !== undefined) patch.displayName = values.name;
      if (values['callback-url'] !== undefined) patch.callbackUrl = values['callback-url'] === '' ? null : values['callback-url'];
      if (values['return-url'] !== undefined) patch.allowedReturnUrls = values['return-url'];
      if (values.mode !== undefined) patch.defaultOnboardingMode = values.mode as PlatformUpdateInput['defaultOnboardingMode'];
      if (values['central-onboarding'] !== undefined) patch.centralOnboardingEnabled = booleanOption('--central-onboarding', values['central-onboarding']);
      if (values['onboarding-path'] !== undefined) patch.platformOnboardingPath = values['onboarding-path'] === '' ? null : values['onboarding-path'];
      if (values.metadata !== undefined) patch.metadata = jsonOption('--metadata', values.metadata) as PlatformUpdateInput['metadata'];
      if (Object.keys(patch).length === 0) throw new UsageError('platforms update needs at least one option to change');
      return async (db, _io, json, rules) => {
        const platform = await updatePlatform(db, key, patch, CLI_ACTOR, rules);
        io.stdout(json ? toJson(platform) : formatPlatform(platform));
      };
    }
    case 'rotate': {
      const { values, key } = parseWithKey(args, {}, 'rotate');
      if (values.help) return null;
      return async (db, _io, json) => {
        const credentials = await rotatePlatformCredentials(db, key, CLI_ACTOR);
        warnSecretShownOnce(io, key);
        io.stdout(json ? toJson(credentials) : formatCredentials(credentials));
      };
    }
    case 'activate':
    case 'deactivate': {
      const { values, key } = parseWithKey(args, {}, action);
      if (values.help) return null;
      const change = action === 'activate' ? activatePlatform : deactivatePlatform;
      return async (db, _io, json, rules) => {
        const platform = await change(db, key, CLI_ACTOR, rules);
        io.stdout(json ? toJson(platform) : formatPlatform(platform));
      };
    }
    default:
      throw new UsageError(`unknown platforms command "${action}" (list, show, create, update, rotate, activate, deactivate)`);
  }
}

function parseAuditCommand(action: string | undefined, args: string[], io: CliIo): Command | null {
  if (action === undefined || action === '--help' || action === '-h') return null;
  if (action !== 'list') throw new UsageError(`unknown audit command "${action}" (list)`);
  const { values } = parse(args, AUDIT_OPTIONS, 0);
  if (values.help) return null;
  const query = {
    platformKey: values.platform,
    action: values.action,
    limit: values.limit === undefined ? undefined : integerOption('--limit', values.limit),
    cursor: values.cursor,
  };
  return async (db, _io, json) => {
    const page = await listAuditEvents(db, query);
    io.stdout(json ? toJson(page) : formatAuditList(page));
  };
}

type OptionSpec = Record<string, { type: 'string' | 'boolean'; multiple?: boolean; short?: string }>;

function parse<O extends OptionSpec>(args: string[], options: O, positionals: number) {
  const result = parseArgs({ args, options: { ...options, ...COMMON_OPTIONS }, allowPositionals: true, strict: true });
  if (result.positionals.length > positionals) throw new UsageError(`unexpected argument "${result.positionals[positionals]}"`);
  return result;
}

function parseWithKey<O extends OptionSpec>(args: string[], options: O, command: string) {
  const result = parse(args, options, 1);
  const key = result.positionals[0];
  if (key === undefined && !(result.values as { help?: boolean }).help) throw new UsageError(`platforms ${command} needs the platform KEY`);
  return { values: result.values, key: key ?? '' };
}

function booleanOption(name: string, value: string): boolean {
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw new UsageError(`${name} must be true or false`);
}

function integerOption(name: string, value: string): number {
  if (!/^\d{1,9}$/.test(value)) throw new UsageError(`${name} must be a whole number`);
  return Number(value);
}

function jsonOption(name: string, value: string): unknown {
  try {
    return JSON.parse(value);
  } catch {
    throw new UsageError(`${name} must be JSON, for example '{"team":"identity"}'`);
  }
}

function warnSecretShownOnce(io: CliIo, platformKey: string): void {
  io.stderr(
    `WARNING: the client secret of ${platformKey} is shown only this once and is stored only as a digest. ` +
      `Hand it to the platform team over a secure channel now; if it is lost, rotate it (platforms rotate ${platformKey}).\n`,
  );
}

function toJson(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

function reportFailure(error: unknown, io: CliIo, logger: Logger): number {
  if (error instanceof ApiError) {
    const lines = [`gateway: ${error.detail ?? error.message} (${error.code})`];
    for (const fieldError of error.errors ?? []) lines.push(`  ${describeFieldError(fieldError)}`);
    io.stderr(`${lines.join('\n')}\n`);
    return EXIT_FAILED;
  }
  logger.error({ err: error }, 'command failed');
  io.stderr(`gateway: the command failed: ${error instanceof Error ? error.message : String(error)}\n`);
  return EXIT_FAILED;
}
