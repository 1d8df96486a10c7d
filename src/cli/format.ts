import type { FieldError } from '../errors/catalogue.ts';
import type { AuditEventList } from '../services/audit.ts';
import type { PlatformList, PlatformView } from '../services/platformRegistry.ts';

// Human-readable output of the operator CLI (`--json` prints the API
// representations instead). Pure functions: text in, text out.

/** Which command-line option a problem pointer of the registry service stands for. */
const OPTION_OF_POINTER: Record<string, string> = {
  '/body/platformKey': '--key',
  '/body/displayName': '--name',
  '/body/callbackUrl': '--callback-url',
  '/body/allowedReturnUrls': '--return-url',
  '/body/defaultOnboardingMode': '--mode',
  '/body/centralOnboardingEnabled': '--central-onboarding',
  '/body/platformOnboardingPath': '--onboarding-path',
  '/body/metadata': '--metadata',
  '/body/active': '--inactive',
  '/query/cursor': '--cursor',
  '/query/limit': '--limit',
  '/query/platformKey': '--platform',
  '/query/action': '--action',
};

export function describeFieldError(error: FieldError): string {
  const item = /^\/body\/allowedReturnUrls\/(\d+)$/.exec(error.pointer);
  if (item) return `--return-url #${Number(item[1]) + 1}: ${error.message}`;
  // A key inside the --metadata JSON, as its JSON pointer below metadata (`a/b/0/constructor`).
  const inMetadata = /^\/body\/metadata\/(.+)$/.exec(error.pointer);
  if (inMetadata) return `--metadata ${inMetadata[1]}: ${error.message}`;
  return `${OPTION_OF_POINTER[error.pointer] ?? error.pointer}: ${error.message}`;
}

export function formatPlatform(platform: PlatformView): string {
  const rows: [string, string][] = [
    ['platformKey', platform.platformKey],
    ['displayName', platform.displayName],
    ['active', platform.active ? 'yes' : 'no'],
    ['clientId', platform.clientId ?? '(none: rotate to create credentials)'],
    ['callbackUrl', platform.callbackUrl ?? '(none)'],
    ['allowedReturnUrls', platform.allowedReturnUrls.length > 0 ? platform.allowedReturnUrls.join('\n') : '(none)'],
    ['defaultOnboardingMode', platform.defaultOnboardingMode],
    ['centralOnboarding', platform.centralOnboardingEnabled ? 'enabled' : 'disabled'],
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
    ['OCCURRED AT', 'ACTION', 'PLATFORM', 'ACTOR', 'CHANGED', 'REQUEST'],
    page.items.map((e) => [
      e.occurredAt,
      e.action,
      e.platformKey,
      e.actor.type === 'cli' ? 'cli' : `user ${e.actor.sub ?? e.actor.userId ?? '?'}`,
      e.changedFields.join(',') || '-',
      e.requestId ?? '-',
    ]),
  );
  return table + (page.nextCursor ? `\nMore events: repeat with --cursor ${page.nextCursor}\n` : '');
}

/** The secret block; the warning goes to stderr separately so stdout stays machine-usable. */
export function formatCredentials(credentials: { clientId: string; clientSecret: string }): string {
  return keyValues([
    ['clientId', credentials.clientId],
    ['clientSecret', credentials.clientSecret],
  ]);
}

function keyValues(rows: [string, string][]): string {
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
