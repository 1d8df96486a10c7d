// The database's settings: DATABASE_URL (refused in the forms the driver would get wrong), and
// what the tools that only touch the database read (migrations, the operator CLI).

import type { OutboundPolicy } from '../security/outboundAddresses.ts';
import { readOutbound } from './outbound.ts';
import { ConfigError, readLogLevel, readNodeEnv, Reader, type Env, type LogLevel, type NodeEnv } from './reader.ts';

/**
 * A statement may run this long before PostgreSQL cancels it (DATABASE_STATEMENT_TIMEOUT_MS):
 * every request's query is short, so a longer one means a stuck database, and the client
 * should get its 503 while it still waits rather than a late success.
 */
export const DEFAULT_STATEMENT_TIMEOUT_MS = 5000;

/**
 * DATABASE_URL, refused at boot in the forms the driver (pg) would get wrong: pg connects to one
 * host and ignores target_session_attrs, so a multi-host URL crashed the boot (`Invalid URL`, with
 * ports) or waited forever on a host named "db1,db2" (without), and a read-write attribute would
 * have been dropped without a word. Failover goes through one address that always leads to the
 * primary (docs/operations.md, "PostgreSQL failover"). Never echoed: it may carry a password.
 */
export function readDatabaseUrl(reader: Reader): string | null {
  const raw = reader.raw('DATABASE_URL');
  if (raw === undefined) return null;
  const oneAddress = 'point it at one address that always leads to the primary, such as HAProxy routed by Patroni\'s REST API (docs/operations.md, "PostgreSQL failover")';
  let url: URL | null = null;
  try {
    url = new URL(raw);
  } catch {
    url = null;
  }
  const hostParams = url ? ['host', 'hostaddr', 'port'].flatMap((name) => url.searchParams.getAll(name)) : [];
  // The host part of the authority: after its last `@` (a password may hold a comma).
  const authority = /^postgres(?:ql)?:\/\/([^/?#]*)/i.exec(raw)?.[1] ?? '';
  if (authority.slice(authority.lastIndexOf('@') + 1).includes(',') || hostParams.some((value) => value.includes(','))) {
    reader.problems.push(`DATABASE_URL is refused: it names several hosts, and the driver (pg) connects to one host only; ${oneAddress}`);
    return null;
  }
  if (!url || (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:')) {
    reader.problems.push('DATABASE_URL is refused: must be postgres://user:password@host[:port]/database (one host; the port defaults to 5432)');
    return null;
  }
  const attrs = url.searchParams.get('target_session_attrs');
  if (attrs !== null && attrs !== 'any') {
    reader.problems.push(`DATABASE_URL is refused: target_session_attrs is not supported by the driver (pg would ignore it and connect to a standby as readily as to the primary); remove it and ${oneAddress}`);
    return null;
  }
  return raw;
}

/** What the tools that only touch the database need (migrations, the operator CLI). */
export interface DatabaseToolConfig {
  readonly nodeEnv: NodeEnv;
  readonly isProduction: boolean;
  readonly databaseUrl: string | null;
  readonly logLevel: LogLevel;
  /** The service's outbound rule, so `platforms create/update` accept the backchannelLogoutUrl the API would. */
  readonly outbound: OutboundPolicy;
}

/**
 * The database settings alone: `node scripts/migrate.ts` and the operator CLI need only
 * DATABASE_URL (and NODE_ENV, LOG_LEVEL), never the service's keys or public URLs.
 */
export function loadDatabaseToolConfig(env: Env = process.env): DatabaseToolConfig {
  const reader = new Reader(env);
  const nodeEnv = readNodeEnv(reader);
  const config: DatabaseToolConfig = {
    nodeEnv,
    isProduction: nodeEnv === 'production',
    databaseUrl: readDatabaseUrl(reader),
    logLevel: readLogLevel(reader, nodeEnv),
    outbound: readOutbound(reader, nodeEnv === 'production'),
  };
  if (config.isProduction && reader.raw('DATABASE_URL') === undefined) reader.problems.push('DATABASE_URL is required when NODE_ENV=production');
  if (reader.problems.length > 0) throw new ConfigError(reader.problems);
  return Object.freeze(config);
}

