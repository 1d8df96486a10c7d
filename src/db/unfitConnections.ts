import type pg from 'pg';

/**
 * Pooled connections that reached a server unfit to serve the gateway, dropped at their next
 * acquire (knex's `pool.validate`) instead of reused. Behind HAProxy and Patroni a connection
 * opened while HAProxy still pointed at a demoted primary (or a standby) stays on that server
 * after HAProxy has switched: every write on it answers 25006 read_only_sql_transaction, for as
 * long as the pool keeps it. A server that is shutting down (57P01–57P03) or a broken connection
 * (class 08) closes anyway; dropping it here does not wait for pg to notice the socket is gone.
 */
const unfit = new WeakSet<pg.Client>();

const UNFIT_SERVER = new Set(['25006', '57P01', '57P02', '57P03']);

function markWhenUnfit(connection: pg.Client, error: unknown): void {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && (UNFIT_SERVER.has(code) || code.startsWith('08'))) unfit.add(connection);
}

/** For the pool's afterCreate: every query on this connection, knex's (callback) and runPrepared's (promise), is watched. */
export function watchForUnfitServer(connection: pg.Client): void {
  const query = connection.query.bind(connection) as (...args: unknown[]) => unknown;
  (connection as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
    const callback = args[args.length - 1];
    if (typeof callback === 'function') {
      args[args.length - 1] = (error: unknown, ...rest: unknown[]) => {
        if (error) markWhenUnfit(connection, error);
        return (callback as (...a: unknown[]) => unknown)(error, ...rest);
      };
      return query(...args);
    }
    const result = query(...args);
    if (result instanceof Promise) {
      return result.catch((error: unknown) => {
        markWhenUnfit(connection, error);
        throw error;
      });
    }
    return result;
  };
}

/** For the pool's validate: false drops the connection (knex then opens a new one). */
export function isFitConnection(connection: pg.Client): boolean {
  return !unfit.has(connection);
}
