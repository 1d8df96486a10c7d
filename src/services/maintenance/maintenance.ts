import type { AppDeps } from '../../deps.ts';
import { purgeExpired, withPurgeLock } from './repository.ts';
import { purgeExpiredTickets } from '../avatars/index.ts';
import { purgeDeletedAccounts } from '../account/deletion.ts';
import { endTimedOutSessions, endUnreachedSessions } from '../sessions/ending.ts';
import { purgeExpiredLogoutTokenJtis } from '../backchannel/logoutIn.ts';
import { purgeSettledEvents, SETTLED_EVENT_RETENTION_DAYS } from '../events/index.ts';
import { purgeExpiredExports } from '../dataRights/index.ts';
import { purgeExpiredStepUpChallenges } from '../login/index.ts';
import { endExpiredSupportAccess } from '../supportAccess/requests.ts';
import { endSupportAccessOfFormerOperators } from '../supportAccess/operatorEnds.ts';

/** Expired rows are kept a day for investigation before they go. */
export const PURGE_GRACE_SECONDS = 24 * 3600;
/** Often enough that abandoned logins go within minutes of their expiry. */
const PURGE_EVERY_MS = 5 * 60 * 1000;

/**
 * Periodic clean-up: sessions that expired or idled out are ended (their platforms are told),
 * so are sessions whose login reached no platform and whose cookie was never used (sessions/ending.ts),
 * expired login transactions, handoff codes and sessions (with their platform credentials)
 * are removed, expired avatar upload tickets, replay records of logout tokens and step-ups'
 * handoff challenges (a day after their token's expiry) too, expired
 * data exports with their documents (at once: no grace, they are personal data), and deleted accounts (the provider
 * deactivations still owed, and the data of those past ACCOUNT_RETENTION_DAYS). One instance
 * at a time (an advisory lock: the others skip their run), in bounded batches. Returns a stop
 * function.
 */
export function schedulePurge(deps: AppDeps): () => void {
  const { db, logger } = deps;
  const run = async () => {
    const started = process.hrtime.bigint();
    const seconds = () => Number(process.hrtime.bigint() - started) / 1e9;
    try {
      const counts = await withPurgeLock(db, async () => ({
        // Before the sessions' own: an access that ran out ends with its event (supportAccess/requests.ts).
        supportAccessExpired: await endExpiredSupportAccess(db),
        // An operator who signed in again without support:access leaves their running accesses (supportAccess/operatorEnds.ts).
        supportAccessWithdrawn: await endSupportAccessOfFormerOperators(db),
        sessionsTimedOut: await endTimedOutSessions(db, deps.config.gatewaySessionIdleSeconds),
        sessionsUnreached: await endUnreachedSessions(db),
        ...(await purgeExpired(db, PURGE_GRACE_SECONDS)),
        uploadTickets: await purgeExpiredTickets(db, PURGE_GRACE_SECONDS),
        ...(await purgeDeletedAccounts(deps, deps.config.accountRetentionDays)),
        logoutTokenJtis: await purgeExpiredLogoutTokenJtis(db),
        stepUpChallenges: await purgeExpiredStepUpChallenges(db, PURGE_GRACE_SECONDS),
        securityEvents: await purgeSettledEvents(db, SETTLED_EVENT_RETENTION_DAYS),
        dataExports: await purgeExpiredExports(db),
      }));
      if (counts === null) {
        logger.debug('another instance is purging; skipped');
        return;
      }
      deps.metrics?.observePurge('success', seconds(), counts);
      if (Object.values(counts).some((count) => count > 0)) logger.info({ purged: counts }, 'purged expired login data and deleted accounts');
    } catch (error) {
      deps.metrics?.observePurge('failure', seconds());
      logger.warn({ err: error }, 'purging expired data failed; will retry');
    }
  };
  const timer = setInterval(() => void run(), PURGE_EVERY_MS);
  timer.unref();
  void run();
  return () => clearInterval(timer);
}
