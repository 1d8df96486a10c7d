import { pino } from 'pino';
import { ConfigError, loadDatabaseToolConfig, loadKeyRingSpec, type LogLevel } from '../config/index.ts';
import { parseKeyRing, type KeyRing } from '../security/crypto.ts';
import { rotateSealedData, sealedKeyStatus, type RotationResult, type SealedCount } from '../services/keyRotation.ts';
import { createLogger, type Logger } from '../logger.ts';
import { openDatabase, type OpenedDatabase } from '../db/open.ts';
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
} from '../services/registry/index.ts';
import { PROFILE_FIELDS } from '../services/onboarding/profileFields.ts';
import { FIELD_TYPES } from '../services/onboarding/values.ts';
import {
  describeFieldError,
  formatAuditList,
  formatCredentials,
  formatPlatform,
  formatPlatformList,
} from './format.ts';
import { runDevCommand } from './devToken.ts';
import { listSecurityEventDeliveries } from '../services/events/record.ts';
import { formatSecurityEventDeliveries } from './formatEvents.ts';
import { BRANDING_HELP, parseBrandingCommand } from './branding.ts';
import { DOCUMENTS_HELP, parseDocumentsCommand } from './documents.ts';
import { booleanOption, integerOption, jsonOption, parse, parseWithArguments, toJson, UsageError, type OptionSpec } from './args.ts';
import { parseFieldsCommand } from './fields.ts';
import type { CliIo, Command } from './command.ts';

// The operator command line: bootstrap the first platform before any
// administrator exists, and registry and onboarding schema work from a shell. It
// calls the same services as the admin API (same validation, same audit log; the
// actor is recorded as `cli`) on the same database the service uses.

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
                   [--backchannel-logout-url URL]
                   [--event-delivery none|push|poll] [--event-receiver-url URL]
                   [--mode none|platform|central] [--central-onboarding true|false]
                   [--handoff-challenge-required true|false] [--default-language TAG]
                   [--onboarding-path PATH] [--metadata JSON] [--inactive]
  platforms update <KEY> [--name NAME] [--callback-url URL|""] [--return-url URL]...
                   [--backchannel-logout-url URL|""]
                   [--event-delivery none|push|poll] [--event-receiver-url URL|""]
                   [--mode MODE] [--central-onboarding true|false]
                   [--handoff-challenge-required true|false] [--default-language TAG|""]
                   [--onboarding-path PATH|""] [--metadata JSON]
  platforms rotate <KEY>       new client secret, shown once; the old one stops working at once
  platforms activate <KEY>
  platforms deactivate <KEY>   soft deactivation: logins and exchanges stop, the record stays

${BRANDING_HELP}
Onboarding fields of a platform (same rules as the admin API; changes are audited with actor
"cli" and raise the platform's requirementVersion, which sends users who completed onboarding
through it again):
  fields list <KEY> [--archived]
  fields create <KEY> --key FIELD_KEY --label LABEL --type TYPE
                   [--source CUSTOM_FIELD|PROFILE_FIELD] [--profile-field NAME]
                   [--required true|false] [--sort-order N] [--option VALUE=LABEL]...
                   [--min-length N] [--max-length N] [--min N] [--max N]
                   [--width full|half|third] [--help-text TEXT] [--placeholder TEXT]
                   [--description TEXT] [--dry-run]
  fields update <KEY> <FIELD_KEY> [any create option but --key] [--clear-options] [--dry-run]
  fields archive <KEY> <FIELD_KEY> [--dry-run]
                               soft: the field stops counting, its values are kept

Security events to platforms (see docs/operations.md, "Security events"):
  events list <KEY> [--status pending|delivered|failed] [--limit N]
                               the delivery record of a platform's events, newest first

${DOCUMENTS_HELP}
Audit log:
  audit list [--platform KEY] [--action ACTION] [--limit N] [--cursor C]

Encryption keys (ENCRYPTION_KEYS, first key active; see docs/operations.md, "Rotating keys"):
  keys status                  how many stored values each key still protects, per column
  keys rotate-data [--batch-size N]
                               re-seal every value under the active key, in batches; safe
                               beside running instances, resumable (run it again after a stop)

