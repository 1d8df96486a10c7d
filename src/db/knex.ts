import knexFactory, { type Knex } from 'knex';
import pg from 'pg';
import { isFitConnection, watchForUnfitServer } from './unfitConnections.ts';
import { MIGRATIONS } from './migrationList.ts';
import { DEFAULT_STATEMENT_TIMEOUT_MS } from '../config/database.ts';

// Return int8/count(*) as numbers and dates as Date; timestamptz stays a Date.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

const migrationSource: Knex.MigrationSource<string> = {
  getMigrations: async () => Object.keys(MIGRATIONS).sort(),
  getMigrationName: (name) => name,
  getMigration: async (name) => {
    const migration = MIGRATIONS[name];
    if (!migration) throw new Error(`unknown migration ${name}`);
    return migration;
  },
};

export type Db = Knex;

export interface DbLogger {
  warn(message: string): void;
  error(message: string): void;
}

/** Knex prints to the console by default; route its messages to our logger (or drop them in tests). */
const quiet: DbLogger = { warn: () => {}, error: () => {} };

/** What createDb was given, for graphile-worker, which opens its own pool on the same database. */
const created = new WeakMap<Db, { connectionString: string; logger: DbLogger }>();


export interface DbOptions {
  poolMax?: number;
  logger?: DbLogger;
  /** 0: no limit (migrations, which may rewrite large tables). Default DEFAULT_STATEMENT_TIMEOUT_MS. */
  statementTimeoutMs?: number;
  /**
   * DATABASE_PREPARED_STATEMENTS (default true): the hot statements the repositories name
   * (`runPrepared`) are parsed and planned once per connection. False drops the names
   * on this pool's connections, for a pooler that cannot keep prepared statements.
   */
  preparedStatements?: boolean;
}

/** A statement compiled for pg: its $1…$n text, and which binding each position takes. */
interface CompiledStatement {
  sql: string;
  text: string;
  keys: (string | number)[];
}

const compiledStatements = new Map<string, CompiledStatement>();
/** knex's compiler without a connection: it only turns bindings into $n once per statement. */
let compiler: Knex | undefined;
const BINDING_MARK = '\u0000binding:';
/** Numbers runPrepared's query events (knex's own `__knexQueryUid` pairs a response with its query). */
let queryCount = 0;

/**
 * A hot-path statement, named for pg (one Parse per connection, then Bind/Execute only; after
 * five executions PostgreSQL may keep a generic plan instead of planning every call), and sent
 * straight through pg on a connection of this knex pool. Its bindings are knex's (`:name` or
 * `?`), compiled to $1…$n by knex's own compiler the first time the name is used; afterwards a
 * call only puts the values in order. A knex raw query spends ~35 µs of JavaScript per
 * statement (binding substitution, positioning, its runner) before pg sends anything,
 * docs/benchmarks.md; the login flow sends seven of them per login.
 *
 * What a knex query gives is kept: the same pool (its size, acquire timeout and the broken
 * connections it drops), the session settings (statement_timeout, query_timeout), the
 * prepared-statement switch (createDb drops the names when it is off), knex's `query` /
 * `query-response` / `query-error` events (traces). An undefined binding is refused, as knex
 * refuses it. The name must be unique to its text.
 */
export async function runPrepared<Row>(db: Db, name: string, sql: string, bindings: Record<string, unknown> | readonly unknown[]): Promise<{ rows: Row[] }> {
  const statement = compiledStatements.get(name) ?? compileStatement(name, sql, bindings);
  if (statement.sql !== sql) throw new Error(`prepared statement ${name} is used for two different texts`);
  const values = statement.keys.map((key) => {
    const value = (bindings as Record<string | number, unknown>)[key];
    if (value === undefined) throw new Error(`Undefined binding ${String(key)} in prepared statement ${name}`);
    return value;
  });
  const traced = db.listenerCount('query') > 0 ? { sql: statement.text, method: 'raw', __knexQueryUid: `${name}:${++queryCount}` } : null;
  const connection = (await db.client.acquireConnection()) as pg.Client;
  try {
    // The deadline is taken now, with the connection in hand: pg's query_timeout starts with the
    // query() call below, so the two are measured from the same instant (STATEMENT_DEADLINE).
    let deadline: Date | string | null = null;
    if (values.includes(STATEMENT_DEADLINE)) {
      deadline = statementDeadline(db);
      for (let index = 0; index < values.length; index++) if (values[index] === STATEMENT_DEADLINE) values[index] = deadline;
    }
    const query = { name, text: statement.text, values };
    if (traced) db.emit('query', traced);
    const result = await connection.query<Row & pg.QueryResultRow>(query);
    if (traced) db.emit('query-response', result, traced);
    if (deadline instanceof Date) warnIfDatabaseClockAhead(db, name, deadline, result.rows[0]);
    return result;
  } catch (error) {
    if (traced) db.emit('query-error', error, traced);
    throw error;
  } finally {
    await db.client.releaseConnection(connection);
  }
}

