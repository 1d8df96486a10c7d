import {
  archiveFieldDefinition,
  createFieldDefinition,
  listFieldDefinitions,
  updateFieldDefinition,
  type FieldCreateInput,
  type FieldUpdateInput,
  type SchemaChangeResult,
} from '../services/onboarding/schema.ts';
import type { FieldDefinitionRow } from '../domain/onboarding.ts';
import { formatField, formatFieldList, formatSchemaChangePreview } from './format.ts';
import { CLI_ACTOR } from '../services/audit/audit.ts';
import { enforcementOf } from '../services/onboarding/grace.ts';
import { booleanOption, numberOption, parseWithArguments, toJson, UsageError } from './args.ts';
import type { CliIo, Command } from './command.ts';

// The operator CLI's `fields` commands: a platform's onboarding schema (list, create, update,
// archive), through the same services as the admin API.

const FIELD_SETTINGS_OPTIONS = {
  label: { type: 'string' },
  type: { type: 'string' },
  source: { type: 'string' },
  'profile-field': { type: 'string' },
  sharing: { type: 'string' },
  required: { type: 'string' },
  'sort-order': { type: 'string' },
  option: { type: 'string', multiple: true },
  'min-length': { type: 'string' },
  'max-length': { type: 'string' },
  min: { type: 'string' },
  max: { type: 'string' },
  width: { type: 'string' },
  'help-text': { type: 'string' },
  placeholder: { type: 'string' },
  description: { type: 'string' },
  'dry-run': { type: 'boolean' },
  'enforce-after': { type: 'string' },
} as const;
const FIELD_CREATE_OPTIONS = { key: { type: 'string' }, ...FIELD_SETTINGS_OPTIONS } as const;
const FIELD_UPDATE_OPTIONS = { ...FIELD_SETTINGS_OPTIONS, 'clear-options': { type: 'boolean' } } as const;
const FIELD_LIST_OPTIONS = { archived: { type: 'boolean' } } as const;
const FIELD_ARCHIVE_OPTIONS = { 'dry-run': { type: 'boolean' }, 'enforce-after': { type: 'string' } } as const;

export function parseFieldsCommand(action: string | undefined, args: string[], io: CliIo): Command | null {
  switch (action) {
    case undefined:
    case '--help':
    case '-h':
      return null;
    case 'list': {
      const { values, positionals } = parseWithArguments(args, FIELD_LIST_OPTIONS, 'fields list', ['the platform KEY']);
      if (values.help) return null;
      const [key] = positionals as [string];
      const includeArchived = values.archived === true;
      return async (db, _io, json) => {
        const list = await listFieldDefinitions(db, key, includeArchived);
        io.stdout(json ? toJson(list) : formatFieldList(list, includeArchived));
      };
    }
    case 'create': {
      const { values, positionals } = parseWithArguments(args, FIELD_CREATE_OPTIONS, 'fields create', ['the platform KEY']);
      if (values.help) return null;
      const [key] = positionals as [string];
      if (values.key === undefined) throw new UsageError('fields create needs --key FIELD_KEY');
      if (values.label === undefined) throw new UsageError('fields create needs --label LABEL');
      if (values.type === undefined) throw new UsageError('fields create needs --type TYPE');
      const { settings, validation, uiConfig } = fieldSettings(values);
      const input = { fieldKey: values.key, ...settings } as FieldCreateInput;
      // On create there is nothing to keep: the given keys without the empty ones, and no
      // property at all when none is left (so the preview does not list it as set).
      const newValidation = withChanges({}, validation);
      const newUiConfig = withChanges({}, uiConfig);
      if (Object.keys(newValidation).length > 0) input.validation = newValidation;
      if (Object.keys(newUiConfig).length > 0) input.uiConfig = newUiConfig;
      const dryRun = values['dry-run'] === true;
      // Checked when the command runs (in the future then), as the API checks it.
      const enforceAfter = values['enforce-after'];
      return async (db, _io, json) => {
        printSchemaChange(io, json, await createFieldDefinition(db, key, input, CLI_ACTOR, { dryRun, enforceAfter: enforcementOf(enforceAfter, '--enforce-after') }));
      };
    }
    case 'update': {
      const { values, positionals } = parseWithArguments(args, FIELD_UPDATE_OPTIONS, 'fields update', ['the platform KEY', 'the FIELD_KEY']);
      if (values.help) return null;
      const [key, fieldKey] = positionals as [string, string];
      const { settings, validation, uiConfig } = fieldSettings(values);
      if (values['clear-options']) {
        if (values.option !== undefined) throw new UsageError('fields update takes --option or --clear-options, not both');
        settings.options = [];
      }
      const changesValidation = Object.keys(validation).length > 0;
      const changesUiConfig = Object.keys(uiConfig).length > 0;
      if (Object.keys(settings).length === 0 && !changesValidation && !changesUiConfig) {
        throw new UsageError('fields update needs at least one option to change');
      }
      const dryRun = values['dry-run'] === true;
      // Checked when the command runs (in the future then), as the API checks it.
      const enforceAfter = values['enforce-after'];
      // The API replaces validation and uiConfig whole; each CLI option changes only its own key,
      // so the others are kept from the stored definition, read under the service's row lock.
      const patchOf = (current: FieldDefinitionRow): FieldUpdateInput => ({
        ...(settings as FieldUpdateInput),
        ...(changesValidation ? { validation: withChanges(current.validation, validation) } : {}),
        ...(changesUiConfig ? { uiConfig: withChanges(current.uiConfig, uiConfig) } : {}),
      });
      return async (db, _io, json) => {
        printSchemaChange(io, json, await updateFieldDefinition(db, key, fieldKey, patchOf, CLI_ACTOR, { dryRun, enforceAfter: enforcementOf(enforceAfter, '--enforce-after') }));
      };
    }
    case 'archive': {
      const { values, positionals } = parseWithArguments(args, FIELD_ARCHIVE_OPTIONS, 'fields archive', ['the platform KEY', 'the FIELD_KEY']);
      if (values.help) return null;
      const [key, fieldKey] = positionals as [string, string];
      const dryRun = values['dry-run'] === true;
      // Checked when the command runs (in the future then), as the API checks it.
      const enforceAfter = values['enforce-after'];
      return async (db, _io, json) => {
        printSchemaChange(io, json, await archiveFieldDefinition(db, key, fieldKey, CLI_ACTOR, { dryRun, enforceAfter: enforcementOf(enforceAfter, '--enforce-after') }));
      };
    }
    default:
      throw new UsageError(`unknown fields command "${action}" (list, create, update, archive)`);
  }
}

