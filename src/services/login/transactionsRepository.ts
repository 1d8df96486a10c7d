import { refuseIfLate, runPrepared, STATEMENT_DEADLINE, STATEMENT_IN_TIME_CTE, type Db } from '../../db/knex.ts';
import { limitCountedCte, statementLimitBindings, type StatementRateLimit } from '../rateLimits/repository.ts';
import { platformFromJson, platformJson, type OnboardingMode, type PlatformRow } from '../registry/platformsRepository.ts';
import type { AuthenticationRequest } from '../../domain/authentication.ts';
import { NO_STRIPPED_STEP_UP } from './stepUpChallengesRepository.ts';

/** What the platform asked of the authentication (freshSignIn.ts) rides along; absent members ask nothing. */
export interface NewTransaction extends Partial<AuthenticationRequest> {
  id: string;
  platformId: string;
  stateDigest: Buffer;
  nonceDigest: Buffer;
  pkceVerifierSealed: string;
  nonceSealed: string;
  onboardingMode: OnboardingMode;
  platformCallbackUrl: string;
  returnTo: string;
  browserBindingDigest: Buffer;
  handoffChallenge: string | null;
  /** The platform's correlation value (`platformState`), sealed; null when the back end sent none. */
  platformStateSealed?: string | null;
  ttlSeconds: number;
}

/**
 * The start's row. It is committed with synchronous_commit off, for this transaction only
 * (set_config(…, true) is transaction-local, and this statement is its own transaction): the
 * commit returns before its WAL reaches the disk, which PostgreSQL flushes within
 * wal_writer_delay (200 ms by default). A crash of PostgreSQL can then lose the logins
 * started in that last fraction of a second: their callbacks find no transaction and the
 * person starts again, as after an expired one. Nothing single-use depends on this row being
 * durable: the callback's consumption and the exchange commit synchronously, as every other
 * statement does. docs/scaling.md gives the measurements.
 *
 * False, with nothing written, when the start presents the handoff challenge of a step-up
 * without that step-up's token (stepUpChallenges.ts): checked by this statement, no round trip added.
 */
export async function insertTransaction(db: Db, tx: NewTransaction): Promise<boolean> {
  const { rows } = await runPrepared<{ id: string }>(
    db,
    'gw_insert_transaction',
    `INSERT INTO auth_transactions
         (id, platform_id, state_digest, nonce_digest, pkce_verifier_sealed, nonce_sealed,
          onboarding_mode, platform_callback_url, return_to, browser_binding_digest, handoff_challenge,
          platform_state_sealed, max_age_seconds, force_login, second_factor_required, step_up_sub, expires_at)
       SELECT :id, :platformId, :stateDigest, :nonceDigest, :pkceVerifierSealed, :nonceSealed,
          :onboardingMode, :platformCallbackUrl, :returnTo, :browserBindingDigest, :handoffChallenge,
          CAST(:platformStateSealed AS text), CAST(:maxAgeSeconds AS integer), :forceLogin, :secondFactor, CAST(:stepUpSub AS text),
          now() + make_interval(secs => :ttlSeconds)
         FROM (SELECT set_config('synchronous_commit', 'off', true)) AS asynchronous_commit
        WHERE ${NO_STRIPPED_STEP_UP}
       RETURNING id`,
    {
      ...tx,
      platformStateSealed: tx.platformStateSealed ?? null,
      maxAgeSeconds: tx.maxAgeSeconds ?? null,
      forceLogin: tx.forceLogin ?? false,
      secondFactor: tx.secondFactor ?? false,
      stepUpSub: tx.stepUpSub ?? null,
    },
  );
  return rows.length === 1;
}

export interface ConsumedTransaction {
  id: string;
  platformId: string;
  platformKey: string;
  /** The registry row of the platform, read in the same statement (active or not: the caller checks). */
  platform: PlatformRow;
  nonceDigest: Buffer;
  pkceVerifierSealed: string;
  nonceSealed: string;
  onboardingMode: OnboardingMode;
  returnTo: string;
  /** Null only for transactions started before browser binding existed: the callback refuses them. */
  browserBindingDigest: Buffer | null;
  handoffChallenge: string | null;
  /** The platform's correlation value, sealed (platformStateAad), handed back beside the code; null when none was sent. */
  platformStateSealed: string | null;
  /** When the login started (the age a `max_age` is measured against). */
  startedAt: Date;
  /** What the platform asked of the authentication, checked by the callback. */
  authentication: AuthenticationRequest;
}