/**
 * A single-use statement's deadline (GUIDE §5: a 503 leaves nothing spent). The client gives up
 * on a statement query_timeout (statement timeout + 1 s) after sending it and answers 503; but
 * the statement is already in PostgreSQL's socket, and a server that was frozen (SIGSTOP, a
 * stalled disk, a paused VM) runs it when it resumes, from the start: statement_timeout counts
 * from then, so it cannot help, and the 503's retry would find the code or state spent. So the
 * statement carries the instant after which it must change nothing, and checks it itself when
 * it runs: `in_time` (STATEMENT_IN_TIME_CTE), read once, in the WHERE of its write and in its
 * answer (`late`), with no extra round trip. A late statement changes nothing and says so, and
 * the repository throws StatementDeadlinePassed (a 503: nothing happened, try again).
 *
 * The deadline is the statement timeout after the send, one second before the client gives up.
 * That second covers what follows the check (the statement's own execution, its commit, the
 * answer on the way) and the difference between the gateway's clock and the database's (both
 * must keep NTP time: a database clock more than a second behind the gateway's would let a late
 * statement through). A freeze that catches a statement between its check and its commit (well
 * under a millisecond, plus the commit's flush on a stalled disk) still commits it: no statement
 * can take back a commit the server will make once it resumes.
 *
 * A binding whose value is STATEMENT_DEADLINE gets this instant from runPrepared, taken when the
 * connection is in hand (time spent waiting for the pool does not shorten it).
 */
export const STATEMENT_DEADLINE: unique symbol = Symbol('statement deadline');

/** The first CTE of a single-use statement: `in_time.ok` is whether it runs before `:deadline` (bound to STATEMENT_DEADLINE). MATERIALIZED: clock_timestamp() is read once, so the write and `late` agree. */
export const STATEMENT_IN_TIME_CTE = 'in_time AS MATERIALIZED (SELECT clock_timestamp() < CAST(:deadline AS timestamptz) AS ok)';

/** A single-use statement ran after its deadline and changed nothing: the request's 503 (SQLSTATE 57014, query_canceled, as a statement_timeout). */
export class StatementDeadlinePassed extends Error {
  readonly code = '57014';

  constructor(statement: string) {
    super(`statement ${statement} ran after its deadline and changed nothing`);
    this.name = 'StatementDeadlinePassed';
  }
}

/**
 * A statement that says it ran after its deadline while, by the gateway's clock, the deadline is
 * still ahead: the database's clock is ahead of the gateway's by more than the margin, and every
 * single-use statement would refuse (each login a 503). Said in the log, once a minute at most,
 * so that an operator looks at NTP rather than at the database's load.
 */
function warnIfDatabaseClockAhead(db: Db, statement: string, deadline: Date, row: { late?: unknown } | undefined): void {
  if (row?.late !== true || Date.now() >= deadline.getTime()) return;
  const now = Date.now();
  if (now - lastClockWarning < 60_000) return;
  lastClockWarning = now;
  created.get(db)?.logger.error(
    `statement ${statement} ran after its deadline by the database's clock, before it by the gateway's: the database's clock is ahead of this host's (keep both on NTP); single-use statements answer 503 until the clocks agree within a second`,
  );
}
let lastClockWarning = 0;

/** Throws StatementDeadlinePassed when a single-use statement answered `late` (see STATEMENT_DEADLINE). */
export function refuseIfLate(statement: string, row: { late?: boolean | null } | undefined): void {
  if (row?.late) throw new StatementDeadlinePassed(statement);
}

/**
 * The statement timeout of the session settings (timeoutSettings; a transaction's client shares
 * them), from now; none: no deadline. A statement sent through knex (not runPrepared) binds this
 * as its `:deadline`, taken before the pool is waited for: a deadline earlier, never later.
 */
export function statementDeadline(db: Db): Date | string {
  const timeoutMs = (db.client.connectionSettings as { statement_timeout?: number } | undefined)?.statement_timeout;
  return timeoutMs ? new Date(Date.now() + timeoutMs) : 'infinity';
}

/** A statement runPrepared has compiled: its text for pg, and the binding name (or index) of $1, $2, … (the benchmark's bare server sends the same). */
export function compiledStatement(name: string): { text: string; keys: readonly (string | number)[] } | undefined {
  return compiledStatements.get(name);
}

