// The SQL of the gateway's repository functions, captured once so the bare
// baseline sends byte-for-byte the same statements through plain `pg`.
//
// Each repository function is called once with a recording stand-in for knex
// and with placeholder values; knex's own compiler (no connection) turns the
// named or positional bindings into PostgreSQL's $1, $2, … and we remember which
// input each position takes. At request time the bare server only runs
// `pool.query({ text, values })`: no knex, no compilation per request. If a
// repository function names its statement for pg (`.options({ name })`, a
// prepared statement), the bare server uses the same name.

import knexFactory from 'knex';
import type { Db } from '../../src/db/knex.ts';
import { findActivePlatformByKey } from '../../src/db/repositories/platforms.ts';
import { insertTransaction, type NewTransaction } from '../../src/db/repositories/transactions.ts';
import { redeemHandoff } from '../../src/db/repositories/handoffs.ts';

export interface Statement<K extends string> {
  /** Exactly the text knex sends for the repository function. */
  text: string;
  /** The prepared-statement name, when the repository passes one to pg (`.options({ name })`). */
  name?: string;
  /** The input key of each positional parameter $1, $2, … */
  keys: K[];
}

const MARK = '\u0000bench-binding:';

async function capture<K extends string>(keys: readonly K[], call: (db: Db, input: Record<K, never>) => Promise<unknown>): Promise<Statement<K>> {
  let recorded: { sql: string; bindings: unknown } | undefined;
  let driverOptions: { name?: unknown } = {};
  // raw() answers a stand-in for knex's Raw: awaitable, and every chained call
  // (`.options(…)`, `.timeout(…)`) returns it again.
  const result = Promise.resolve({ rows: [{}] });
  const chain: object = new Proxy(
    {},
    {
      get: (_target, name) => {
        if (name === 'then') return result.then.bind(result);
        if (name === 'catch') return result.catch.bind(result);
        if (name === 'options') {
          return (options: object) => {
            driverOptions = { ...driverOptions, ...options };
            return chain;
          };
        }
        return () => chain;
      },
    },
  );
  const recorder = {
    raw: (sql: string, bindings: unknown) => {
      recorded = { sql, bindings };
      return chain;
    },
  } as unknown as Db;
  const placeholders = Object.fromEntries(keys.map((key) => [key, `${MARK}${key}`])) as unknown as Record<K, never>;
  await call(recorder, placeholders);
  if (!recorded) throw new Error('the repository function ran no statement');
  const compiler = knexFactory({ client: 'pg' });
  try {
    const native = compiler.raw(recorded.sql, recorded.bindings as never).toSQL().toNative();
    const positions = (native.bindings as unknown[]).map((value) => {
      if (typeof value !== 'string' || !value.startsWith(MARK)) throw new Error(`unexpected binding ${String(value)}`);
      return value.slice(MARK.length) as K;
    });
    return { text: native.sql, keys: positions, ...(typeof driverOptions.name === 'string' ? { name: driverOptions.name } : {}) };
  } finally {
    await compiler.destroy();
  }
}

/** Values in parameter order for a captured statement. */
export function valuesFor<K extends string>(statement: Statement<K>, input: Record<K, unknown>): unknown[] {
  return statement.keys.map((key) => input[key]);
}

/** The pg query config for a captured statement: the same text, and the same prepared-statement name if the gateway uses one. */
export function queryFor<K extends string>(statement: Statement<K>, input: Record<K, unknown>): { text: string; values: unknown[]; name?: string } {
  return { text: statement.text, values: valuesFor(statement, input), ...(statement.name ? { name: statement.name } : {}) };
}

export type PlatformKeys = 'platformKey';
export type TransactionKeys = keyof NewTransaction;
export type RedeemKeys = 'clientId' | 'secretDigest' | 'codeDigest' | 'handoffChallenge' | 'credentialDigest';

export interface GatewayStatements {
  /** GET /v1/auth/start, step 1: findActivePlatformByKey. */
  activePlatform: Statement<PlatformKeys>;
  /** GET /v1/auth/start, step 6: insertTransaction. */
  insertTransaction: Statement<TransactionKeys>;
  /** POST /v1/auth/exchange: redeemHandoff (credentials, code, session and token in one round trip). */
  redeemHandoff: Statement<RedeemKeys>;
}

export async function captureGatewayStatements(): Promise<GatewayStatements> {
  const transactionKeys: TransactionKeys[] = [
    'id', 'platformId', 'stateDigest', 'nonceDigest', 'pkceVerifierSealed', 'nonceSealed',
    'onboardingMode', 'platformCallbackUrl', 'returnTo', 'browserBindingDigest', 'handoffChallenge', 'ttlSeconds',
  ];
  return {
    activePlatform: await capture(['platformKey'], (db, input) => findActivePlatformByKey(db, input.platformKey)),
    insertTransaction: await capture(transactionKeys, (db, input) => insertTransaction(db, input)),
    redeemHandoff: await capture(['clientId', 'secretDigest', 'codeDigest', 'handoffChallenge', 'credentialDigest'], (db, input) => redeemHandoff(db, input)),
  };
}
