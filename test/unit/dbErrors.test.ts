import { describe, expect, it } from 'vitest';
import { isDatabaseUnavailable, isOutcomeUnknown } from '../../src/db/errors.ts';

function withCode(code: string, message = 'failed'): Error {
  return Object.assign(new Error(message), { code });
}

describe('isDatabaseUnavailable', () => {
  it.each([
    ['connection refused', withCode('ECONNREFUSED')],
    ['connection reset', withCode('ECONNRESET')],
    ['host not found', withCode('ENOTFOUND')],
    ['SQLSTATE 08006 connection failure', withCode('08006')],
    ['SQLSTATE 57P01 admin shutdown', withCode('57P01')],
    ['SQLSTATE 57P03 cannot connect now', withCode('57P03')],
    ['SQLSTATE 53300 too many connections', withCode('53300')],
    ['a database closed to connections', withCode('55000', 'database "gateway" is not currently accepting connections')],
    ['a socket closed under node-postgres', new Error('Connection terminated unexpectedly')],
    // knex prefixes the statement (a PostgreSQL restart cut a transaction: it answered 500 before).
    ['a socket closed under a knex statement', new Error('ROLLBACK - Connection terminated unexpectedly')],
    ['a socket closed under a knex query', new Error('select * from "platforms" where "id" = $1 - Connection terminated unexpectedly')],
    ['a knex query timed out client side', new Error('select 1 - Query read timeout')],
    // pg's connectionTimeoutMillis: a server that accepts the connection and never answers the handshake.
    ['connecting timed out', new Error('timeout expired')],
    ['a statement that ran after its deadline and changed nothing', withCode('57014', 'statement gw_redeem_handoff ran after its deadline and changed nothing')],
    ['knex pool acquire timeout', Object.assign(new Error('Knex: Timeout acquiring a connection.'), { name: 'KnexTimeoutError' })],
  ])('%s: yes', (_name, error) => {
    expect(isDatabaseUnavailable(error)).toBe(true);
  });

  it.each([
    ['a unique violation', withCode('23505')],
    ['a syntax error', withCode('42601')],
    ['another 55000', withCode('55000', 'lock not available')],
    ['a plain error', new Error('boom')],
    ['a statement quoting the message', withCode('23505', `insert into t values ('- Connection terminated unexpectedly') - duplicate key value violates unique constraint "t_pkey"`)],
    ['not an error', { code: 'ECONNREFUSED' }],
    ['nothing', undefined],
  ])('%s: no', (_name, error) => {
    expect(isDatabaseUnavailable(error)).toBe(false);
  });
});

describe('a failover (docs/operations.md, "PostgreSQL failover")', () => {
  it('a write refused by a standby or a demoted primary (SQLSTATE 25006) is unavailability (503), not a bug (500)', () => {
    expect(isDatabaseUnavailable(withCode('25006', 'cannot execute UPDATE in a read-only transaction'))).toBe(true);
  });

  it.each([
    ['the server terminated mid-statement (57P01)', withCode('57P01'), true],
    ['connection reset', withCode('ECONNRESET'), true],
    ['a socket closed under a statement', new Error('update "handoff_codes" - Connection terminated unexpectedly'), true],
    ['connection refused: nothing was sent', withCode('ECONNREFUSED'), false],
    ['pool acquire timeout: nothing was sent', Object.assign(new Error('Knex: Timeout acquiring a connection.'), { name: 'KnexTimeoutError' }), false],
    ['refused by a read-only server', withCode('25006'), false],
    ['cancelled by statement_timeout (rolled back)', withCode('57014'), false],
    ['cannot connect now', withCode('57P03'), false],
  ])('whether a statement may have committed unheard: %s', (_name, error, unknown) => {
    expect(isOutcomeUnknown(error)).toBe(unknown);
  });
});