function compileStatement(name: string, sql: string, bindings: Record<string, unknown> | readonly unknown[]): CompiledStatement {
  compiler ??= knexFactory({ client: 'pg' });
  const marked = Array.isArray(bindings)
    ? bindings.map((_value, index) => `${BINDING_MARK}${index}`)
    : Object.fromEntries(Object.keys(bindings).map((key) => [key, `${BINDING_MARK}${key}`]));
  const native = compiler.raw(sql, marked as never).toSQL().toNative();
  const keys = (native.bindings as unknown[]).map((binding) => {
    if (typeof binding !== 'string' || !binding.startsWith(BINDING_MARK)) throw new Error(`prepared statement ${name}: unexpected binding`);
    const key = binding.slice(BINDING_MARK.length);
    return Array.isArray(bindings) ? Number(key) : key;
  });
  const statement = { sql, text: native.sql, keys };
  compiledStatements.set(name, statement);
  return statement;
}

/**
 * pg prepares every query that carries a `name`; without prepared statements the name is
 * removed before pg sees it (the statement runs as an unnamed one, as every other does).
 */
function withoutStatementNames(connection: pg.Client): void {
  const query = connection.query.bind(connection) as (...args: unknown[]) => unknown;
  (connection as unknown as { query: (...args: unknown[]) => unknown }).query = (config: unknown, ...rest: unknown[]) => {
    if (config && typeof config === 'object' && 'name' in config) {
      const { name: _name, ...unnamed } = config as Record<string, unknown>;
      return query(unnamed, ...rest);
    }
    return query(config, ...rest);
  };
}

/**
 * The session settings that bound how long a request can wait on PostgreSQL. The server
 * enforces statement_timeout and lock_timeout; a server that no longer answers at all (frozen,
 * or a network partition with the socket open) cannot cancel anything, so the client gives up
 * on its own a second later (query_timeout). Connecting and acquiring from the pool are bounded too.
 */
function timeoutSettings(statementTimeoutMs: number) {
  if (statementTimeoutMs === 0) return { connectionTimeoutMillis: 5000 };
  return {
    statement_timeout: statementTimeoutMs,
    lock_timeout: statementTimeoutMs,
    idle_in_transaction_session_timeout: statementTimeoutMs * 6,
    query_timeout: statementTimeoutMs + 1000,
    connectionTimeoutMillis: 5000,
  };
}

/** A pooled connection idle this long is checked (SELECT 1) before a request gets it (retireDeadConnections). */
export const CHECK_IDLE_CONNECTION_AFTER_MS = 1000;
/**
 * How long that check may take: a connection that does not answer it is retired. Short, because
 * the pool checks its idle connections one after the other for the same request (N dead ones
 * cost N times this before the request gets a new one: seen as a 503 at 1 s on a loaded machine),
 * and retiring a live but slow connection only costs a reconnect.
 */
const IDLE_CHECK_TIMEOUT_MS = 300;

/**
 * Retire broken connections before a request gets them. A connection whose server side went away
 * without the client noticing (a proxy that lost its backend and keeps its clients' connections,
 * a firewall that dropped the state, a server host that died) failed the first request that used
 * it once the database was back: one 503 per pooled connection (12, 8 and 54 measured), or every
 * request that got it, when it never answers and stays in the pool after query_timeout. So the
 * pool checks a connection that has been idle CHECK_IDLE_CONNECTION_AFTER_MS or more with a
 * `SELECT 1` before handing it out, and retires it when the check fails: the request gets
 * another connection, or a new one. No statement of the request is ever sent twice. The pool
 * hands out the most recently released connection first, so under load connections are reused
 * within milliseconds and no check is made; at a trickle of requests, one round trip more.
 * (knex already retires a connection whose socket closed or failed: pg's `end`/`error` events.)
 */
function retireDeadConnections(db: Knex): (connection: pg.Client) => Promise<boolean> {
  const releasedAt = new WeakMap<object, number>();
  (db.client as { pool?: { on(event: 'release', listener: (resource: object) => void): void } }).pool?.on('release', (resource) => releasedAt.set(resource, Date.now()));
  return async (connection) => {
    // Still busy with a statement the client gave up on (query_timeout): pg keeps the connection
    // waiting for that answer and queues everything behind it, so a server that will never answer
    // (gone, not frozen) would fail every request that got this connection. Retired at once; a
    // frozen server's late answer is not needed (the statement's deadline made it inert).
    // `_activeQuery`: pg 8's own field (its public getter is deprecated), package.json pins pg 8.
    if ((connection as unknown as { _activeQuery?: unknown })._activeQuery) return false;
    const released = releasedAt.get(connection);
    if (released === undefined || Date.now() - released < CHECK_IDLE_CONNECTION_AFTER_MS) return true;
    try {
      await connection.query({ text: 'SELECT 1', query_timeout: IDLE_CHECK_TIMEOUT_MS } as pg.QueryConfig);
      return true;
    } catch {
      return false;
    }
  };
}

