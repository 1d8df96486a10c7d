import type { Db } from '../../db/knex.ts';

// Statements of data exports (issue 26, "download my data"): the export rows, their
// single-use links and the chunks of their documents. SQL only; the rules are in exports.ts.

export type DataExportStatus = 'pending' | 'ready' | 'failed';

export interface DataExportRow {
  id: string;
  userId: string;
  status: DataExportStatus;
  requestedAt: Date;
  completedAt: Date | null;
  expiresAt: Date;
  byteSize: number | null;
  downloadedAt: Date | null;
}

const EXPORT_COLUMNS = `id, user_id AS "userId", status, requested_at AS "requestedAt", completed_at AS "completedAt",
  expires_at AS "expiresAt", byte_size AS "byteSize", downloaded_at AS "downloadedAt"`;

/** The graphile-worker task identifier of an export job. */
export const DATA_EXPORT_TASK = 'data_export';
/** A job that fails is retried by graphile-worker (e^1, e^2 s later); after the third failure the export is `failed`. */
export const DATA_EXPORT_MAX_ATTEMPTS = 3;

export type StartOutcome =
  | { kind: 'started'; export: DataExportRow }
  | { kind: 'pending'; export: DataExportRow }
  | { kind: 'limited'; retryAfterSeconds: number };

/**
 * Starts an export, in one transaction serialised per person (a transaction-level advisory
 * lock on the user id, so two concurrent starts cannot both pass the count): the person's
 * pending export is answered instead of a second one; past `maxPerWindow` exports (failed ones
 * not counted) requested within `windowSeconds`, nothing is started; otherwise the row and its
 * graphile-worker job are added together (a transactional outbox: the job exists iff the row does).
 * `alsoInTransaction` writes the audit row of a start.
 */
export async function startExportRow(
  db: Db,
  input: { userId: string; maxPerWindow: number; windowSeconds: number; lifetimeSeconds: number },
  alsoInTransaction: (trx: Db) => Promise<void>,
): Promise<StartOutcome> {
  return db.transaction(async (trx) => {
    await trx.raw(`SELECT pg_advisory_xact_lock(hashtextextended('data_export:' || ?, 0))`, [input.userId]);
    const pending = await trx.raw<{ rows: DataExportRow[] }>(
      `SELECT ${EXPORT_COLUMNS} FROM data_exports WHERE user_id = ? AND status = 'pending' AND expires_at > now() ORDER BY requested_at DESC LIMIT 1`,
      [input.userId],
    );
    if (pending.rows[0]) return { kind: 'pending', export: pending.rows[0] };
    const { rows: window } = await trx.raw<{ rows: { count: number; retryAfter: number | null }[] }>(
      `SELECT count(*)::int AS count,
              ceil(extract(epoch FROM min(requested_at) + make_interval(secs => :windowSeconds) - now()))::int AS "retryAfter"
         FROM data_exports
        WHERE user_id = :userId AND status <> 'failed' AND requested_at > now() - make_interval(secs => :windowSeconds)`,
      { userId: input.userId, windowSeconds: input.windowSeconds },
    );
    if (window[0]!.count >= input.maxPerWindow) return { kind: 'limited', retryAfterSeconds: Math.max(1, window[0]!.retryAfter ?? 1) };
    const { rows } = await trx.raw<{ rows: DataExportRow[] }>(
      `WITH created AS (
         INSERT INTO data_exports (user_id, expires_at) VALUES (:userId, now() + make_interval(secs => :lifetimeSeconds))
         RETURNING ${EXPORT_COLUMNS}
       ), job AS (
         SELECT graphile_worker.add_job(:task, json_build_object('exportId', created.id), max_attempts => :maxAttempts,
                                        job_key => 'data_export:' || created.id) FROM created
       )
       SELECT created.* FROM created, job`,
      { userId: input.userId, lifetimeSeconds: input.lifetimeSeconds, task: DATA_EXPORT_TASK, maxAttempts: DATA_EXPORT_MAX_ATTEMPTS },
    );
    await alsoInTransaction(trx);
    return { kind: 'started', export: rows[0]! };
  });
}

/** The person's exports that have not expired, newest first. */
export async function listExportRows(db: Db, userId: string): Promise<DataExportRow[]> {
  const { rows } = await db.raw<{ rows: DataExportRow[] }>(
    `SELECT ${EXPORT_COLUMNS} FROM data_exports WHERE user_id = ? AND expires_at > now() ORDER BY requested_at DESC, id LIMIT 20`,
    [userId],
  );
  return rows;
}

/** One export of the person's that has not expired; another person's is not found. */
export async function findExportRow(db: Db, userId: string, exportId: string): Promise<DataExportRow | undefined> {
  const { rows } = await db.raw<{ rows: DataExportRow[] }>(
    `SELECT ${EXPORT_COLUMNS} FROM data_exports WHERE id = ? AND user_id = ? AND expires_at > now()`,
    [exportId, userId],
  );
  return rows[0];
}

