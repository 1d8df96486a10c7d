import { parseArgs } from 'node:util';

// Argument parsing shared by the operator CLI's command groups (run.ts, documents.ts).

/** The command line itself is wrong (exit 2). */
export class UsageError extends Error {
  override name = 'UsageError';
}

export const COMMON_OPTIONS = { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } as const;

export type OptionSpec = Record<string, { type: 'string' | 'boolean'; multiple?: boolean; short?: string }>;

export function parse<O extends OptionSpec>(args: string[], options: O, positionals: number) {
  const result = parseArgs({ args, options: { ...options, ...COMMON_OPTIONS }, allowPositionals: true, strict: true });
  if (result.positionals.length > positionals) throw new UsageError(`unexpected argument "${result.positionals[positionals]}"`);
  return result;
}

/** Exactly the named positional arguments (unless help is asked for). */
export function parseWithArguments<O extends OptionSpec>(args: string[], options: O, command: string, names: readonly string[]) {
  const result = parse(args, options, names.length);
  const missing = names.find((_, index) => result.positionals[index] === undefined);
  if (missing !== undefined && !(result.values as { help?: boolean }).help) throw new UsageError(`${command} needs ${missing}`);
  return { values: result.values, positionals: result.positionals };
}

export function toJson(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/** Option values the services take typed: the service decides ranges, the CLI only the shape. */
export function booleanOption(name: string, value: string): boolean {
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw new UsageError(`${name} must be true or false`);
}

export function integerOption(name: string, value: string): number {
  if (!/^\d{1,9}$/.test(value)) throw new UsageError(`${name} must be a whole number`);
  return Number(value);
}

/** A decimal number, handed to the service as it is: the service decides the range (and whether it must be whole). */
export function numberOption(name: string, value: string): number {
  if (!/^-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/.test(value)) throw new UsageError(`${name} must be a number`);
  return Number(value);
}

export function jsonOption(name: string, value: string): unknown {
  try {
    return JSON.parse(value);
  } catch {
    throw new UsageError(`${name} must be JSON, for example '{"team":"identity"}'`);
  }
}
