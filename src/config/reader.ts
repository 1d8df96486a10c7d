// The environment reader every concern of the configuration uses: it collects problems instead
// of throwing at the first, so an operator sees them all at once (ConfigError lists them).

export type NodeEnv = 'development' | 'test' | 'production';
export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export type Env = Readonly<Record<string, string | undefined>>;

export class ConfigError extends Error {
  readonly problems: readonly string[];
  constructor(problems: string[]) {
    super(`invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

/** Collects problems instead of throwing at the first, so an operator sees them all at once. */
export class Reader {
  readonly problems: string[] = [];
  private readonly env: Env;
  constructor(env: Env) {
    this.env = env;
  }

  raw(name: string): string | undefined {
    const value = this.env[name];
    return value === undefined || value.trim() === '' ? undefined : value.trim();
  }

  string(name: string, fallback: string): string;
  string(name: string, fallback: null): string | null;
  string(name: string, fallback: string | null): string | null {
    return this.raw(name) ?? fallback;
  }

  integer(name: string, fallback: number, min: number, max: number): number {
    const raw = this.raw(name);
    if (raw === undefined) return fallback;
    const value = /^-?\d+$/.test(raw) ? Number(raw) : NaN;
    if (!Number.isSafeInteger(value) || value < min || value > max) {
      this.problems.push(`${name}=${raw} is refused: allowed ${min}..${max} (whole number)`);
      return fallback;
    }
    return value;
  }

  oneOf<T extends string>(name: string, fallback: T, allowed: readonly T[]): T {
    const raw = this.raw(name);
    if (raw === undefined) return fallback;
    if (!(allowed as readonly string[]).includes(raw)) {
      this.problems.push(`${name}=${raw} is refused: allowed ${allowed.join(', ')}`);
      return fallback;
    }
    return raw as T;
  }

  /** An absolute http(s) URL without userinfo or fragment, returned without a trailing slash. */
  url(name: string, fallback: string): string;
  url(name: string, fallback: null): string | null;
  url(name: string, fallback: string | null): string | null {
    const raw = this.raw(name);
    if (raw === undefined) return fallback;
    const checked = checkHttpUrl(raw);
    if (checked !== null) {
      this.problems.push(`${name}=${raw} is refused: ${checked}`);
      return fallback;
    }
    return raw.replace(/\/+$/, '');
  }

  pattern(name: string, regex: RegExp, rule: string): string | null {
    const raw = this.raw(name);
    if (raw === undefined) return null;
    if (!regex.test(raw)) {
      this.problems.push(`${name}=${raw} is refused: ${rule}`);
      return null;
    }
    return raw;
  }
}

export function checkHttpUrl(raw: string): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute http or https URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must be an absolute http or https URL';
  if (url.username || url.password || raw.includes('@')) return 'must not contain userinfo';
  if (raw.includes('#')) return 'must not contain a fragment';
  return null;
}

/** A comma-separated list of non-empty entries; null when unset. */
export function readList(reader: Reader, name: string): string[] | null {
  const raw = reader.raw(name);
  if (raw === undefined) return null;
  const entries = [...new Set(raw.split(',').map((part) => part.trim()).filter(Boolean))];
  if (entries.length === 0) reader.problems.push(`${name} is refused: list at least one value`);
  return entries;
}

/** NODE_ENV, read the same way by the service and the tools. */
export function readNodeEnv(reader: Reader): NodeEnv {
  return reader.oneOf<NodeEnv>('NODE_ENV', 'development', ['development', 'test', 'production']);
}

/** LOG_LEVEL: silent in tests, info elsewhere unless set. */
export function readLogLevel(reader: Reader, nodeEnv: NodeEnv): LogLevel {
  return reader.oneOf<LogLevel>('LOG_LEVEL', nodeEnv === 'test' ? 'silent' : 'info', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']);
}
