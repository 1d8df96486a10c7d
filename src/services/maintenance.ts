import type { Logger } from 'pino';
import type { Db } from '../db/knex.ts';
import { purgeExpired } from '../db/repositories/maintenance.ts';

/** Expired rows are kept a day for investigation before they go. */
export const PURGE_GRACE_SECONDS = 24 * 3600;
const PURGE_EVERY_MS = 15 * 60 * 1000;

/**
 * Periodic clean-up of expired login transactions, handoff codes and sessions
 * (with their platform credentials). Safe on many instances at
 * once (each run is one idempotent statement). Returns a stop function.
 */
export function schedulePurge(db: Db, logger: Logger): () => void {
  const run = async () => {
    try {
      const counts = await purgeExpired(db, PURGE_GRACE_SECONDS);
      if (Object.values(counts).some((count) => count > 0)) logger.info({ purged: counts }, 'purged expired login data');
    } catch (error) {
      logger.warn({ err: error }, 'purging expired login data failed; will retry');
    }
  };
  const timer = setInterval(() => void run(), PURGE_EVERY_MS);
  timer.unref();
  void run();
  return () => clearInterval(timer);
}
