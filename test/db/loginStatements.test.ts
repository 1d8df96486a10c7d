import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { insertTestTransaction } from '../helpers/transactions.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { findActivePlatformByKey } from '../../src/services/registry/platformsRepository.ts';
import { markUserDeleted, upsertLoginUser } from '../../src/services/account/usersRepository.ts';
import { insertLoginSession } from '../../src/services/sessions/repository.ts';
import { createPlatform, CLI_ACTOR } from '../../src/services/registry/index.ts';
import { randomToken, sha256 } from '../../src/security/crypto.ts';

// The callback's merged statements (issue 15): what each one writes, and what it refuses.
describe('the callback statements', () => {
  let database: TestDatabase;
  let platformId: string;
  const onboarding = JSON.stringify({ status: 'COMPLETE', requirementVersion: 1, missingFields: [], canCompleteCentrally: true, missingDocuments: [], acceptedDocuments: [] });

  beforeAll(async () => {
    database = await createTestDatabase();
    await createPlatform(
      database.db,
      { platformKey: 'CALLBACK_SQL', displayName: 'Callback', callbackUrl: 'https://p.example/cb', allowedReturnUrls: ['https://p.example/'], defaultOnboardingMode: 'none' },
      CLI_ACTOR,
    );
    platformId = (await findActivePlatformByKey(database.db, 'CALLBACK_SQL'))!.id;
  });
  afterAll(async () => {
    await database?.drop();
  });

  const claims = (sub: string) => ({ sub, email: `${sub}@example.test`, emailVerified: true, displayName: 'Ada L', givenName: 'Ada', familyName: 'L' });

  const consumedTransaction = async () => (await insertTestTransaction(database.db, platformId, { consumed: true })).id;

  function loginSession(userId: string, transactionId: string, handoff: boolean) {
    return insertLoginSession(database.db, {
      id: randomUUID(), userId, tokenDigest: sha256(randomToken()), permissions: [], ttlSeconds: 3600,
      userAgent: null, ipPrefix: null, idpSid: null, idTokenSealed: null, transactionId,
      handoffCodeDigest: handoff ? sha256(randomToken()) : null, platformId: handoff ? platformId : null,
      onboarding: handoff ? onboarding : null, handoffTtlSeconds: handoff ? 60 : null, authTime: null, amr: null, acr: null,
    });
  }

  it('provisions the user, the profile and the membership in one statement, and a returning user keeps them', async () => {
    const first = await upsertLoginUser(database.db, claims('sql-new'), platformId);
    expect(first).toMatchObject({ sub: 'sql-new', deletedAt: null, completedRequirementVersion: null });
    const { rows: profile } = await database.db.raw('SELECT first_name FROM profiles WHERE user_id = ?', [first.id]);
    expect(profile).toEqual([{ first_name: 'Ada' }]);
    await database.db.raw('UPDATE platform_memberships SET completed_requirement_version = 3 WHERE user_id = ?', [first.id]);
    const again = await upsertLoginUser(database.db, claims('sql-new'), platformId);
    expect(again).toMatchObject({ id: first.id, completedRequirementVersion: 3 });
  });

  it('writes the session, attaches it and the user to the transaction, and issues the handoff code, together', async () => {
    const user = await upsertLoginUser(database.db, claims('sql-session'), platformId);
    const transactionId = await consumedTransaction();
    expect(await loginSession(user.id, transactionId, true)).toMatchObject({ handoffIssued: true });
    const { rows } = await database.db.raw(
      `SELECT t.user_id, s.user_id AS session_user, h.session_id = s.id AS same_session, h.onboarding
         FROM auth_transactions t JOIN gateway_sessions s ON s.id = t.session_id JOIN handoff_codes h ON h.transaction_id = t.id
        WHERE t.id = ?`,
      [transactionId],
    );
    expect(rows).toEqual([{ user_id: user.id, session_user: user.id, same_session: true, onboarding: JSON.parse(onboarding) }]);
    // One handoff code per transaction: a second one is refused.
    expect(await loginSession(user.id, transactionId, true)).toMatchObject({ handoffIssued: false });
    // Central onboarding: a session without a code.
    const onboardingTransaction = await consumedTransaction();
    expect(await loginSession(user.id, onboardingTransaction, false)).toMatchObject({ handoffIssued: true });
    const { rows: codes } = await database.db.raw('SELECT count(*)::int AS n FROM handoff_codes WHERE transaction_id = ?', [onboardingTransaction]);
    expect(codes[0].n).toBe(0);
  });

  it('a deleted account: no membership, and no session or code if it was deleted after the upsert', async () => {
    const user = await upsertLoginUser(database.db, claims('sql-deleted'), platformId);
    expect(await markUserDeleted(database.db, user.id)).toBe(true);
    // Deleted between the callback's upsert and its session: nothing is written.
    const transactionId = await consumedTransaction();
    expect(await loginSession(user.id, transactionId, true)).toBeUndefined();
    const { rows } = await database.db.raw(
      `SELECT (SELECT count(*)::int FROM gateway_sessions WHERE user_id = :userId) AS sessions,
              (SELECT count(*)::int FROM handoff_codes WHERE transaction_id = :transactionId) AS codes,
              (SELECT user_id FROM auth_transactions WHERE id = :transactionId) AS attached`,
      { userId: user.id, transactionId },
    );
    expect(rows).toEqual([{ sessions: 0, codes: 0, attached: null }]);
    // A later login of the deleted account is answered with deletedAt, and given no membership.
    await database.db.raw('DELETE FROM platform_memberships WHERE user_id = ?', [user.id]);
    expect((await upsertLoginUser(database.db, claims('sql-deleted'), platformId)).deletedAt).not.toBeNull();
    const { rows: memberships } = await database.db.raw('SELECT count(*)::int AS n FROM platform_memberships WHERE user_id = ?', [user.id]);
    expect(memberships[0].n).toBe(0);
  });
});
