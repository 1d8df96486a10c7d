import type { FieldError } from '../errors/catalogue.ts';
import type { AuditEventList } from '../services/audit/audit.ts';
import type { FieldList, FieldView, SchemaChangePreview } from '../services/onboarding/schema.ts';
import type { PlatformList, PlatformView } from '../services/registry/index.ts';

// Human-readable output of the operator CLI (`--json` prints the API
// representations instead). Pure functions: text in, text out.

/** Which command-line option a problem pointer of the registry or onboarding schema service stands for. */
const OPTION_OF_POINTER: Record<string, string> = {
  '/body/platformKey': '--key',
  '/body/enforceAfter': '--enforce-after',
  '/body/displayName': '--name',
  '/body/callbackUrl': '--callback-url',
  '/body/backchannelLogoutUrl': '--backchannel-logout-url',
  '/body/eventDelivery': '--event-delivery',
  '/body/eventReceiverUrl': '--event-receiver-url',
  '/query/status': '--status',
  '/body/allowedReturnUrls': '--return-url',
  '/body/defaultOnboardingMode': '--mode',
  '/body/centralOnboardingEnabled': '--central-onboarding',
  '/body/handoffChallengeRequired': '--handoff-challenge-required',
  '/body/platformOnboardingPath': '--onboarding-path',
  '/body/metadata': '--metadata',
  '/body/active': '--inactive',
  '/body/fieldKey': '--key',
  '/body/label': '--label',
  '/body/fieldType': '--type',
  '/body/source': '--source',
  '/body/profileField': '--profile-field',
  '/body/sharing': '--sharing',
  '/body/required': '--required',
  '/body/sortOrder': '--sort-order',
  '/body/options': '--option',
  '/body/validation/minLength': '--min-length',
  '/body/validation/maxLength': '--max-length',
  '/body/validation/min': '--min',
  '/body/validation/max': '--max',
  '/body/uiConfig/width': '--width',
  '/body/uiConfig/helpText': '--help-text',
  '/body/placeholder': '--placeholder',
  '/body/description': '--description',
  '/query/cursor': '--cursor',
  '/query/limit': '--limit',
  '/query/platformKey': '--platform',
  '/query/action': '--action',
};

export function describeFieldError(error: FieldError): string {
  const message = error.message;
  const item = /^\/body\/allowedReturnUrls\/(\d+)$/.exec(error.pointer);
  if (item) return `--return-url #${Number(item[1]) + 1}: ${message}`;
  // One --option VALUE=LABEL, counted from 1 in the order given, and which half of it.
  const option = /^\/body\/options\/(\d+)(?:\/(value|label))?$/.exec(error.pointer);
  if (option) {
    // The service counts options from 0 ("duplicates the value of option 0"); the CLI from 1.
    const counted = message.replace(/\boption (\d+)\b/, (_, index: string) => `--option #${Number(index) + 1}`);
    return `--option #${Number(option[1]) + 1}${option[2] ? ` ${option[2]}` : ''}: ${counted}`;
  }
  // A key inside the --metadata JSON, as its JSON pointer below metadata (`a/b/0/constructor`).
  const inMetadata = /^\/body\/metadata\/(.+)$/.exec(error.pointer);
  if (inMetadata) return `--metadata ${inMetadata[1]}: ${message}`;
  return `${OPTION_OF_POINTER[error.pointer] ?? error.pointer}: ${message}`;
}

export function formatPlatform(platform: PlatformView): string {
  const rows: [string, string][] = [
    ['platformKey', platform.platformKey],
    ['displayName', platform.displayName],
    ['active', platform.active ? 'yes' : 'no'],
    ['clientId', platform.clientId ?? '(none: rotate to create credentials)'],
    ['callbackUrl', platform.callbackUrl ?? '(none)'],
    ['backchannelLogoutUrl', platform.backchannelLogoutUrl ?? '(none)'],
    ['eventDelivery', platform.eventDelivery],
    ['eventReceiverUrl', platform.eventReceiverUrl ?? '(none)'],
    ['allowedReturnUrls', platform.allowedReturnUrls.length > 0 ? platform.allowedReturnUrls.join('\n') : '(none)'],
    ['defaultOnboardingMode', platform.defaultOnboardingMode],
    ['centralOnboarding', platform.centralOnboardingEnabled ? 'enabled' : 'disabled'],
    ['handoffChallengeRequired', platform.handoffChallengeRequired ? 'yes' : 'no (WARNING: logins are open to login CSRF)'],
    ['defaultLanguage', platform.defaultLanguage ?? '(none: English)'],
    ['supportAccess', `${platform.supportAccess}${platform.sensitive ? ' (sensitive: never entered)' : ''}`],
    ['supportSignInUrl', platform.supportSignInUrl ?? '(none)'],
    ['platformOnboardingPath', platform.platformOnboardingPath ?? '(none)'],
    ['metadata', JSON.stringify(platform.metadata)],
    ['requirementVersion', String(platform.requirementVersion)],
    ['createdAt', platform.createdAt],
    ['updatedAt', platform.updatedAt],
  ];
  return keyValues(rows);
}

export function formatPlatformList(page: PlatformList): string {
  if (page.items.length === 0) return 'No platforms.\n';
  const table = formatTable(
    ['KEY', 'ACTIVE', 'MODE', 'CLIENT ID', 'CALLBACK URL', 'NAME'],
    page.items.map((p) => [p.platformKey, p.active ? 'yes' : 'no', p.defaultOnboardingMode, p.clientId ?? '-', p.callbackUrl ?? '-', p.displayName]),
  );
  return table + (page.nextCursor ? `\nMore platforms: repeat with --cursor ${page.nextCursor}\n` : '');
}

