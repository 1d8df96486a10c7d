import { pino } from 'pino';
import { ConfigError, loadDatabaseToolConfig, type LogLevel } from '../config/index.ts';
import { createLogger, type Logger } from '../logger.ts';
import { openDatabase, type OpenedDatabase } from '../db/open.ts';
import { ApiError } from '../errors/catalogue.ts';
import { PROFILE_FIELDS } from '../services/onboarding/profileFields.ts';
import { FIELD_TYPES } from '../services/onboarding/values.ts';
import { FIELD_KEY_PATTERN } from '../services/onboarding/definitions.ts';
import { PLATFORM_KEY_PATTERN } from '../services/registry/index.ts';
import { describeFieldError } from './format.ts';
import { runDevCommand } from './devToken.ts';
import { runSupportCommand } from './support.ts';
import { parseAuditCommand } from './audit.ts';
import { BRANDING_HELP, parseBrandingCommand } from './branding.ts';
import { DOCUMENTS_HELP, parseDocumentsCommand } from './documents.ts';
import { parseEventsCommand } from './events.ts';
import { parseFieldsCommand } from './fields.ts';
import { GRACE_HELP, parseGraceCommand } from './grace.ts';
import { parseKeysCommand } from './keys.ts';
import { parsePlatformsCommand } from './platforms.ts';
import { UsageError } from './args.ts';
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
                   [--support-access off|notify|approve] [--sensitive true|false]
                   [--support-sign-in-url URL]
  platforms update <KEY> [--name NAME] [--callback-url URL|""] [--return-url URL]...
                   [--backchannel-logout-url URL|""]
                   [--event-delivery none|push|poll] [--event-receiver-url URL|""]
                   [--mode MODE] [--central-onboarding true|false]
                   [--handoff-challenge-required true|false] [--default-language TAG|""]
                   [--onboarding-path PATH|""] [--metadata JSON]
                   [--support-access off|notify|approve] [--sensitive true|false]
                   [--support-sign-in-url URL|""]
  platforms rotate <KEY>       new client secret, shown once; the old one stops working at once
  platforms activate <KEY>
  platforms deactivate <KEY>   soft deactivation: logins and exchanges stop, the record stays

${BRANDING_HELP}
Onboarding fields of a platform (same rules as the admin API; changes are audited with actor
"cli" and raise the platform's requirementVersion, which sends users who completed onboarding
through it again):
  fields list <KEY> [--archived]
  fields create <KEY> --key FIELD_KEY --label LABEL --type TYPE
                   [--source CUSTOM_FIELD|PROFILE_FIELD] [--profile-field NAME] [--sharing shared|ask|own]
                   [--required true|false] [--sort-order N] [--option VALUE=LABEL]...
                   [--min-length N] [--max-length N] [--min N] [--max N]
                   [--width full|half|third] [--help-text TEXT] [--placeholder TEXT]
                   [--description TEXT] [--dry-run] [--enforce-after ISO_DATE]
  fields update <KEY> <FIELD_KEY> [any create option but --key] [--clear-options] [--dry-run]
                   [--enforce-after ISO_DATE]
  fields archive <KEY> <FIELD_KEY> [--dry-run] [--enforce-after ISO_DATE]
                               soft: the field stops counting, its values are kept

Security events to platforms (see docs/operations.md, "Security events"):
  events list <KEY> [--status pending|delivered|failed] [--limit N]
                               the delivery record of a platform's events, newest first

${DOCUMENTS_HELP}
${GRACE_HELP}
Audit log:
  audit list [--platform KEY] [--action ACTION] [--limit N] [--cursor C]

Encryption keys (ENCRYPTION_KEYS, first key active; see docs/operations.md, "Rotating keys"):
  keys status                  how many stored values each key still protects, per column
  keys rotate-data [--batch-size N]
                               re-seal every value under the active key, in batches; safe
                               beside running instances, resumable (run it again after a stop)

Support access (over the gateway's API as the operator of GATEWAY_ACCESS_TOKEN; see
\`npm run gateway -- support --help\` and docs/support-access.md):
  support request --person SUB_OR_EMAIL --platform KEY --reason TEXT [--minutes N]
  support list [--limit N]
  support end <ID>

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
               to IN_PROGRESS (with --enforce-after: how many sign in with GRACE until then,
               and how many already meet it); nothing is written or audited
  --enforce-after ISO_DATE
               (fields create, update, archive; documents publish) enforce the change from
               this future date, not at once: until then people who have not met it sign in
               as before and platforms hear GRACE; move the date with \`grace move\`
  -h, --help   show this help

Notes:
  KEY is used as given (${PLATFORM_KEY_PATTERN.source}); it is not uppercased for you.
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
  FIELD_KEY is ${FIELD_KEY_PATTERN.source} and cannot change. TYPE is one of
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

/** Runs one command line; returns the exit code. Never throws. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  // Development helpers talk to the running dev stack over HTTP, not to the database.
  if (argv[0] === 'dev') return runDevCommand(argv.slice(1), io);
  // Support access acts as the operator (their access token), over the gateway's API (support.ts).
  if (argv[0] === 'support') return runSupportCommand(argv.slice(1), io);
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
  if (group === 'grace') return parseGraceCommand(action, rest, io);
  if (group === 'keys') return parseKeysCommand(action, rest, io);
  if (group === 'branding') {
    const command = parseBrandingCommand(action, rest, io.env);
    return command && ((db, _io, json) => command(db, io, json));
  }
  throw new UsageError(`unknown command "${group}" (commands: platforms, branding, fields, documents, grace, events, audit, keys, dev)`);
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
