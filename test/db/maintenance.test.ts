import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertTestTransaction } from '../helpers/transactions.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { purgeExpired, withPurgeLock } from '../../src/services/maintenance/repository.ts';
import { endTimedOutSessions } from '../../src/services/sessions/ending.ts';
import { attachLogin } from '../../src/services/login/transactionsRepository.ts';
import { upsertUserFromIdp } from '../../src/services/account/usersRepository.ts';
import { createSession } from '../../src/services/sessions/create.ts';
import { issueHandoff } from '../../src/services/login/handoff.ts';
import { createPlatform, CLI_ACTOR } from '../../src/services/registry/index.ts';
import { randomToken, sha256 } from '../../src/security/crypto.ts';
import { purgeExpiredStepUpChallenges, reserveStepUpChallenge } from '../../src/services/login/stepUpChallengesRepository.ts';

const DAY = 24 * 3600;
const onboarding = { status: 'COMPLETE' as const, requirementVersion: 1, missingFields: [], canCompleteCentrally: true, missingDocuments: [], acceptedDocuments: [] };

describe('purging expired login data', () => {
  let database: TestDatabase;
  let platformId: string;
  let userId: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    await createPlatform(database.db, { platformKey: 'PURGE_TEST', displayName: 'Purge', callbackUrl: 'https://p.example/cb', allowedReturnUrls: ['https://p.example/'], defaultOnboardingMode: 'none' }, CLI_ACTOR);
    platformId = (await database.db.raw(`SELECT id FROM platforms WHERE platform_key = 'PURGE_TEST'`)).rows[0].id;
    userId = (await upsertUserFromIdp(database.db, { sub: 'purge-user', email: null, emailVerified: false, displayName: null, givenName: null, familyName: null })).id;
  });
  afterAll(async () => {
    await database?.drop();
  });

  /** A completed login: consumed transaction, session, and (optionally) a handoff code. */
  async function login(options: { handoff: boolean }) {
    const { id } = await insertTestTransaction(database.db, platformId, { consumed: true });
    const session = await createSession(database.db, { userId, permissions: [], ttlSeconds: 3600 });
    await attachLogin(database.db, id, userId, session.id);
    if (options.handoff) {
      await issueHandoff(database.db, 60, { transactionId: id, platformId, userId, sessionId: session.id, onboarding, callbackUrl: 'https://p.example/cb' });
    }
    return { transactionId: id, sessionId: session.id };
  }

  /** Moves every timestamp of a login back in time, as if it happened `seconds` ago. */
  async function age(ids: { transactionId: string; sessionId: string }, seconds: number, what: ('transaction' | 'session' | 'handoff')[] = ['transaction', 'session', 'handoff']) {
    const by = `${seconds} seconds`;
    if (what.includes('transaction')) await database.db.raw(`UPDATE auth_transactions SET created_at = created_at - ?::interval, expires_at = expires_at - ?::interval WHERE id = ?`, [by, by, ids.transactionId]);
    if (what.includes('session')) await database.db.raw(`UPDATE gateway_sessions SET created_at = created_at - ?::interval, expires_at = expires_at - ?::interval WHERE id = ?`, [by, by, ids.sessionId]);
    if (what.includes('handoff')) await database.db.raw(`UPDATE handoff_codes SET created_at = created_at - ?::interval, expires_at = expires_at - ?::interval WHERE transaction_id = ?`, [by, by, ids.transactionId]);
  }

  /** As the scheduler runs it: sessions past their expiry are ended first (their platforms told), then purged. */
  async function purge(batchSize?: number) {
    await endTimedOutSessions(database.db, 7200);
    return purgeExpired(database.db, DAY, batchSize);
  }

  const exists = async (table: string, id: string) => (await database.db.raw(`SELECT 1 FROM ${table} WHERE id = ?`, [id])).rows.length === 1;

  it('removes a login that expired more than a day ago, keeps a fresh one', async () => {
    const old = await login({ handoff: true });
    const fresh = await login({ handoff: true });
    await age(old, 3 * DAY);
    const counts = await purge();
    expect(counts).toEqual({ handoffCodes: 1, transactions: 1, sessions: 1 });
    expect(await exists('auth_transactions', old.transactionId)).toBe(false);
    expect(await exists('gateway_sessions', old.sessionId)).toBe(false);
    expect(await exists('auth_transactions', fresh.transactionId)).toBe(true);
    expect(await exists('gateway_sessions', fresh.sessionId)).toBe(true);
  });

  it('keeps an old transaction and its session while a recent handoff (a late resume) refers to them', async () => {
    const resumed = await login({ handoff: true });
    await age(resumed, 3 * DAY, ['transaction', 'session']);
    await purge();
    expect(await exists('auth_transactions', resumed.transactionId)).toBe(true);
    expect(await exists('gateway_sessions', resumed.sessionId)).toBe(true);
  });

  it('removes the platform credentials of a purged session with it', async () => {
    const old = await login({ handoff: true });
    await database.db.raw(`INSERT INTO platform_credentials (session_id, platform_id, token_digest) VALUES (?, ?, ?)`, [old.sessionId, platformId, sha256(randomToken())]);
    await age(old, 3 * DAY);
    await purge();
    const { rows } = await database.db.raw('SELECT 1 FROM platform_credentials WHERE session_id = ?', [old.sessionId]);
    expect(rows).toHaveLength(0);
  });

  it('is idempotent: a second run finds nothing', async () => {
    await purge();
    expect(await purge()).toEqual({ handoffCodes: 0, transactions: 0, sessions: 0 });
  });

  it('removes a login that was never completed as soon as it expires, without the day of grace', async () => {
    const { id: pending } = await insertTestTransaction(database.db, platformId);
    await database.db.raw(`UPDATE auth_transactions SET expires_at = now() - interval '1 second' WHERE id = ?`, [pending]);
    expect((await purge()).transactions).toBe(1);
    expect(await exists('auth_transactions', pending)).toBe(false);
  });

  it('works through a backlog in bounded batches', async () => {
    const logins = [];
    for (let i = 0; i < 5; i++) logins.push(await login({ handoff: true }));
    for (const old of logins) await age(old, 3 * DAY);
    expect(await purge(2)).toEqual({ handoffCodes: 5, transactions: 5, sessions: 5 });
    for (const old of logins) expect(await exists('gateway_sessions', old.sessionId)).toBe(false);
  });

  it("keeps a step-up's handoff challenge a day past its token's expiry (a stripped start stays refused), then removes it", async () => {
    const challenge = (n: number) => `${String(n).repeat(43)}`;
    const hoursAgo = (hours: number) => new Date(Date.now() - hours * 3600_000);
    await reserveStepUpChallenge(database.db, { handoffChallenge: challenge(1), platformId, expiresAt: hoursAgo(25) });
    await reserveStepUpChallenge(database.db, { handoffChallenge: challenge(2), platformId, expiresAt: hoursAgo(23) });
    // Asked again (a retried step-up): the later expiry is kept.
    await reserveStepUpChallenge(database.db, { handoffChallenge: challenge(2), platformId, expiresAt: hoursAgo(30) });
    expect(await purgeExpiredStepUpChallenges(database.db, DAY, 1)).toBe(1);
    const { rows } = await database.db.raw('SELECT handoff_challenge FROM step_up_challenges');
    expect(rows).toEqual([{ handoff_challenge: challenge(2) }]);
  });

  it('runs on one instance at a time: a second run while one holds the lock is skipped', async () => {
    let inner: unknown = 'not run';
    const outer = await withPurgeLock(database.db, async () => {
      inner = await withPurgeLock(database.db, async () => 'ran twice');
      return 'ran';
    });
    expect(outer).toBe('ran');
    expect(inner).toBeNull();
    expect(await withPurgeLock(database.db, async () => 'ran again')).toBe('ran again'); // released
  });
});

describe('the schema', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await database?.drop();
  });

  it('indexes every foreign-key column, so deleting a referenced row never scans a table', async () => {
    const { rows } = await database.db.raw<{ rows: { tbl: string; col: string }[] }>(`
      SELECT c.conrelid::regclass::text AS tbl, a.attname AS col
        FROM pg_constraint c
        JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1]
       WHERE c.contype = 'f' AND c.connamespace = 'public'::regnamespace
         AND NOT EXISTS (SELECT 1 FROM pg_index i WHERE i.indrelid = c.conrelid AND i.indkey[0] = c.conkey[1])`);
    expect(rows).toEqual([]);
  });
});
