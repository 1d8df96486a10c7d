// The single-use statements that test/e2e/frozenDatabaseRetry.test.ts does not reach with its
// freeze (the callback's session and handoff code, the resume's handoff issue, an avatar upload
// ticket), one at a time:
// sent to a database that does not answer (a TCP relay holding the bytes, as a frozen server's
// socket does), given up on by the client, then run by the server once it answers again. Each
// must change nothing then (its deadline, src/db/knex.ts STATEMENT_DEADLINE), so the request's
// retry succeeds instead of finding a session or a code already issued (409 CONFLICT).
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { randomUUID } from 'node:crypto';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { freezableRelay, type FreezableRelay } from '../helpers/tcpRelay.ts';
import { insertTestTransaction } from '../helpers/transactions.ts';
import { createDb, runPrepared, STATEMENT_DEADLINE, STATEMENT_IN_TIME_CTE, type Db } from '../../src/db/knex.ts';
import { findActivePlatformByKey } from '../../src/services/registry/platformsRepository.ts';
import { upsertLoginUser } from '../../src/services/account/usersRepository.ts';
import { insertLoginSession } from '../../src/services/sessions/repository.ts';
import { insertHandoff } from '../../src/services/login/handoffsRepository.ts';
import { insertTicket, spendTicket } from '../../src/services/avatars/repository.ts';
import { createPlatform, CLI_ACTOR } from '../../src/services/registry/index.ts';
import { randomToken, sha256 } from '../../src/security/crypto.ts';

