import type { JobHelpers, Task } from 'graphile-worker';
import type { Logger } from 'pino';
import type { Db } from '../../db/knex.ts';
import { postgresSink } from './chunkStore.ts';
import { writeDataExportDocument } from './document.ts';
import { discardChunks, findExportForJob, markExportFailed, markExportReady } from './exportRepository.ts';
import { DATA_EXPORT_LIFETIME_SECONDS } from './limits.ts';

export { DATA_EXPORT_TASK } from './exportRepository.ts';

/**
 * The export job (graphile-worker task `data_export`, queued by startDataExport in the same
 * transaction as its row): writes the person's document into the chunk store, then marks the
 * export ready. A failed attempt throws and graphile-worker retries it (the next attempt
 * starts over: its chunks are discarded first); after the last one the export is `failed`.
 * An export whose row is gone (purged) or no longer pending, or whose account was deleted
 * meanwhile, is dropped without writing.
 */
export function dataExportTask(context: { db: Db; logger: Logger }): Task {
  return async (rawPayload: unknown, helpers: JobHelpers) => {
    const exportId = (rawPayload as { exportId?: unknown } | null)?.exportId;
    if (typeof exportId !== 'string') {
      context.logger.error({ payload: rawPayload }, 'data export job without an export id; dropped');
      return;
    }
    const row = await findExportForJob(context.db, exportId);
    if (!row || row.status !== 'pending') return;
    if (row.userDeleted) {
      await markExportFailed(context.db, exportId);
      return;
    }
    const started = process.hrtime.bigint();
    try {
      await discardChunks(context.db, exportId);
      const byteSize = await writeDataExportDocument(context.db, row.userId, postgresSink(context.db, exportId));
      await markExportReady(context.db, exportId, byteSize, DATA_EXPORT_LIFETIME_SECONDS);
      context.logger.info({ exportId, byteSize, seconds: Number(process.hrtime.bigint() - started) / 1e9 }, 'data export written');
    } catch (error) {
      const { attempts, max_attempts: maxAttempts } = helpers.job;
      if (attempts >= maxAttempts) {
        await markExportFailed(context.db, exportId);
        context.logger.error({ exportId, attempts, err: error }, 'data export failed; gave up');
        return;
      }
      context.logger.warn({ exportId, attempts, err: error }, 'data export failed; graphile-worker retries it');
      throw error;
    }
  };
}
