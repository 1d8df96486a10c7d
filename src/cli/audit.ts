// `audit list`: the audit log, as the admin API's listAuditEvents.
import { listAuditEvents } from '../services/audit/audit.ts';
import { integerOption, parse, toJson, UsageError } from './args.ts';
import type { CliIo, Command } from './command.ts';
import { formatAuditList } from './format.ts';

const AUDIT_OPTIONS = { platform: { type: 'string' }, action: { type: 'string' }, limit: { type: 'string' }, cursor: { type: 'string' } } as const;

export function parseAuditCommand(action: string | undefined, args: string[], io: CliIo): Command | null {
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