/**
 * Single use in one statement: the row is marked consumed and its sealed secrets
 * erased, and the sealed values are returned from the row as it was. Under
 * concurrency the FOR UPDATE re-check lets exactly one caller through. The platform's
 * registry row comes with it (one round trip fewer per callback). `withinLimit` is a
 * further condition on the row to consume (the rate limit, below). Run after its deadline
 * (`in_time`, the statement's first CTE: STATEMENT_DEADLINE) it consumes nothing and answers
 * `late`: the callback's 503 leaves the state for its retry.
 */
const consumeSql = (withinLimit = '') => `UPDATE auth_transactions t
        SET consumed_at = now(), pkce_verifier_sealed = NULL, nonce_sealed = NULL
       FROM (SELECT id, pkce_verifier_sealed, nonce_sealed FROM auth_transactions
              WHERE state_digest = :stateDigest AND consumed_at IS NULL AND expires_at > now()${withinLimit}
                AND (SELECT ok FROM in_time)
              FOR UPDATE) AS before, platforms p
      WHERE t.id = before.id AND t.consumed_at IS NULL AND p.id = t.platform_id
      RETURNING t.id, t.platform_id AS "platformId", p.platform_key AS "platformKey", t.nonce_digest AS "nonceDigest",
                before.pkce_verifier_sealed AS "pkceVerifierSealed", before.nonce_sealed AS "nonceSealed",
                t.onboarding_mode AS "onboardingMode", t.return_to AS "returnTo",
                t.browser_binding_digest AS "browserBindingDigest", t.handoff_challenge AS "handoffChallenge",
                t.platform_state_sealed AS "platformStateSealed", t.created_at AS "startedAt", t.max_age_seconds AS "maxAgeSeconds", t.force_login AS "forceLogin",
                t.second_factor_required AS "secondFactor", t.step_up_sub AS "stepUpSub",
                ${platformJson('p')} AS platform`;

type ConsumedRow = Omit<ConsumedTransaction, 'platform' | 'authentication'> & AuthenticationRequest & { platform: Parameters<typeof platformFromJson>[0] };

/** What a consume statement answers: whether it ran too late, and the consumed row's columns (all null when none). */
const LATE_COLUMN = '(SELECT NOT ok FROM in_time) AS late';

const consumed = (row: ConsumedRow | undefined): ConsumedTransaction | undefined => {
  if (!row) return undefined;
  const { maxAgeSeconds, forceLogin, secondFactor, stepUpSub, ...rest } = row;
  return { ...rest, platform: platformFromJson(row.platform), authentication: { maxAgeSeconds, forceLogin, secondFactor, stepUpSub } };
};

/** The text of gw_consume_transaction, built once: runPrepared compares it with the prepared one on every call. */
const CONSUME_TRANSACTION_SQL = `WITH ${STATEMENT_IN_TIME_CTE}, consumed AS (
         ${consumeSql()}
       )
       SELECT ${LATE_COLUMN}, consumed.* FROM (SELECT 1) AS one LEFT JOIN consumed ON true`;

export async function consumeTransactionByState(db: Db, stateDigest: Buffer): Promise<ConsumedTransaction | undefined> {
  const { rows } = await runPrepared<Partial<ConsumedRow> & { late: boolean }>(
    db,
    'gw_consume_transaction',
    CONSUME_TRANSACTION_SQL,
    { stateDigest, deadline: STATEMENT_DEADLINE },
  );
  const { late, ...row } = rows[0]!;
  refuseIfLate('gw_consume_transaction', { late });
  return row.id == null ? undefined : consumed(row as ConsumedRow);
}

