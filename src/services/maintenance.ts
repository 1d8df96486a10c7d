import type { AppDeps } from '../deps.ts';
import { purgeExpired } from '../db/repositories/maintenance.ts';
import { purgeExpiredTickets } from '../db/repositories/avatars.ts';
import { purgeDeletedAccounts } from './account/deletion.ts';
import { endTimedOutSessions } from './sessions/ending.ts';

/** Expired rows are kept a day for investigation before they go. */
export const PURGE_GRACE_SECONDS = 24 * 3600;
const PURGE_EVERY_MS = 15 * 60 * 1000;

/**
 * Periodic clean-up: sessions that expired or idled out are ended (their platforms are told),
 * expired login transactions, handoff codes and sessions (with their platform credentials)
 * are removed, expired avatar upload tickets too, and deleted accounts (the provider
 * deactivations still owed, and the data of those past ACCOUNT_RETENTION_DAYS). Safe on
 * many instances at once (each step is idempotent). Returns a stop function.
 */
export function schedulePurge(deps: AppDeps): () => void {
  const { db, logger } = deps;
  const run = async () => {
    try {
      const counts = {
        sessionsTimedOut: await endTimedOutSessions(db, deps.config.gatewaySessionIdleSeconds),
        ...(await purgeExpired(db, PURGE_GRACE_SECONDS)),
        uploadTickets: await purgeExpiredTickets(db, PURGE_GRACE_SECONDS),
        ...(await purgeDeletedAccounts(deps, deps.config.accountRetentionDays)),
      };
      if (Object.values(counts).some((count) => count > 0)) logger.info({ purged: counts }, 'purged expired login data and deleted accounts');
    } catch (error) {
      logger.warn({ err: error }, 'purging expired data failed; will retry');
    }
  };
  const timer = setInterval(() => void run(), PURGE_EVERY_MS);
  timer.unref();
  void run();
  return () => clearInterval(timer);
}
