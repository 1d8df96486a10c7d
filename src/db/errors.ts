/**
 * Whether an error means PostgreSQL cannot serve us right now (a 503 the client may
 * retry), as opposed to a statement that is wrong (a bug: 500).
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  // knex gave up waiting for a pooled connection (none free, or none could be opened).
  if (error.name === 'KnexTimeoutError') return true;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (NETWORK_ERRORS.has(code)) return true;
    // SQLSTATE class 08: connection exception; 57P01–57P03: the server is shutting
    // down or starting up; 53300: too many connections (PostgreSQL appendix A).
    if (code.startsWith('08') || code === '57P01' || code === '57P02' || code === '57P03' || code === '53300') return true;
    // 55000 is generic; with this message it is a database closed to new connections.
    if (code === '55000' && /not currently accepting connections/.test(error.message)) return true;
  }
  // SQLSTATE 25006 read_only_sql_transaction: a write reached a standby or a demoted primary
  // (HAProxy not switched yet after a failover); the connection is dropped (unfitConnections.ts).
  if (code === '25006') return true;
  // SQLSTATE 57014: our statement_timeout cancelled the statement; 55P03: lock_timeout.
  if (code === '57014' || code === '55P03') return true;
  // node-postgres reports a socket closed under it, and a server that stopped answering
  // (query_timeout, connectionTimeoutMillis), without a code. knex prefixes the statement to
  // the message (`ROLLBACK - Connection terminated unexpectedly`), so match pg's message at the end.
  // `timeout expired`: pg's connectionTimeoutMillis on a server that accepts the connection and
  // never answers its handshake (frozen); knex hands it to the request waiting for the pool.
  return /(?:^|- )(?:Connection terminated(?: unexpectedly| due to connection timeout)?|Query read timeout|timeout exceeded when trying to connect|timeout expired)$/.test(error.message);
}

const NETWORK_ERRORS = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE']);

/**
 * Whether a statement's connection died after the statement was sent, so that it may have
 * committed without our hearing of it: the server crashed or was terminated mid-statement (a
 * primary killed under a failover: its commit may already be on the synchronous standby that
 * takes over). Not a refusal before anything ran (a connection refused, a pool timeout, a
 * read-only server, a statement cancelled by its timeout, which rolls back).
 */
export function isOutcomeUnknown(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && ['ECONNRESET', 'EPIPE', '57P01', '57P02', '08003', '08006', '08007'].includes(code)) return true;
  return /(?:^|- )Connection terminated unexpectedly$/.test(error.message);
}