Development only (refused when NODE_ENV=production or OIDC_ISSUER is set):
  dev token --user USERNAME [--password PASSWORD]
                               sign in at the running dev stack's identity provider and print
                               the access token it issued (Bearer), e.g. --user admin for the
                               admin API; see \`npm run gateway -- dev --help\`

Options:
  --json       print JSON (the API representation) instead of text
  --dry-run    (fields create, update, archive) validate and print what the change would do:
               whether it changes anything, the properties it sets, the next
               requirementVersion and how many users' onboarding would go from COMPLETE
               to IN_PROGRESS; nothing is written or audited
  -h, --help   show this help

Notes:
  KEY is used as given (^[A-Z][A-Z0-9_]{1,63}$); it is not uppercased for you.
  create makes an active platform unless --inactive: that needs --callback-url and at
  least one --return-url. --mode defaults to central, --central-onboarding to true.
  update changes only the options given; --return-url replaces the whole list; an empty
  --callback-url, --backchannel-logout-url, --onboarding-path or --default-language clears it.
  --default-language is the BCP 47 tag (de, pt-BR) the platform's pages fall back to when
  neither the person's profile nor the browser's Accept-Language picks one (unset: English).
  --backchannel-logout-url is where the gateway posts a logout token when a session the
  platform exchanged a code for ends (OpenID Connect Back-Channel Logout).
  --event-delivery says how the platform receives Security Event Tokens about its people:
  none (default), push (POSTed to --event-receiver-url, RFC 8935) or poll (RFC 8936).
  --handoff-challenge-required defaults to true: a login started without handoffChallenge is
  refused. Set it false only for a platform whose back end cannot send one yet: its logins
  are then open to login CSRF (a handoff link of someone else's login signs a victim in).
  The database is DATABASE_URL or, when unset, the embedded PostgreSQL under .data/
  (the same one \`npm start\` uses; a running service's server is reused).

Notes on fields:
  FIELD_KEY is ^[A-Za-z][A-Za-z0-9_]{1,63}$ and cannot change. TYPE is one of
  ${FIELD_TYPES.join(', ')}.
  --source defaults to CUSTOM_FIELD, --required to false, --sort-order to 0. PROFILE_FIELD
  needs --profile-field NAME (${PROFILE_FIELDS.join(', ')}).
  SELECT and MULTI_SELECT need options: one --option VALUE=LABEL each, in order (VALUE ends
  at the first "="). --min-length/--max-length apply to text types, --min/--max to NUMBER;
  write a negative number as --min=-5.
  fields update changes only the options given: --option replaces the whole list
  (--clear-options empties it), each of --min-length, --max-length, --min, --max, --width,
  --help-text changes only itself, and an empty value clears a setting (--placeholder "",
  --description "", --profile-field "", --min-length "", --width "", ...).

Exit codes: 0 done, 1 refused or failed (the problem is printed), 2 usage error,
78 bad configuration (the environment, such as DATABASE_URL).
`;

/** The platform settings both create and update take. */
const SETTINGS_OPTIONS = {
  name: { type: 'string' },
  'callback-url': { type: 'string' },
  'backchannel-logout-url': { type: 'string' },
  'event-delivery': { type: 'string' },
  'event-receiver-url': { type: 'string' },
  'return-url': { type: 'string', multiple: true },
  mode: { type: 'string' },
  'central-onboarding': { type: 'string' },
  'handoff-challenge-required': { type: 'string' },
  'onboarding-path': { type: 'string' },
  'default-language': { type: 'string' },
  metadata: { type: 'string' },
} as const;
const CREATE_OPTIONS = { key: { type: 'string' }, ...SETTINGS_OPTIONS, inactive: { type: 'boolean' } } as const;
const UPDATE_OPTIONS = SETTINGS_OPTIONS;
const LIST_OPTIONS = { active: { type: 'string' }, limit: { type: 'string' }, cursor: { type: 'string' } } as const;
/** The field settings both fields create and fields update take (all strings: the service checks them). */
const AUDIT_OPTIONS = { platform: { type: 'string' }, action: { type: 'string' }, limit: { type: 'string' }, cursor: { type: 'string' } } as const;
const KEYS_OPTIONS = { 'batch-size': { type: 'string' } } as const;

