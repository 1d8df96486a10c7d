import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { parseArgs } from 'node:util';
import type { Db } from '../db/knex.ts';
import type { UploadImageType } from '../services/images/reencode.ts';
import {
  CLI_ACTOR,
  clearBranding,
  deleteLogo,
  getBranding,
  LOGO_MAX_BYTES,
  setBranding,
  uploadLogo,
  type PlatformBrandingView,
} from '../services/registry/index.ts';
import { keyValues } from './format.ts';
import type { CliIo } from './command.ts';
import { UsageError } from './args.ts';

// `branding …`: a platform's colour, names per language and logo from a shell (issue 27), through
// the same services as the admin API (same contrast check, same image pipeline, audited as cli).

export const BRANDING_HELP = `Platform branding (same rules as the admin API; audited with actor "cli"):
  branding show <KEY>
  branding set <KEY> [--color '#rrggbb'|""] [--name LANG=NAME]... [--clear-names]
                               --color must reach WCAG AA contrast (4.5:1) against white text
                               and the page; --name replaces the names per language
  branding logo <KEY> --file PATH
                               a PNG, JPEG or WebP (by the file's extension), at most 1 MiB;
                               checked and re-encoded as avatars are
  branding remove-logo <KEY>
  branding clear <KEY>         colour, names and logo removed
`;

type BrandingCommand = (db: Db, io: CliIo, json: boolean) => Promise<void>;

const OPTIONS = {
  color: { type: 'string' },
  name: { type: 'string', multiple: true },
  'clear-names': { type: 'boolean' },
  file: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

const TYPES_BY_EXTENSION: Record<string, UploadImageType> = { '.png': 'image/png', '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg', '.webp': 'image/webp' };

/** null: help was asked for. */
export function parseBrandingCommand(action: string | undefined, args: string[], env: CliIo['env']): BrandingCommand | null {
  if (action === undefined || action === '--help' || action === '-h') return null;
  if (!['show', 'set', 'logo', 'remove-logo', 'clear'].includes(action)) {
    throw new UsageError(`unknown branding command "${action}" (show, set, logo, remove-logo, clear)`);
  }
  const { values, positionals } = parseArgs({ args, options: OPTIONS, allowPositionals: true, strict: true });
  if (values.help) return null;
  if (positionals.length !== 1) throw new UsageError(`branding ${action} needs the platform KEY`);
  const key = positionals[0]!;
  const allowed: Record<string, readonly string[]> = { show: [], set: ['color', 'name', 'clear-names'], logo: ['file'], 'remove-logo': [], clear: [] };
  for (const option of ['color', 'name', 'clear-names', 'file'] as const) {
    if (values[option] !== undefined && !allowed[action]!.includes(option)) throw new UsageError(`branding ${action} takes no --${option}`);
  }
  // The CLI knows no request: logo URLs are named with PUBLIC_BASE_URL, as the service names them.
  const ctx = (db: Db) => ({ db, publicBaseUrl: env.PUBLIC_BASE_URL ?? `http://localhost:${env.PORT ?? 8080}` });
  const print = (io: CliIo, json: boolean, branding: PlatformBrandingView) => io.stdout(json ? `${JSON.stringify(branding, null, 2)}\n` : formatBranding(branding));

  switch (action) {
    case 'show':
      return async (db, io, json) => print(io, json, await getBranding(ctx(db), key, { includeInactive: true }));
    case 'set': {
      if (values.name !== undefined && values['clear-names']) throw new UsageError('branding set takes --name or --clear-names, not both');
      if (values.color === undefined && values.name === undefined && !values['clear-names']) throw new UsageError('branding set needs --color, --name or --clear-names');
      const names = values.name?.map(languageName);
      return async (db, io, json) => {
        const current = await getBranding(ctx(db), key, { includeInactive: true });
        const input = {
          primaryColor: values.color === undefined ? current.primaryColor : values.color === '' ? null : values.color,
          displayNames: values['clear-names'] ? {} : names ? Object.fromEntries(names) : current.displayNames,
        };
        print(io, json, await setBranding(ctx(db), key, input, CLI_ACTOR));
      };
    }
    case 'logo': {
      const file = values.file;
      if (file === undefined) throw new UsageError('branding logo needs --file PATH');
      const type = TYPES_BY_EXTENSION[extname(file).toLowerCase()];
      if (!type) throw new UsageError('branding logo takes a .png, .jpg, .jpeg or .webp file');
      return async (db, io, json) => {
        const bytes = await readFile(file);
        if (bytes.length > LOGO_MAX_BYTES) throw new UsageError(`the logo file may be at most ${LOGO_MAX_BYTES} bytes`);
        print(io, json, await uploadLogo(ctx(db), key, bytes, type, CLI_ACTOR));
      };
    }
    case 'remove-logo':
      return async (db, io, json) => print(io, json, await deleteLogo(ctx(db), key, CLI_ACTOR));
    default:
      return async (db, io, json) => print(io, json, await clearBranding(ctx(db), key, CLI_ACTOR));
  }
}

/** LANG=NAME (the language ends at the first "="). */
function languageName(option: string): [string, string] {
  const at = option.indexOf('=');
  if (at <= 0) throw new UsageError(`--name must be LANG=NAME, e.g. de="Hafen Logistik" (got "${option}")`);
  return [option.slice(0, at), option.slice(at + 1)];
}

export function formatBranding(branding: PlatformBrandingView): string {
  const names = Object.entries(branding.displayNames).map(([tag, name]) => `${tag}: ${name}`);
  return `${keyValues([
    ['platformKey', branding.platformKey],
    ['displayName', branding.displayName],
    ['displayNames', names.length > 0 ? names.join('\n') : '(none)'],
    ['primaryColor', branding.primaryColor ?? '(none: the account center’s look)'],
    ['logoUrl', branding.logoUrl ?? '(none)'],
  ])}`;
}