export function formatAuditList(page: AuditEventList): string {
  if (page.items.length === 0) return 'No audit events.\n';
  const table = formatTable(
    ['OCCURRED AT', 'ACTION', 'PLATFORM', 'FIELD', 'ACTOR', 'CHANGED', 'REQUEST'],
    page.items.map((e) => [
      e.occurredAt,
      e.action,
      e.platformKey ?? (e.sessionId ? `session ${e.sessionId}` : '-'),
      e.fieldKey ?? '-',
      // cli and devstack (the dev stack's seeding) have no user; only a user actor has a subject.
      // A platform's own credential acting for the user is named: the change came from its back end.
      e.actor.type === 'user' ? `user ${e.actor.sub ?? e.actor.userId ?? '?'}${e.actor.via === 'platform' ? ` by platform ${e.actor.platformKey ?? '?'}` : ''}` : e.actor.type,
      e.changedFields.join(',') || '-',
      e.requestId ?? '-',
    ]),
  );
  return table + (page.nextCursor ? `\nMore events: repeat with --cursor ${page.nextCursor}\n` : '');
}

export function formatField(field: FieldView): string {
  // In a fixed order: the database (jsonb) does not keep the order they were given in.
  const validation = (['minLength', 'maxLength', 'min', 'max'] as const).flatMap((key) => (field.validation[key] === undefined ? [] : [`${key} ${field.validation[key]}`]));
  return keyValues([
    ['fieldKey', field.fieldKey],
    ['label', field.label],
    ['fieldType', field.fieldType],
    ['source', field.source],
    ['profileField', field.profileField ?? '(none)'],
    ['sharing', field.sharing ?? '(none)'],
    ['required', field.required ? 'yes' : 'no'],
    ['sortOrder', String(field.sortOrder)],
    // As --option takes them: VALUE=LABEL, in order.
    ['options', field.options.length > 0 ? field.options.map((option) => `${option.value}=${option.label}`).join('\n') : '(none)'],
    ['validation', validation.length > 0 ? validation.join(', ') : '(none)'],
    ['width', field.uiConfig.width ?? '(default)'],
    ['helpText', optionalText(field.uiConfig.helpText)],
    ['placeholder', optionalText(field.placeholder)],
    ['description', optionalText(field.description)],
    ['archived', field.archived ? `yes, at ${field.archivedAt}` : 'no'],
    ['createdAt', field.createdAt],
    ['updatedAt', field.updatedAt],
  ]);
}

export function formatFieldList(list: FieldList, includeArchived: boolean): string {
  const head = keyValues([
    ['platformKey', list.platformKey],
    ['requirementVersion', String(list.requirementVersion)],
  ]);
  if (list.items.length === 0) return `${head}\n${includeArchived ? 'No onboarding fields.' : 'No active onboarding fields (--archived lists archived ones too).'}\n`;
  const table = formatTable(
    ['KEY', 'TYPE', 'SOURCE', 'REQUIRED', 'ORDER', 'ARCHIVED', 'LABEL'],
    list.items.map((f) => [
      f.fieldKey,
      f.fieldType,
      f.source === 'PROFILE_FIELD' ? `profile:${f.profileField ?? '?'}${f.sharing && f.sharing !== 'shared' ? ` (${f.sharing})` : ''}` : 'custom',
      f.required ? 'yes' : 'no',
      String(f.sortOrder),
      f.archived ? 'yes' : 'no',
      f.label,
    ]),
  );
  return `${head}\n${table}`;
}

/** What a --dry-run would do; the definition as it would be stored follows. */
export function formatSchemaChangePreview(preview: SchemaChangePreview): string {
  const users = preview.reopenedUsers === 1 ? "1 user's" : `${preview.reopenedUsers} users'`;
  const summary = keyValues([
    ['would change:', preview.changed ? 'yes' : 'no'],
    ['changed properties:', preview.changedFields.length > 0 ? preview.changedFields.join(', ') : '(none)'],
    ['requirementVersion:', preview.changed ? `would become ${preview.requirementVersion}` : `stays ${preview.requirementVersion}`],
  ]);
  return [
    'Dry run: nothing was written.\n',
    summary,
    `${users} onboarding would go from COMPLETE to IN_PROGRESS.\n`,
    preview.enforceAfter
      ? `Enforced from ${preview.enforceAfter}: until then ${preview.graceUsers} of them sign in as before (GRACE); ${preview.meetingUsers} already meet it and only confirm.\n`
      : '',
    '\nThe definition as it would be stored:\n',
    formatField(preview.field),
  ].join('');
}

/** The secret block; the warning goes to stderr separately so stdout stays machine-usable. */
export function formatCredentials(credentials: { clientId: string; clientSecret: string }): string {
  return keyValues([
    ['clientId', credentials.clientId],
    ['clientSecret', credentials.clientSecret],
  ]);
}

function optionalText(value: string | null | undefined): string {
  if (value === null || value === undefined) return '(none)';
  return value === '' ? '(empty)' : value;
}

export function keyValues(rows: [string, string][]): string {
  const width = Math.max(...rows.map(([key]) => key.length)) + 2;
  return rows
    .map(([key, value]) => {
      const [first, ...rest] = value.split('\n');
      return [`${key.padEnd(width)}${first}`, ...rest.map((line) => `${' '.repeat(width)}${line}`)].join('\n');
    })
    .join('\n')
    .concat('\n');
}

function formatTable(header: string[], rows: string[][]): string {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column]!)))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n').concat('\n');
}
