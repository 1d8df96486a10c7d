import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { insertTestTransaction } from '../helpers/transactions.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { findActivePlatformByKey } from '../../src/services/registry/platformsRepository.ts';
import { consumeTransactionByStateCounting } from '../../src/services/login/transactionsRepository.ts';
import { redeemHandoff } from '../../src/services/login/handoffsRepository.ts';
import { seedPlatform } from '../api/registryHelpers.ts';
import { randomToken, sha256 } from '../../src/security/crypto.ts';

// The rate limits counted inside the statement of the step they guard (issue 15: one round trip
// fewer per callback). Over the budget, the step must not happen at all: no transaction
// consumed. The exchange has no rate limit (nothing a stranger relays through a platform's back
// end may refuse it), so its statement touches none.
describe('rate limits inside the login statements', () => {
  let database: TestDatabase;
  let platformId: string;
  let clientId: string;
  let clientSecret: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    const seeded = await seedPlatform(database.db, { platformKey: 'LIMITED_SQL' });
    ({ clientId, clientSecret } = seeded);
    platformId = (await findActivePlatformByKey(database.db, seeded.key))!.id;
  });
  afterAll(async () => {
    await database?.drop();
  });

  const startedLogin = () => insertTestTransaction(database.db, platformId);

  const consumedAt = async (id: string) =>
    (await database.db.raw<{ rows: { consumed_at: Date | null }[] }>('SELECT consumed_at FROM auth_transactions WHERE id = ?', [id])).rows[0]!.consumed_at;

  it('the callback: counted with the consume; over the budget the transaction is left unconsumed for a later callback', async () => {
    const limit = { key: `auth_callback:${randomToken()}`, points: 2, durationMs: 60_000 };
    const first = await startedLogin();
    const counted = await consumeTransactionByStateCounting(database.db, sha256(first.state), limit);
    expect(counted.rateLimitedUntil).toBeNull();
    expect(counted.transaction?.id).toBe(first.id);
    expect(counted.transaction?.platform.platformKey).toBe('LIMITED_SQL');
    // An unknown state is counted too (a flood of made-up states is what the limit is for).
    expect(await consumeTransactionByStateCounting(database.db, sha256(randomToken()), limit)).toEqual({ transaction: undefined, rateLimitedUntil: null });

    const over = await startedLogin();
    const refused = await consumeTransactionByStateCounting(database.db, sha256(over.state), limit);
    expect(refused.transaction).toBeUndefined();
    expect(refused.rateLimitedUntil).toBeGreaterThan(Date.now());
    expect(await consumedAt(over.id)).toBeNull();

    // The next window (its row expired): the same callback goes through.
    await database.db.raw('UPDATE rate_limits SET expire = ? WHERE key = ?', [Date.now() - 1, limit.key]);
    const later = await consumeTransactionByStateCounting(database.db, sha256(over.state), limit);
    expect(later.rateLimitedUntil).toBeNull();
    expect(later.transaction?.id).toBe(over.id);
    const { rows } = await database.db.raw<{ rows: { points: number }[] }>('SELECT points FROM rate_limits WHERE key = ?', [limit.key]);
    expect(rows).toEqual([{ points: 1 }]);
  });

  it('the exchange reads and writes no rate limit; a refused code still names the platform of valid credentials', async () => {
    const code = randomToken();
    const login = await startedLogin();
    const { rows: users } = await database.db.raw<{ rows: { id: string }[] }>(`INSERT INTO users (sub) VALUES (?) RETURNING id`, [`limited-${randomUUID()}`]);
    const sessionId = randomUUID();
    await database.db.raw(`INSERT INTO gateway_sessions (id, user_id, token_digest, permissions, expires_at) VALUES (?, ?, ?, '{}', now() + interval '1 hour')`, [sessionId, users[0]!.id, sha256(randomToken())]);
    await database.db.raw(
      `INSERT INTO handoff_codes (code_digest, transaction_id, platform_id, user_id, session_id, onboarding, expires_at)
       VALUES (?, ?, ?, ?, ?, '{}', now() + interval '1 minute')`,
      [sha256(code), login.id, platformId, users[0]!.id, sessionId],
    );
    const redeem = (secret: string, presented = code) =>
      redeemHandoff(database.db, { clientId, secretDigest: sha256(secret), codeDigest: sha256(presented), handoffChallenge: null, credentialDigest: sha256(randomToken()) });
    const limitRows = async () => (await database.db.raw<{ rows: { n: number }[] }>('SELECT count(*)::int AS n FROM rate_limits')).rows[0]!.n;
    const rowsBefore = await limitRows();

    // A wrong secret: no platform, nothing consumed.
    expect(await redeem('wrong')).toMatchObject({ platformKey: null, sessionId: null });
    // The right secret with a code that is not one: the platform is named (for its metric), nothing consumed.
    for (let i = 0; i < 12; i++) expect(await redeem(clientSecret, randomToken())).toMatchObject({ platformKey: 'LIMITED_SQL', sessionId: null });
    // However many refusals came before, the platform's code is redeemed.
    expect(await redeem(clientSecret)).toMatchObject({ platformKey: 'LIMITED_SQL', sessionId });
    expect(await redeem(clientSecret)).toMatchObject({ platformKey: 'LIMITED_SQL', sessionId: null });
    expect(await limitRows()).toBe(rowsBefore);
  });
});
