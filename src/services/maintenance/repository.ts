import type { Db } from '../../db/knex.ts';

export interface PurgeCounts {
  handoffCodes: number;
  transactions: number;
  sessions: number;
}

/** Rows removed per statement: each statement holds its locks briefly, whatever the backlog. */
export const PURGE_BATCH_SIZE = 1000;

/** The purge's advisory lock (an arbitrary constant: "gwpurge" read as bytes). */
const PURGE_LOCK_KEY = 0x67_77_70_75_72_67_65;

/**
 * Runs `work` only if no other instance is purging now (a session-level advisory lock, held on
 * one pooled connection for the whole run); null when another one is. Should the unlock fail,
 * the lock ends with its connection, which the pool closes once idle.
 */
export async function withPurgeLock<T>(db: Db, work: () => Promise<T>): Promise<T | null> {
  const connection = await db.client.acquireConnection();
  try {
    const { rows } = await db.raw<{ rows: { locked: boolean }[] }>('SELECT pg_try_advisory_lock(?) AS locked', [PURGE_LOCK_KEY]).connection(connection);
    if (!rows[0]!.locked) return null;
    try {
      return await work();
    } finally {
      await db.raw('SELECT pg_advisory_unlock(?)', [PURGE_LOCK_KEY]).connection(connection);
    }
  } finally {
    await db.client.releaseConnection(connection);
  }
}

/**
 * Deletes the rows of `table` (aliased `t` in `where`) that match `where`, `batchSize` at a
 * time, until a batch comes back short; the number of rows removed.
 */
async function deleteInBatches(db: Db, table: string, where: string, bindings: Record<string, unknown>, batchSize: number): Promise<number> {
  const statement = `
    WITH batch AS (SELECT t.id FROM ${table} t WHERE ${where} LIMIT :batchSize FOR UPDATE SKIP LOCKED),
         gone AS (DELETE FROM ${table} x USING batch WHERE x.id = batch.id RETURNING 1)
    SELECT count(*)::int AS removed FROM gone`;
  let total = 0;
  for (;;) {
    const { rows } = await db.raw<{ rows: { removed: number }[] }>(statement, { ...bindings, batchSize });
    const removed = rows[0]!.removed;
    total += removed;
    if (removed < batchSize) return total;
  }
}

/**
 * Removes what can no longer be used, in bounded batches (every foreign key is indexed, so
 * each check is a lookup):
 * - handoff codes expired longer ago than `graceSeconds`;
 * - login transactions never completed, as soon as they expire (nothing refers to them and
 *   they explain nothing: an anonymous flood of starts must not pile up for a day);
 * - completed transactions expired longer ago than `graceSeconds`, once no code refers to them;
 * - sessions expired longer ago than `graceSeconds` and ended (so their platforms were told,
 *   sessions/ending.ts), once nothing refers to them. Their platform credentials go with them
 *   (ON DELETE CASCADE).
 * `FOR UPDATE SKIP LOCKED`: a row a request is using right now waits for the next run.
 */
export async function purgeExpired(db: Db, graceSeconds: number, batchSize = PURGE_BATCH_SIZE): Promise<PurgeCounts> {
  const grace = { graceSeconds };
  const pastGrace = 't.expires_at < now() - make_interval(secs => :graceSeconds)';
  const handoffCodes = await deleteInBatches(db, 'handoff_codes', pastGrace, grace, batchSize);
  const pendingTransactions = await deleteInBatches(db, 'auth_transactions', 't.consumed_at IS NULL AND t.expires_at < now()', {}, batchSize);
  const completedTransactions = await deleteInBatches(
    db,
    'auth_transactions',
    `t.consumed_at IS NOT NULL AND ${pastGrace} AND NOT EXISTS (SELECT 1 FROM handoff_codes h WHERE h.transaction_id = t.id)`,
    grace,
    batchSize,
  );
  const sessions = await deleteInBatches(
    db,
    'gateway_sessions',
    `${pastGrace} AND t.ended_at IS NOT NULL
     AND NOT EXISTS (SELECT 1 FROM handoff_codes h WHERE h.session_id = t.id)
     AND NOT EXISTS (SELECT 1 FROM auth_transactions a WHERE a.session_id = t.id)`,
    grace,
    batchSize,
  );
  return { handoffCodes, transactions: pendingTransactions + completedTransactions, sessions };
}