/** The export a job works on (whoever's it is: the job carries only the id). */
export async function findExportForJob(db: Db, exportId: string): Promise<(DataExportRow & { userDeleted: boolean }) | undefined> {
  const { rows } = await db.raw<{ rows: (DataExportRow & { userDeleted: boolean })[] }>(
    `SELECT ${EXPORT_COLUMNS}, EXISTS (SELECT 1 FROM users u WHERE u.id = user_id AND u.deleted_at IS NOT NULL) AS "userDeleted"
       FROM data_exports WHERE id = ?`,
    [exportId],
  );
  return rows[0];
}

export type LinkOutcome = { kind: 'issued'; expiresAt: Date } | { kind: 'not-ready' } | { kind: 'not-found' };

/**
 * Gives a ready export of the person a new download link (the digest of its token), replacing
 * any previous one. Not found: another person's, expired or unknown; not ready: pending or failed.
 */
export async function setExportLink(db: Db, input: { userId: string; exportId: string; linkDigest: Buffer; ttlSeconds: number }): Promise<LinkOutcome> {
  const { rows } = await db.raw<{ rows: { status: DataExportStatus; linkExpiresAt: Date | null }[] }>(
    `WITH target AS (
       SELECT id, status FROM data_exports WHERE id = :exportId AND user_id = :userId AND expires_at > now() FOR UPDATE
     ), linked AS (
       UPDATE data_exports e SET link_digest = :linkDigest, link_expires_at = least(now() + make_interval(secs => :ttlSeconds), e.expires_at)
         FROM target WHERE e.id = target.id AND target.status = 'ready'
       RETURNING e.link_expires_at
     )
     SELECT target.status, (SELECT link_expires_at FROM linked) AS "linkExpiresAt" FROM target`,
    { ...input },
  );
  const row = rows[0];
  if (!row) return { kind: 'not-found' };
  if (row.status !== 'ready' || !row.linkExpiresAt) return { kind: 'not-ready' };
  return { kind: 'issued', expiresAt: row.linkExpiresAt };
}

/**
 * Spends a download link: one statement, so two downloads racing with one link get one
 * document between them. Only the link's own person spends it (another person presenting it
 * changes nothing), only before the link and the export expire.
 */
export async function spendExportLink(db: Db, input: { userId: string; exportId: string; linkDigest: Buffer }): Promise<DataExportRow | undefined> {
  const { rows } = await db.raw<{ rows: DataExportRow[] }>(
    `UPDATE data_exports SET link_digest = NULL, link_expires_at = NULL, downloaded_at = now()
      WHERE id = :exportId AND user_id = :userId AND link_digest = :linkDigest AND link_expires_at > now()
        AND status = 'ready' AND expires_at > now()
      RETURNING ${EXPORT_COLUMNS}`,
    { ...input },
  );
  return rows[0];
}

/** A job starts over: chunks of an earlier, failed attempt go. */
export async function discardChunks(db: Db, exportId: string): Promise<void> {
  await db.raw('DELETE FROM data_export_chunks WHERE export_id = ?', [exportId]);
}

export async function insertChunk(db: Db, exportId: string, seq: number, bytes: Buffer): Promise<void> {
  await db.raw('INSERT INTO data_export_chunks (export_id, seq, bytes) VALUES (?, ?, ?)', [exportId, seq, bytes]);
}

/** One chunk of a document, in order; undefined after the last. */
export async function readChunk(db: Db, exportId: string, seq: number): Promise<Buffer | undefined> {
  const { rows } = await db.raw<{ rows: { bytes: Buffer }[] }>('SELECT bytes FROM data_export_chunks WHERE export_id = ? AND seq = ?', [exportId, seq]);
  return rows[0]?.bytes;
}

/** The job wrote the whole document: ready for `lifetimeSeconds` from now. */
export async function markExportReady(db: Db, exportId: string, byteSize: number, lifetimeSeconds: number): Promise<void> {
  await db.raw(
    `UPDATE data_exports SET status = 'ready', completed_at = now(), byte_size = :byteSize, expires_at = now() + make_interval(secs => :lifetimeSeconds)
      WHERE id = :exportId AND status = 'pending'`,
    { exportId, byteSize, lifetimeSeconds },
  );
}

/** The job gave up: what it wrote goes, the row stays (the person sees `failed`) until it expires. */
export async function markExportFailed(db: Db, exportId: string): Promise<void> {
  await db.transaction(async (trx) => {
    await trx.raw('DELETE FROM data_export_chunks WHERE export_id = ?', [exportId]);
    await trx.raw(`UPDATE data_exports SET status = 'failed', completed_at = now() WHERE id = ? AND status = 'pending'`, [exportId]);
  });
}

/**
 * The purge's part: exports past their `expires_at` go with their documents (the chunks
 * cascade), a few at a time so that each statement's locks stay short.
 */
export async function purgeExpiredExports(db: Db, batchSize = 20): Promise<number> {
  let total = 0;
  for (;;) {
    const { rows } = await db.raw<{ rows: { removed: number }[] }>(
      `WITH batch AS (SELECT id FROM data_exports WHERE expires_at < now() ORDER BY expires_at LIMIT :batchSize FOR UPDATE SKIP LOCKED),
            gone AS (DELETE FROM data_exports e USING batch WHERE e.id = batch.id RETURNING 1)
       SELECT count(*)::int AS removed FROM gone`,
      { batchSize },
    );
    total += rows[0]!.removed;
    if (rows[0]!.removed < batchSize) return total;
  }
}