describe('a single-use statement that runs after its client gave up', () => {
  let database: TestDatabase;
  let relay: FreezableRelay;
  /** Through the relay: one connection, statements time out 200 ms after they are sent (the client gives up at 1.2 s). */
  let frozenDb: Db;
  let platformId: string;
  let userId: string;
  const onboarding = { status: 'COMPLETE' as const, requirementVersion: 1, missingFields: [], canCompleteCentrally: true, missingDocuments: [], acceptedDocuments: [] };

  beforeAll(async () => {
    database = await createTestDatabase();
    relay = await freezableRelay(database.url);
    frozenDb = createDb(relay.url, { poolMax: 1, statementTimeoutMs: 200 });
    await createPlatform(
      database.db,
      { platformKey: 'DEADLINES', displayName: 'Deadlines', callbackUrl: 'https://p.example/cb', allowedReturnUrls: ['https://p.example/'], defaultOnboardingMode: 'none' },
      CLI_ACTOR,
    );
    platformId = (await findActivePlatformByKey(database.db, 'DEADLINES'))!.id;
    userId = (await upsertLoginUser(database.db, { sub: 'deadline-user', email: null, emailVerified: false, displayName: null, givenName: null, familyName: null }, platformId)).id;
  });
  afterAll(async () => {
    relay?.thaw();
    await frozenDb?.destroy();
    await relay?.close();
    await database?.drop();
  });

  /** Runs `statement` on the frozen database: the client gives up; then the server gets it late, and runs it. */
  async function lateRun(statement: () => Promise<unknown>): Promise<unknown> {
    await frozenDb.raw('SELECT 1'); // the pooled connection, open before the freeze
    relay.freeze();
    const outcome = await statement().then((value) => value, (error: Error) => error);
    relay.thaw();
    // The same (only) connection: this answers once the late statement has run.
    await frozenDb.raw('SELECT 1');
    return outcome;
  }

  const count = async (sql: string, bindings: string[]) => (await database.db.raw<{ rows: { n: number }[] }>(sql, bindings)).rows[0]!.n;

  it('the callback\'s session and handoff code: nothing written, and the retry issues them', async () => {
    const { id: transactionId } = await insertTestTransaction(database.db, platformId, { consumed: true });
    const session = () => ({
      id: randomUUID(), userId, tokenDigest: sha256(randomToken()), permissions: [], ttlSeconds: 3600,
      userAgent: null, ipPrefix: null, idpSid: null, idTokenSealed: null, transactionId,
      handoffCodeDigest: sha256(randomToken()), platformId, onboarding: JSON.stringify(onboarding), handoffTtlSeconds: 60,
      authTime: null, amr: null, acr: null,
    });
    const first = session();
    const late = await lateRun(() => insertLoginSession(frozenDb, first));
    expect(late).toBeInstanceOf(Error);
    expect(await count('SELECT count(*)::int AS n FROM gateway_sessions WHERE id = ?', [first.id])).toBe(0);
    expect(await count('SELECT count(*)::int AS n FROM handoff_codes WHERE transaction_id = ?', [transactionId])).toBe(0);
    expect(await insertLoginSession(frozenDb, session())).toMatchObject({ handoffIssued: true });
  });

  it('the resume\'s handoff issue: no code issued, and the retry issues it (not 409 CONFLICT)', async () => {
    const { id: transactionId } = await insertTestTransaction(database.db, platformId, { consumed: true });
    const sessionId = randomUUID();
    await database.db.raw(`INSERT INTO gateway_sessions (id, user_id, token_digest, permissions, expires_at) VALUES (?, ?, ?, '{}', now() + interval '1 hour')`, [
      sessionId,
      userId,
      sha256(randomToken()),
    ]);
    const handoff = () => ({ codeDigest: sha256(randomToken()), transactionId, platformId, userId, sessionId, onboarding, ttlSeconds: 60 });
    const late = await lateRun(() => insertHandoff(frozenDb, handoff()));
    expect(late).toBeInstanceOf(Error);
    expect(await count('SELECT count(*)::int AS n FROM handoff_codes WHERE transaction_id = ?', [transactionId])).toBe(0);
    expect(await insertHandoff(frozenDb, handoff())).toBe(true);
  });

  it('an avatar upload ticket: not spent, and the retry spends it', async () => {
    const ticketId = randomUUID();
    await insertTicket(database.db, { id: ticketId, userId, avatarId: randomUUID(), store: 'postgres', contentType: 'image/png', contentLength: 10, expires: Math.floor(Date.now() / 1000) + 600 });
    const late = await lateRun(() => spendTicket(frozenDb, ticketId, 'postgres'));
    expect(late).toBeInstanceOf(Error);
    expect(await count('SELECT count(*)::int AS n FROM avatar_upload_tickets WHERE id = ? AND used_at IS NOT NULL', [ticketId])).toBe(0);
    expect(await spendTicket(frozenDb, ticketId, 'postgres')).toMatchObject({ id: ticketId });
  });
});

describe("a database clock ahead of the gateway's", () => {
  it('makes single-use statements refuse, and the log says it is the clock (once a minute)', async () => {
    const database = await createTestDatabase();
    const errors: string[] = [];
    const db = createDb(database.url, { poolMax: 1, statementTimeoutMs: 1000, logger: { warn: () => {}, error: (message) => errors.push(message) } });
    const inTime = () => runPrepared<{ late: boolean }>(db, 'test_in_time', `WITH ${STATEMENT_IN_TIME_CTE} SELECT NOT ok AS late FROM in_time`, { deadline: STATEMENT_DEADLINE });
    try {
      expect((await inTime()).rows[0]!.late).toBe(false);
      expect(errors).toEqual([]);
      // This process's clock 10 s behind the database's: the deadline (now + 1 s) is past there.
      vi.useFakeTimers({ toFake: ['Date'], now: Date.now() - 10_000 });
      expect((await inTime()).rows[0]!.late).toBe(true);
      expect((await inTime()).rows[0]!.late).toBe(true);
      expect(errors).toEqual([expect.stringMatching(/database's clock is ahead of this host's \(keep both on NTP\)/)]);
    } finally {
      vi.useRealTimers();
      await db.destroy();
      await database.drop();
    }
  });
});