/** Runs one command line; returns the exit code. Never throws. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  // Development helpers talk to the running dev stack over HTTP, not to the database.
  if (argv[0] === 'dev') return runDevCommand(argv.slice(1), io);
  let command: Command | null;
  try {
    command = parseCommand(argv, io);
  } catch (error) {
    if (error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      io.stderr(`gateway: ${(error as Error).message}\nRun \`npm run gateway -- --help\` for usage.\n`);
      return EXIT_USAGE;
    }
    if (error instanceof ConfigError) {
      io.stderr(`gateway: ${error.message}\n`);
      return EXIT_CONFIG;
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
    await command(database.db, io, argv.includes('--json'), { requireHttps: config.isProduction, outbound: config.outbound });
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
  if (group === 'fields') return parseFieldsCommand(action, rest, io);
  if (group === 'audit') return parseAuditCommand(action, rest, io);
  if (group === 'events') return parseEventsCommand(action, rest, io);
  if (group === 'documents') return parseDocumentsCommand(action, rest, io);
  if (group === 'keys') return parseKeysCommand(action, rest, io);
  if (group === 'branding') {
    const command = parseBrandingCommand(action, rest, io.env);
    return command && ((db, _io, json) => command(db, io, json));
  }
  throw new UsageError(`unknown command "${group}" (commands: platforms, branding, fields, documents, events, audit, keys, dev)`);
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
      if (values['backchannel-logout-url'] !== undefined) input.backchannelLogoutUrl = values['backchannel-logout-url'];
      if (values['event-delivery'] !== undefined) input.eventDelivery = values['event-delivery'] as PlatformCreateInput['eventDelivery'];
      if (values['event-receiver-url'] !== undefined) input.eventReceiverUrl = values['event-receiver-url'];
      if (values['return-url'] !== undefined) input.allowedReturnUrls = values['return-url'];
      if (values.mode !== undefined) input.defaultOnboardingMode = values.mode as PlatformCreateInput['defaultOnboardingMode'];
      if (values['central-onboarding'] !== undefined) input.centralOnboardingEnabled = booleanOption('--central-onboarding', values['central-onboarding']);
      if (values['handoff-challenge-required'] !== undefined) {
        input.handoffChallengeRequired = booleanOption('--handoff-challenge-required', values['handoff-challenge-required']);
      }
      if (values['onboarding-path'] !== undefined) input.platformOnboardingPath = values['onboarding-path'];
      if (values['default-language'] !== undefined) input.defaultLanguage = values['default-language'];
      if (values.metadata !== undefined) input.metadata = jsonOption('--metadata', values.metadata) as PlatformCreateInput['metadata'];
      if (values.inactive) input.active = false;
      return async (db, _io, json, rules) => {
        const { platform, clientSecret } = await createPlatform(db, input, CLI_ACTOR, rules);
        warnSecretShownOnce(io, platform.platformKey);
        if (!platform.handoffChallengeRequired) warnHandoffChallengeOff(io, platform.platformKey);
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
      if (values['backchannel-logout-url'] !== undefined) {
        patch.backchannelLogoutUrl = values['backchannel-logout-url'] === '' ? null : values['backchannel-logout-url'];
      }
      if (values['event-delivery'] !== undefined) patch.eventDelivery = values['event-delivery'] as PlatformUpdateInput['eventDelivery'];
      if (values['event-receiver-url'] !== undefined) {
        patch.eventReceiverUrl = values['event-receiver-url'] === '' ? null : values['event-receiver-url'];
      }
      if (values['return-url'] !== undefined) patch.allowedReturnUrls = values['return-url'];
      if (values.mode !== undefined) patch.defaultOnboardingMode = values.mode as PlatformUpdateInput['defaultOnboardingMode'];
      if (values['central-onboarding'] !== undefined) patch.centralOnboardingEnabled = booleanOption('--central-onboarding', values['central-onboarding']);
      if (values['handoff-challenge-required'] !== undefined) {
        patch.handoffChallengeRequired = booleanOption('--handoff-challenge-required', values['handoff-challenge-required']);
      }
      if (values['onboarding-path'] !== undefined) patch.platformOnboardingPath = values['onboarding-path'] === '' ? null : values['onboarding-path'];
      if (values['default-language'] !== undefined) patch.defaultLanguage = values['default-language'] === '' ? null : values['default-language'];
      if (values.metadata !== undefined) patch.metadata = jsonOption('--metadata', values.metadata) as PlatformUpdateInput['metadata'];
      if (Object.keys(patch).length === 0) throw new UsageError('platforms update needs at least one option to change');
      return async (db, _io, json, rules) => {
        const platform = await updatePlatform(db, key, patch, CLI_ACTOR, rules);
        if (patch.handoffChallengeRequired === false) warnHandoffChallengeOff(io, key);
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

const EVENTS_OPTIONS = { status: { type: 'string' }, limit: { type: 'string' } } as const;

/** `events list <KEY>`: the delivery record of a platform's security events (as listSecurityEventDeliveries). */
function parseEventsCommand(action: string | undefined, args: string[], io: CliIo): Command | null {
  if (action === undefined || action === '--help' || action === '-h') return null;
  if (action !== 'list') throw new UsageError(`unknown events command "${action}" (list)`);
  const { values, positionals } = parseWithArguments(args, EVENTS_OPTIONS, 'events list', ['the platform KEY']);
  if (values.help) return null;
  const [key] = positionals as [string];
  const query = { status: values.status, limit: values.limit === undefined ? undefined : integerOption('--limit', values.limit) };
  return async (db, _io, json) => {
    const list = await listSecurityEventDeliveries(db, key, query);
    io.stdout(json ? toJson(list) : formatSecurityEventDeliveries(list));
  };
}

