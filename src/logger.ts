import { pino, type Logger, type LoggerOptions } from 'pino';

const SECRET_FIELDS = [
  'password', 'clientSecret', 'client_secret', 'gatewayToken', 'accessToken', 'idToken',
  'access_token', 'id_token', 'refresh_token', 'nonce', 'code_verifier', 'state', 'platformState',
];

/**
 * The objects under which this service logs structured data. Secret fields are
 * censored at the top level and inside each of these, not under arbitrary keys:
 * pino's `*.field` wildcard paths make every log line three times as expensive
 * (22 against 8 µs per request line, docs/benchmarks.md), so new containers of
 * secrets are added here by name.
 */
export const LOGGED_CONTAINERS = [
  'body', 'query', 'params', 'headers', 'input', 'platform', 'session', 'user',
  'tokens', 'client', 'result', 'err', 'error', 'cause',
] as const;

/**
 * Paths pino must never print. Request logs carry headers and query strings;
 * the login flow carries state, codes and tokens in both.
 * `code` is censored only inside bodies and queries: elsewhere it is an error code
 * (ENOENT, 23505) an operator needs.
 */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["proxy-authorization"]',
  'res.headers["set-cookie"]',
  'res.headers.location',
  'headers.authorization',
  'headers.cookie',
  'body.code',
  'query.code',
  'req.body.code',
  'req.query.code',
  ...SECRET_FIELDS,
  ...LOGGED_CONTAINERS.flatMap((container) => SECRET_FIELDS.map((field) => `${container}.${field}`)),
];

export const REDACT_CENSOR = '[redacted]';

/**
 * The access log's paths: REDACT_PATHS without those under `req` and `res`. On the access
 * logger (src/app.ts accessLog) `req` and `res` always pass through its own serializers, which
 * keep the id, method, query-less URL, client request id and status code and nothing else: a
 * header, body or query under them cannot reach a line there, so those paths can never match.
 * @pinojs/redact parses each of its paths again for every object it censors (`redactPaths` →
 * `parsePath`): those seven paths cost ~15 KiB and a few µs per login on the access line and
 * the per-request child logger (docs/benchmarks.md). Every other path stays.
 */
export const ACCESS_LOG_REDACT_PATHS = REDACT_PATHS.filter((path) => !path.startsWith('req.') && !path.startsWith('res.'));

export function createLogger(level: LoggerOptions['level'], destination?: pino.DestinationStream, output: { pretty?: boolean } = {}): Logger {
  const options: LoggerOptions = {
    level,
    base: { service: 'auth-gateway' },
    redact: { paths: REDACT_PATHS, censor: REDACT_CENSOR },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  if (destination) return pino(options, destination);
  // People reading a terminal get one readable line per event (pino-pretty, a development
  // dependency: never loaded in production); everything else gets JSON lines.
  if (output.pretty) return pino({ ...options, transport: { target: 'pino-pretty', options: { translateTime: 'SYS:HH:MM:ss', ignore: 'pid,hostname,service' } } });
  return pino(options);
}

/** What production's log lines are gathered into before a write (see batchedDestination). */
export const LOG_BATCH_BYTES = 4096;
/** How long a gathered line may wait for its write at most. */
export const LOG_FLUSH_INTERVAL_MS = 1000;

/**
 * Production's stdout (or the benchmark's /dev/null): lines are gathered and written once
 * LOG_BATCH_BYTES have accumulated, and at least every LOG_FLUSH_INTERVAL_MS, instead of a
 * write system call per line. With one access line per request that write cost ~35 µs of
 * CPU per request (docs/benchmarks.md). pino flushes what is gathered when the process exits,
 * an uncaught exception included; a process killed with SIGKILL can lose its last second of lines.
 * Give a file descriptor (stdout's 1): a path is opened asynchronously, and what is logged before
 * it is open cannot be flushed by an exit that comes first.
 */
export function batchedDestination(dest: number | string): pino.DestinationStream {
  const stream = pino.destination({ dest, minLength: LOG_BATCH_BYTES, sync: false });
  // With a callback, flushing a stream already closed (at exit) reports instead of throwing.
  setInterval(() => stream.flush(() => {}), LOG_FLUSH_INTERVAL_MS).unref();
  return stream;
}

/** Readable lines only for a person at a terminal in development; JSON for files, pipes and production. */
export function wantsPrettyLogs(nodeEnv: string, stdoutIsTty: boolean | undefined): boolean {
  return nodeEnv === 'development' && stdoutIsTty === true;
}

/**
 * The URL of a request as it may be logged: query values are dropped because the
 * callback carries the authorization code and state, and the start and resume
 * endpoints carry user-supplied return addresses and transaction ids.
 */
export function loggableUrl(url: string): string {
  const index = url.indexOf('?');
  if (index === -1) return url;
  const names = new URLSearchParams(url.slice(index + 1)).keys();
  return `${url.slice(0, index)}?${[...new Set(names)].map((name) => `${encodeURIComponent(name)}=…`).join('&')}`;
}

export type { Logger };