export function createDb(connectionString: string, options: DbOptions = {}): Db {
  const logger = options.logger ?? quiet;
  let validate: ((connection: pg.Client) => Promise<boolean>) | undefined;
  const db = knexFactory({
    log: {
      warn: (message: unknown) => logger.warn(String(message)),
      error: (message: unknown) => logger.error(String(message)),
      deprecate: () => {},
      debug: () => {},
    },
    client: 'pg',
    connection: { connectionString, application_name: 'auth-gateway', ...timeoutSettings(options.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS) },
    pool: {
      min: 0,
      max: options.poolMax ?? 10,
      afterCreate: (connection: pg.Client, done: (error: Error | null, connection: pg.Client) => void) => {
        if (options.preparedStatements === false) withoutStatementNames(connection);
        // A connection on a demoted primary or a standby (25006) is dropped, not reused (unfitConnections.ts).
        watchForUnfitServer(connection);
        done(null, connection);
      },
      // Dropped before a request gets it: one whose server was unfit (unfitConnections.ts), or,
      // after a pause, one that no longer answers (retireDeadConnections).
      validate: (connection: pg.Client) => isFitConnection(connection) && (validate?.(connection) ?? true),
    },
    acquireConnectionTimeout: 5000,
    migrations: { migrationSource, tableName: 'knex_migrations' },
  });
  validate = retireDeadConnections(db);
  created.set(db, { connectionString, logger });
  return db;
}

/** The connection string a Db was created with (graphile-worker connects with it). */
export function connectionStringOf(db: Db): string {
  const known = created.get(db);
  if (!known) throw new Error('connectionStringOf: this Db was not made by createDb');
  return known.connectionString;
}

/** graphile-worker's schema (its job queue: the back-channel logout outbox). */
export const WORKER_SCHEMA = 'graphile_worker';

/**
 * Our migrations, then graphile-worker's own (idempotent, safe on several instances at once:
 * it serialises them itself), so a migrated database always has `graphile_worker.add_job`,
 * which ending a session calls. Returns the names of our migrations applied.
 */
export async function migrateLatest(db: Db): Promise<string[]> {
  const [, applied] = (await db.migrate.latest()) as [number, string[]];
  await migrateWorkerSchema(db);
  return applied;
}

async function migrateWorkerSchema(db: Db): Promise<void> {
  const connectionString = connectionStringOf(db);
  const logger = created.get(db)?.logger ?? quiet;
  // Loaded here: the operator CLI and the scripts that never migrate do not pay for it.
  const { Logger, runMigrations } = await import('graphile-worker');
  // Our pool, not one graphile-worker makes from the connection string: it ends a pool of its own
  // without waiting, after taking its error handler off, so a connection the server terminated in
  // that moment (a restart during boot; a test database dropped right after migrating: seen in CI)
  // raised an uncaught exception. This one keeps its handlers until it has ended.
  const pool = new pg.Pool({ connectionString, max: 1, application_name: 'auth-gateway-migrations' });
  pool.on('error', (error) => logger.warn(`graphile-worker migrations: an idle connection failed: ${error.message}`));
  pool.on('connect', (client) => client.on('error', () => {})); // a checked-out client's error reaches its query
  try {
    await runMigrations({
      pgPool: pool,
      schema: WORKER_SCHEMA,
      logger: new Logger(() => (level, message) => {
        if (level === 'error') logger.error(`graphile-worker: ${message}`);
        else if (level === 'warning') logger.warn(`graphile-worker: ${message}`);
      }),
    });
  } finally {
    await pool.end();
  }
}

export async function migrateDown(db: Db): Promise<string[]> {
  const [, reverted] = (await db.migrate.down()) as [number, string[]];
  return reverted;
}

/** Every migration of ours reverted, and graphile-worker's schema (with any queued job) dropped. */
export async function migrateRollbackAll(db: Db): Promise<string[]> {
  const [, reverted] = (await db.migrate.rollback(undefined, true)) as [number, string[]];
  await db.raw(`DROP SCHEMA IF EXISTS ${WORKER_SCHEMA} CASCADE`);
  return reverted;
}
