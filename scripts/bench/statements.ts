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

import { compiledStatement, type Db } from '../../src/db/knex.ts';
import { DEFAULT_STATEMENT_TIMEOUT_MS } from '../../src/config/database.ts';
import { findActivePlatformByKeyCounting } from '../../src/services/registry/platformsRepository.ts';
import { consumeTransactionByStateCounting, insertTransaction, type NewTransaction } from '../../src/services/login/transactionsRepository.ts';
import { redeemHandoff } from '../../src/services/login/handoffsRepository.ts';
import { upsertLoginUser, type IdpClaims } from '../../src/services/account/usersRepository.ts';
import { activeFieldsWithValues } from '../../src/services/onboarding/onboardingRepository.ts';
import { insertLoginSession, type NewLoginSession } from '../../src/services/sessions/repository.ts';

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

async function capture<K extends string>(keys: readonly string[], call: (db: Db, input: Record<string, never>) => Promise<unknown>): Promise<Statement<K>> {
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
  const placeholders = Object.fromEntries(keys.map((key) => [key, `${MARK}${key}`])) as unknown as Record<string, never>;
  await call(recorder, placeholders);
  const compiled = recorded?.name ? compiledStatement(recorded.name) : undefined;
  if (!recorded || !compiled) throw new Error('the repository function ran no statement through runPrepared');
  // The bindings by name, in $n order; a value the repository serialises
  // (JSON.stringify(input.onboarding)) arrives as the JSON text of its placeholder.
  const names = compiled.keys.map(String) as K[];
  const jsonKeys = names.filter((name, index) => recorded!.values[index] === JSON.stringify(`${MARK}${name}`));
  return { text: recorded.text, name: recorded.name!, keys: names, ...(jsonKeys.length ? { jsonKeys } : {}) };
}

/**
 * Values in parameter order for a captured statement. A single-use statement's `deadline`
 * (src/db/knex.ts STATEMENT_DEADLINE, which runPrepared fills in) gets the gateway's default,
 * from now: the bare server sends the same clause with a value the gateway would send.
 */
export function valuesFor<K extends string>(statement: Statement<K>, input: Record<K, unknown>): unknown[] {
  return statement.keys.map((key) => {
    if ((key as string) === 'deadline' && !(key in input)) return new Date(Date.now() + DEFAULT_STATEMENT_TIMEOUT_MS);
    return statement.jsonKeys?.includes(key) ? JSON.stringify(input[key]) : input[key];
  });
}

/** The pg query config for a captured statement: the same text, and the same prepared-statement name if the gateway uses one. */
export function queryFor<K extends string>(statement: Statement<K>, input: Record<K, unknown>): { text: string; values: unknown[]; name?: string } {
  return { text: statement.text, values: valuesFor(statement, input), ...(statement.name ? { name: statement.name } : {}) };
}

/** The bindings of a rate limit counted inside a statement (statementLimitBindings). */
export type LimitKeys = 'limitKey' | 'limitPoints' | 'limitNewExpire' | 'limitNow';
export type PlatformKeys = 'platformKey' | LimitKeys;
export type TransactionKeys = keyof NewTransaction;
export type RedeemKeys = 'clientId' | 'secretDigest' | 'codeDigest' | 'handoffChallenge' | 'credentialDigest';
export type LoginUserKeys = keyof IdpClaims | 'platformId';
export type LoginSessionKeys = keyof NewLoginSession;

export interface GatewayStatements {
  /** GET /v1/auth/start, step 1: findActivePlatformByKeyCounting (the address's start counted). */
  activePlatform: Statement<PlatformKeys>;
  /** GET /v1/auth/start, step 6: insertTransaction. */
  insertTransaction: Statement<TransactionKeys>;
  /** POST /v1/auth/exchange: redeemHandoff (credentials, code, session and token in one round trip; no rate limit). */
  redeemHandoff: Statement<RedeemKeys>;
  /** GET /v1/auth/callback, in order: consume the transaction (the address's callback counted, the platform read), … */
  consumeTransaction: Statement<'stateDigest' | LimitKeys>;
  /** … the user and the membership (committed asynchronously), … */
  upsertLoginUser: Statement<LoginUserKeys>;
  /** … the onboarding fields and values, … */
  activeFields: Statement<'platformId' | 'userId'>;
  /** … the session, attached to the transaction, with the handoff code. */
  insertLoginSession: Statement<LoginSessionKeys>;
}

/** A placeholder limit: its bindings are named by the statement, whatever their values. */
const LIMIT = { key: 'limit', points: 1, durationMs: 1 };

/** Each repository function called once with placeholders for its inputs (keys) and the same path the gateway takes. */
export async function captureGatewayStatements(): Promise<GatewayStatements> {
  const transactionKeys: TransactionKeys[] = [
    'id', 'platformId', 'stateDigest', 'nonceDigest', 'pkceVerifierSealed', 'nonceSealed',
    'onboardingMode', 'platformCallbackUrl', 'returnTo', 'browserBindingDigest', 'handoffChallenge', 'ttlSeconds',
    'maxAgeSeconds', 'forceLogin', 'secondFactor', 'stepUpSub',
  ];
  return {
    activePlatform: await capture(['platformKey'], (db, input) => findActivePlatformByKeyCounting(db, input.platformKey!, LIMIT)),
    insertTransaction: await capture(transactionKeys, (db, input) => insertTransaction(db, input as never)),
    redeemHandoff: await capture(
      ['clientId', 'secretDigest', 'codeDigest', 'handoffChallenge', 'credentialDigest'],
      (db, input) => redeemHandoff(db, input as never),
    ),
    consumeTransaction: await capture(['stateDigest'], (db, input) => consumeTransactionByStateCounting(db, input.stateDigest!, LIMIT)),
    upsertLoginUser: await capture(
      ['sub', 'email', 'emailVerified', 'displayName', 'givenName', 'familyName', 'platformId'],
      (db, { platformId, ...claims }) => upsertLoginUser(db, claims as never, platformId!),
    ),
    activeFields: await capture(['platformId', 'userId'], (db, input) => activeFieldsWithValues(db, input.platformId!, input.userId!)),
    insertLoginSession: await capture(
      [
        'id', 'userId', 'tokenDigest', 'permissions', 'ttlSeconds', 'userAgent', 'ipPrefix', 'idpSid', 'idTokenSealed',
        'transactionId', 'handoffCodeDigest', 'platformId', 'onboarding', 'handoffTtlSeconds', 'authTime', 'amr', 'acr',
      ],
      (db, input) => insertLoginSession(db, input as never),
    ),
  };
}