/**
 * `keys status|rotate-data`: the key ring comes from ENCRYPTION_KEYS as the service reads it,
 * checked before the database is opened (a bad ring is a configuration error, exit 78).
 */
function parseKeysCommand(action: string | undefined, args: string[], io: CliIo): Command | null {
  if (action === undefined || action === '--help' || action === '-h') return null;
  if (action !== 'status' && action !== 'rotate-data') throw new UsageError(`unknown keys command "${action}" (status, rotate-data)`);
  const { values } = parse(args, KEYS_OPTIONS, 0);
  if (values.help) return null;
  const batchSize = values['batch-size'] === undefined ? undefined : integerOption('--batch-size', values['batch-size']);
  let keyRing: KeyRing;
  try {
    keyRing = parseKeyRing(loadKeyRingSpec(io.env));
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw new ConfigError([`ENCRYPTION_KEYS is refused: ${(error as Error).message}`]);
  }
  if (action === 'status') {
    return async (db, _io, json) => {
      const counts = await sealedKeyStatus(db);
      io.stdout(json ? toJson({ activeKid: keyRing.activeKid, ring: keyRing.kids, sealed: counts }) : formatKeyStatus(keyRing, counts));
    };
  }
  return async (db, _io, json) => {
    const results = await rotateSealedData(db, keyRing, {
      ...(batchSize !== undefined ? { batchSize } : {}),
      onBatch: (progress) => io.stderr(`${progress.table}.${progress.column}: ${progress.resealed} re-sealed so far\n`),
    });
    io.stdout(json ? toJson({ activeKid: keyRing.activeKid, results }) : formatRotation(keyRing, results));
  };
}

function formatKeyStatus(keyRing: KeyRing, counts: readonly SealedCount[]): string {
  const lines = [`Active key: ${keyRing.activeKid}; ring: ${keyRing.kids.join(', ')}`];
  if (counts.length === 0) lines.push('No sealed values are stored.');
  for (const count of counts) {
    const note = count.kid === keyRing.activeKid ? '' : keyRing.kids.includes(count.kid) ? '  (run keys rotate-data)' : '  (key not in the ring: unreadable)';
    lines.push(`  ${count.table}.${count.column}  key ${count.kid}: ${count.rows} row(s)${note}`);
  }
  const retirable = keyRing.kids.filter((kid) => kid !== keyRing.activeKid && !counts.some((count) => count.kid === kid));
  if (retirable.length > 0) lines.push(`Protecting nothing now, so they can leave ENCRYPTION_KEYS: ${retirable.join(', ')}`);
  return `${lines.join('\n')}\n`;
}

function formatRotation(keyRing: KeyRing, results: readonly RotationResult[]): string {
  const lines = results.map((r) => `  ${r.table}.${r.column}: ${r.resealed} re-sealed under ${keyRing.activeKid}${r.unreadable ? `, ${r.unreadable} unreadable (their key is no longer in the ring)` : ''}`);
  return `${['Re-sealed under the active key:', ...lines, 'Run `keys status` to see which old keys can now be retired.'].join('\n')}\n`;
}


function parseWithKey<O extends OptionSpec>(args: string[], options: O, command: string) {
  const { values, positionals } = parseWithArguments(args, options, `platforms ${command}`, ['the platform KEY']);
  return { values, key: positionals[0] ?? '' };
}


/** Turning the handoff binding off reopens login CSRF through a handoff link: say so every time. */
function warnHandoffChallengeOff(io: CliIo, platformKey: string): void {
  io.stderr(
    `WARNING: ${platformKey} no longer requires handoffChallenge: a handoff link of someone else's login can sign a person in ` +
      `as that someone (login CSRF). Turn it on again (--handoff-challenge-required true) once its back end sends a challenge.\n`,
  );
}

function warnSecretShownOnce(io: CliIo, platformKey: string): void {
  io.stderr(
    `WARNING: the client secret of ${platformKey} is shown only this once and is stored only as a digest. ` +
      `Hand it to the platform team over a secure channel now; if it is lost, rotate it (platforms rotate ${platformKey}).\n`,
  );
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
