import { pino, type Logger, type LoggerOptions } from 'pino';

const SECRET_FIELDS = [
  'password', 'clientSecret', 'client_secret', 'gatewayToken', 'accessToken', 'idToken',
  'access_token', 'id_token', 'refresh_token', 'nonce', 'code_verifier', 'state',
];

/**
 * Paths pino must never print. Request logs carry headers and query strings;
 * the login flow carries state, codes and tokens in both. Secret fields are
 * censored at the top level and one level down (pino's `*` is one level).
 * `code` is censored only inside bodies and queries: elsewhere it is an error code
 * (ENOENT, 23505) an operator needs.
 */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["proxy-authorization"]',
  'res.headers["set-cookie"]',
  'res.headers.location',
  'body.code',
  'query.code',
  'req.body.code',
  'req.query.code',
  ...SECRET_FIELDS,
  ...SECRET_FIELDS.map((field) => `*.${field}`),
];

export function createLogger(level: LoggerOptions['level'], destination?: pino.DestinationStream): Logger {
  const options: LoggerOptions = {
    level,
    base: { service: 'auth-gateway' },
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  return destination ? pino(options, destination) : pino(options);
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