/** The text of gw_consume_transaction_counting, built once: runPrepared compares it with the prepared one on every call. */
const CONSUME_TRANSACTION_COUNTING_SQL = `WITH ${STATEMENT_IN_TIME_CTE}, counted AS (
         ${limitCountedCte({ asynchronousCommit: false })}
       ), consumed AS (
         ${consumeSql(' AND (SELECT points FROM counted) <= CAST(:limitPoints AS integer)')}
       )
       SELECT CASE WHEN counted.points > CAST(:limitPoints AS integer) THEN counted.expire END AS "rateLimitedUntil", ${LATE_COLUMN}, consumed.*
         FROM counted LEFT JOIN consumed ON true`;

/**
 * The callback's consume with its rate-limit count in one statement (see StatementRateLimit).
 * The count commits with the consume, durably as the consume must. Over the budget nothing is
 * consumed: the transaction stays for a callback in the next window.
 */
export async function consumeTransactionByStateCounting(
  db: Db,
  stateDigest: Buffer,
  limit: StatementRateLimit,
): Promise<{ transaction: ConsumedTransaction | undefined; rateLimitedUntil: number | null }> {
  const { rows } = await runPrepared<Partial<ConsumedRow> & { rateLimitedUntil: number | null; late: boolean }>(
    db,
    'gw_consume_transaction_counting',
    CONSUME_TRANSACTION_COUNTING_SQL,
    { ...statementLimitBindings(limit), stateDigest, deadline: STATEMENT_DEADLINE },
  );
  const { rateLimitedUntil, late, ...row } = rows[0]!;
  refuseIfLate('gw_consume_transaction_counting', { late });
  return { transaction: row.id == null ? undefined : consumed(row as ConsumedRow), rateLimitedUntil };
}

/**
 * The platform and returnTo of a login by its state, whatever became of it (consumed, expired),
 * for the way forward of a callback that found nothing to consume; undefined once purged or
 * when the gateway never issued the state. Read only on that refusal, never on a login's path.
 */
export async function findLoginOfState(db: Db, stateDigest: Buffer): Promise<{ platformKey: string; returnTo: string; handoffChallenge: string | null } | undefined> {
  const { rows } = await db.raw<{ rows: { platformKey: string; returnTo: string; handoffChallenge: string | null }[] }>(
    `SELECT p.platform_key AS "platformKey", t.return_to AS "returnTo", t.handoff_challenge AS "handoffChallenge"
       FROM auth_transactions t JOIN platforms p ON p.id = t.platform_id
      WHERE t.state_digest = ? AND p.active`,
    [stateDigest],
  );
  return rows[0];
}

export async function attachLogin(db: Db, transactionId: string, userId: string, sessionId: string): Promise<void> {
  await db.raw('UPDATE auth_transactions SET user_id = ?, session_id = ? WHERE id = ?', [userId, sessionId, transactionId]);
}

export interface ResumableTransaction {
  id: string;
  platformId: string;
  platformKey: string;
  sessionId: string;
  onboardingMode: OnboardingMode;
  returnTo: string;
  handoffChallenge: string | null;
  /** As ConsumedTransaction's: the resume hands it back beside its code too. */
  platformStateSealed: string | null;
  /** False once AUTH_RESUME_TTL_SECONDS have passed since the callback, or once its session has ended. */
  resumable: boolean;
}

/**
 * A consumed transaction of this user, for resume after central onboarding. It is
 * returned even when it may no longer be resumed, so the refusal can offer a fresh start.
 */
export async function findConsumedTransactionOfUser(
  db: Db,
  input: { transactionId: string; userId: string; resumeTtlSeconds: number },
): Promise<ResumableTransaction | undefined> {
  const { rows } = await db.raw<{ rows: ResumableTransaction[] }>(
    `SELECT t.id, t.platform_id AS "platformId", p.platform_key AS "platformKey", t.session_id AS "sessionId",
            t.onboarding_mode AS "onboardingMode", t.return_to AS "returnTo", t.handoff_challenge AS "handoffChallenge",
            t.platform_state_sealed AS "platformStateSealed",
            (t.consumed_at > now() - make_interval(secs => :resumeTtlSeconds)
             AND s.revoked_at IS NULL AND s.expires_at > now()) AS resumable
       FROM auth_transactions t
       JOIN platforms p ON p.id = t.platform_id
       JOIN gateway_sessions s ON s.id = t.session_id
      WHERE t.id = :transactionId AND t.user_id = :userId AND t.consumed_at IS NOT NULL`,
    input,
  );
  return rows[0];
}
