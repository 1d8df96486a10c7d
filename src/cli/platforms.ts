// `platforms list|show|create|update|rotate|activate|deactivate`: the registry from a shell,
// through the same services as the admin API (src/services/registry/), audited as `cli`.
import { CLI_ACTOR } from '../services/audit/audit.ts';
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
import { booleanOption, integerOption, jsonOption, parse, parseWithArguments, toJson, UsageError, type OptionSpec } from './args.ts';
import type { CliIo, Command } from './command.ts';
import { formatCredentials, formatPlatform, formatPlatformList } from './format.ts';

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
  // Support access (issue 35; docs/support-access.md).
  'support-access': { type: 'string' },
  sensitive: { type: 'string' },
  'support-sign-in-url': { type: 'string' },
} as const;
const CREATE_OPTIONS = { key: { type: 'string' }, ...SETTINGS_OPTIONS, inactive: { type: 'boolean' } } as const;
const UPDATE_OPTIONS = SETTINGS_OPTIONS;
const LIST_OPTIONS = { active: { type: 'string' }, limit: { type: 'string' }, cursor: { type: 'string' } } as const;

export function parsePlatformsCommand(action: string | undefined, args: string[], io: CliIo): Command | null {
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
      Object.assign(input, supportSettings(values));
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
      Object.assign(patch, supportSettings(values));
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

/** --support-access, --sensitive, --support-sign-in-url ("" clears the URL); the service checks the values. */
function supportSettings(values: { 'support-access'?: string; sensitive?: string; 'support-sign-in-url'?: string }): Partial<PlatformUpdateInput> {
  const settings: Partial<PlatformUpdateInput> = {};
  if (values['support-access'] !== undefined) settings.supportAccess = values['support-access'] as PlatformUpdateInput['supportAccess'];
  if (values.sensitive !== undefined) settings.sensitive = booleanOption('--sensitive', values.sensitive);
  if (values['support-sign-in-url'] !== undefined) settings.supportSignInUrl = values['support-sign-in-url'] === '' ? null : values['support-sign-in-url'];
  return settings;
}