type FieldSettingsValues = {
  [K in keyof typeof FIELD_SETTINGS_OPTIONS]?: (typeof FIELD_SETTINGS_OPTIONS)[K] extends { multiple: true } ? string[] : (typeof FIELD_SETTINGS_OPTIONS)[K]['type'] extends 'boolean' ? boolean : string;
};

/** A key of validation or uiConfig to set, or (null) to remove. */
type KeyChanges = Record<string, number | string | null>;

/**
 * The settings the options give, named as in the API body, only those given: the
 * values go to the service as typed (it refuses what the API refuses), except that an
 * empty --placeholder, --description or --profile-field is null (none). validation and
 * uiConfig come apart, key by key, for the caller to merge.
 */
function fieldSettings(values: FieldSettingsValues): { settings: Record<string, unknown>; validation: KeyChanges; uiConfig: KeyChanges } {
  const settings: Record<string, unknown> = {};
  if (values.label !== undefined) settings.label = values.label;
  if (values.type !== undefined) settings.fieldType = values.type;
  if (values.source !== undefined) settings.source = values.source;
  if (values['profile-field'] !== undefined) settings.profileField = values['profile-field'] === '' ? null : values['profile-field'];
  if (values.sharing !== undefined) settings.sharing = values.sharing === '' ? null : values.sharing;
  if (values.required !== undefined) settings.required = booleanOption('--required', values.required);
  if (values['sort-order'] !== undefined) settings.sortOrder = numberOption('--sort-order', values['sort-order']);
  if (values.option !== undefined) settings.options = values.option.map(fieldOption);
  if (values.placeholder !== undefined) settings.placeholder = values.placeholder === '' ? null : values.placeholder;
  if (values.description !== undefined) settings.description = values.description === '' ? null : values.description;

  const validation: KeyChanges = {};
  for (const [option, key] of [['min-length', 'minLength'], ['max-length', 'maxLength'], ['min', 'min'], ['max', 'max']] as const) {
    const value = values[option];
    if (value !== undefined) validation[key] = value === '' ? null : numberOption(`--${option}`, value);
  }
  const uiConfig: KeyChanges = {};
  if (values.width !== undefined) uiConfig.width = values.width === '' ? null : values.width;
  if (values['help-text'] !== undefined) uiConfig.helpText = values['help-text'] === '' ? null : values['help-text'];
  return { settings, validation, uiConfig };
}

/** `--option VALUE=LABEL`: the value ends at the first "=", the label may hold more. */
function fieldOption(text: string): { value: string; label: string } {
  const at = text.indexOf('=');
  if (at < 0) throw new UsageError(`--option must be VALUE=LABEL, for example --option 'eu=Europe' (got "${text}")`);
  return { value: text.slice(0, at), label: text.slice(at + 1) };
}

/** `base` with the changes applied: a null change removes the key. */
function withChanges<T extends object>(base: T, changes: KeyChanges): T {
  const result: Record<string, unknown> = { ...(base as Record<string, unknown>) };
  for (const [key, value] of Object.entries(changes)) {
    if (value === null) delete result[key];
    else result[key] = value;
  }
  return result as T;
}

function printSchemaChange(io: CliIo, json: boolean, result: SchemaChangeResult): void {
  if (result.applied) io.stdout(json ? toJson(result.field) : formatField(result.field));
  else io.stdout(json ? toJson(result.preview) : formatSchemaChangePreview(result.preview));
}
