// `events list <KEY>`: the delivery record of a platform's security events.
import { listSecurityEventDeliveries } from '../services/events/record.ts';
import { integerOption, parseWithArguments, toJson, UsageError } from './args.ts';
import type { CliIo, Command } from './command.ts';
import { formatSecurityEventDeliveries } from './formatEvents.ts';

const EVENTS_OPTIONS = { status: { type: 'string' }, limit: { type: 'string' } } as const;

/** `events list <KEY>`: the delivery record of a platform's security events (as listSecurityEventDeliveries). */
export function parseEventsCommand(action: string | undefined, args: string[], io: CliIo): Command | null {
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
