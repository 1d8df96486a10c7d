import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { insertTestTransaction } from '../helpers/transactions.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { findActivePlatformByKey } from '../../src/db/repositories/platforms.ts';
import { consumeTransactionByStateCounting } from '../../src/db/repositories/transactions.ts';
import { redeemHandoff } from '../../src/db/repositories/handoffs.ts';
import { seedPlatform } from '../api/registryHelpers.ts';
import { randomToken, sha256 } from '../../src/security/crypto.ts';

// The rate limits counted or checked inside the statement of the step they guard (issue 15:
// one round trip fewer per callback and per exchange). Over the budget, the step must not
// happen at all: no transaction consumed, no code redeemed, no credential checked.
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

  it('the exchange: a spent failure budget refuses before the secret or the code is looked at, and consumes nothing', async () => {
    const limit = { key: `exchange_failure:${randomToken()}`, points: 3, durationMs: 60_000 };
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
    const redeem = (secret: string) =>
      redeemHandoff(database.db, { clientId, secretDigest: sha256(secret), codeDigest: sha256(code), handoffChallenge: null, credentialDigest: sha256(randomToken()) }, limit);

    // Under the budget (no row, then 2 failures of 3): checked, nothing counted by the check itself.
    expect(await redeem('wrong')).toMatchObject({ rateLimitedUntil: null, credentialsValid: false });
    const windowEnd = Date.now() + 60_000;
    await database.db.raw('INSERT INTO rate_limits (key, points, expire) VALUES (?, 2, ?)', [limit.key, windowEnd]);
    expect(await redeem('wrong')).toMatchObject({ rateLimitedUntil: null, credentialsValid: false });

    // Spent (3 of 3): even the right secret is refused, and the code stays unused.
    await database.db.raw('UPDATE rate_limits SET points = 3 WHERE key = ?', [limit.key]);
    const refused = await redeem(clientSecret);
    expect(refused).toMatchObject({ rateLimitedUntil: windowEnd, credentialsValid: false, sessionId: null });
    const { rows: unused } = await database.db.raw<{ rows: { consumed_at: Date | null }[] }>('SELECT consumed_at FROM handoff_codes WHERE code_digest = ?', [sha256(code)]);
    expect(unused[0]!.consumed_at).toBeNull();
    const { rows: credentials } = await database.db.raw<{ rows: unknown[] }>('SELECT 1 FROM platform_credentials WHERE session_id = ?', [sessionId]);
    expect(credentials).toEqual([]);

    // Its window over: redeemed; and without a limit (Redis counts elsewhere) the check is skipped.
    await database.db.raw('UPDATE rate_limits SET expire = ? WHERE key = ?', [Date.now() - 1, limit.key]);
    expect(await redeem(clientSecret)).toMatchObject({ rateLimitedUntil: null, credentialsValid: true, sessionId });
    await database.db.raw('UPDATE rate_limits SET expire = ? WHERE key = ?', [windowEnd, limit.key]);
    const unlimited = await redeemHandoff(
      database.db,
      { clientId, secretDigest: sha256(clientSecret), codeDigest: sha256(randomToken()), handoffChallenge: null, credentialDigest: sha256(randomToken()) },
      null,
    );
    expect(unlimited).toMatchObject({ rateLimitedUntil: null, credentialsValid: true, sessionId: null });
  });
});
