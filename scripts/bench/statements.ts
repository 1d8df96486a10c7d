// The SQL of the gateway's repository functions, captured once so the bare
// baseline sends byte-for-byte the same statements through plain `pg`.
//
// Each repository function is called once with a recording stand-in for the
// database and with placeholder values. The hot statements go through
// runPrepared (src/db/knex.ts), which compiles the named or positional bindings
// into PostgreSQL's $1, $2, … with knex's own compiler and hands pg
// { name, text, values }: we record that and remember which input each position
// takes. At request time the bare server runs `pool.query({ name, text, values })`
// with the same text and the same prepared-statement name.

import type { Db } from '../../src/db/knex.ts';
import { findActivePlatformByKey } from '../../src/db/repositories/platforms.ts';
import { insertTransaction, type NewTransaction } from '../../src/db/repositories/transactions.ts';
import { redeemHandoff } from '../../src/db/repositories/handoffs.ts';
import { consumeTransactionByState } from '../../src/db/repositories/transactions.ts';
import { upsertLoginUser, type IdpClaims } from '../../src/db/repositories/users.ts';
import { activeFieldsWithValues } from '../../src/db/repositories/onboarding.ts';
import { insertLoginSession, type NewLoginSession } from '../../src/db/repositories/sessions.ts';

export interface Statement<K extends string> {
  /** Exactly the text knex sends for the repository function. */
  text: string;
  /** The prepared-statement name, when the repository passes one to pg (`.options({ name })`). */
  name?: string;
  /** The input key of each positional parameter $1, $2, … */
  keys: K[];
  /** Inputs the repository function sends as JSON text. */
  jsonKeys?: K[];
}

const MARK = '\u0000bench-binding:';

async function capture<K extends string>(keys: readonly K[], call: (db: Db, input: Record<K, never>) => Promise<unknown>): Promise<Statement<K>> {
  let recorded: { name?: string; text: string; values: unknown[] } | undefined;
  // The repositories' hot statements go through runPrepared (src/db/knex.ts), which compiles
  // the bindings with knex's own compiler and sends { name, text, values } on a pool
  // connection: this stand-in pool hands out a connection that records what it is sent and
  // answers one empty row (`platform: {}` for the statements that return a platform as JSON).
  const connection = {
    query: async (config: { name?: string; text: string; values: unknown[] }) => {
      recorded = config;
      return { rows: [{ platform: {} }] };
    },
  };
  const recorder = {
    listenerCount: () => 0,
    client: { acquireConnection: async () => connection, releaseConnection: async () => {} },
  } as unknown as Db;
  const placeholders = Object.fromEntries(keys.map((key) => [key, `${MARK}${key}`])) as unknown as Record<K, never>;
  await call(recorder, placeholders);
  if (!recorded) throw new Error('the repository function ran no statement');
  const jsonKeys: K[] = [];
  const positions = recorded.values.map((value) => {
    // A value the repository serialises (JSON.stringify(input.onboarding)) arrives as a JSON string.
    if (typeof value === 'string' && value.startsWith('"')) {
      const parsed = JSON.parse(value) as unknown;
      if (typeof parsed === 'string' && parsed.startsWith(MARK)) {
        jsonKeys.push(parsed.slice(MARK.length) as K);
        return parsed.slice(MARK.length) as K;
      }
    }
    if (typeof value !== 'string' || !value.startsWith(MARK)) throw new Error(`unexpected binding ${String(value)}`);
    return value.slice(MARK.length) as K;
  });
  return {
    text: recorded.text,
    keys: positions,
    ...(jsonKeys.length ? { jsonKeys } : {}),
    ...(recorded.name ? { name: recorded.name } : {}),
  };
}

/** Values in parameter order for a captured statement. */
export function valuesFor<K extends string>(statement: Statement<K>, input: Record<K, unknown>): unknown[] {
  return statement.keys.map((key) => (statement.jsonKeys?.includes(key) ? JSON.stringify(input[key]) : input[key]));
}

/** The pg query config for a captured statement: the same text, and the same prepared-statement name if the gateway uses one. */
export function queryFor<K extends string>(statement: Statement<K>, input: Record<K, unknown>): { text: string; values: unknown[]; name?: string } {
  return { text: statement.text, values: valuesFor(statement, input), ...(statement.name ? { name: statement.name } : {}) };
}

export type PlatformKeys = 'platformKey';
export type TransactionKeys = keyof NewTransaction;
export type RedeemKeys = 'clientId' | 'secretDigest' | 'codeDigest' | 'handoffChallenge' | 'credentialDigest';
export type LoginUserKeys = keyof IdpClaims | 'platformId';
export type LoginSessionKeys = keyof NewLoginSession;

export interface GatewayStatements {
  /** GET /v1/auth/start, step 1: findActivePlatformByKey. */
  activePlatform: Statement<PlatformKeys>;
  /** GET /v1/auth/start, step 6: insertTransaction. */
  insertTransaction: Statement<TransactionKeys>;
  /** POST /v1/auth/exchange: redeemHandoff (credentials, code, session and token in one round trip). */
  redeemHandoff: Statement<RedeemKeys>;
  /** GET /v1/auth/callback, in order: consume the transaction (and read its platform), … */
  consumeTransaction: Statement<'stateDigest'>;
  /** … the user and the membership (committed asynchronously), … */
  upsertLoginUser: Statement<LoginUserKeys>;
  /** … the onboarding fields and values, … */
  activeFields: Statement<'platformId' | 'userId'>;
  /** … the session, attached to the transaction, with the handoff code. */
  insertLoginSession: Statement<LoginSessionKeys>;
}

/**
 * Positional functions (consumeTransactionByState(db, digest)) are captured with one
 * placeholder per argument; the keys name them.
 */

export async function captureGatewayStatements(): Promise<GatewayStatements> {
  const transactionKeys: TransactionKeys[] = [
    'id', 'platformId', 'stateDigest', 'nonceDigest', 'pkceVerifierSealed', 'nonceSealed',
    'onboardingMode', 'platformCallbackUrl', 'returnTo', 'browserBindingDigest', 'handoffChallenge', 'ttlSeconds',
  ];
  return {
    activePlatform: await capture(['platformKey'], (db, input) => findActivePlatformByKey(db, input.platformKey)),
    insertTransaction: await capture(transactionKeys, (db, input) => insertTransaction(db, input)),
    redeemHandoff: await capture(['clientId', 'secretDigest', 'codeDigest', 'handoffChallenge', 'credentialDigest'], (db, input) => redeemHandoff(db, input)),
    consumeTransaction: await capture(['stateDigest'], (db, input) => consumeTransactionByState(db, input.stateDigest)),
    upsertLoginUser: await capture(
      ['sub', 'email', 'emailVerified', 'displayName', 'givenName', 'familyName', 'platformId'],
      (db, { platformId, ...claims }) => upsertLoginUser(db, claims, platformId),
    ),
    activeFields: await capture(['platformId', 'userId'], (db, input) => activeFieldsWithValues(db, input.platformId, input.userId)),
    insertLoginSession: await capture(
      [
        'id', 'userId', 'tokenDigest', 'permissions', 'ttlSeconds', 'userAgent', 'ipPrefix', 'idpSid', 'idTokenSealed',
        'transactionId', 'handoffCodeDigest', 'platformId', 'onboarding', 'handoffTtlSeconds',
      ],
      (db, input) => insertLoginSession(db, input),
    ),
  };
}
