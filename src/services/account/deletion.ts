import type { Logger } from 'pino';
import type { Db } from '../../db/knex.ts';
import type { Principal } from '../../domain/types.ts';
import type { IdentityProviderAccounts } from '../identityProvider/port.ts';
import { randomToken, sha256 } from '../../security/crypto.ts';
import { lockUserForPurge, setDeletionReceipt, markIdpDeactivated, markUserDeleted, purgeUserData, usersAwaitingIdpDeactivation, usersDueForPurge } from './usersRepository.ts';
import { recordAccountDeletionScheduled, recordAccountErased } from '../events/record.ts';
import { requireLocalUser } from './localUser.ts';
import { endSessions } from '../sessions/ending.ts';
import { deleteAvatarsOf } from '../avatars/avatars.ts';
import { endSupportAccessOfOperator } from '../supportAccess/platformEnds.ts';
import type { AppDeps } from '../../deps.ts';

interface DeletionDeps {
  db: Db;
  logger: Logger;
  idpAccounts: IdentityProviderAccounts | null;
  /** ACCOUNT_RETENTION_DAYS: the deletion event tells platforms when the data goes. */
  retentionDays: number;
}

/**
 * DELETE /v1/account/me. Locally at once, in one transaction: the user is marked deleted,
 * every session revoked (every platform credential with it), every pending handoff expired.
 * Then the identity-provider account is deactivated so the person cannot sign in again; if
 * the provider cannot be reached now, the purge retries it (the gateway already refuses any
 * login of the subject). The data stays for ACCOUNT_RETENTION_DAYS, then `purgeDeletedAccounts`.
 */
export async function deleteAccount(deps: DeletionDeps, principal: Principal): Promise<{ receipt: string | null }> {
  const userId = requireLocalUser(principal);
  // The deletion receipt: a random value for the deleting browser (a cookie), its digest kept,
  // with which that browser follows the platforms' acknowledgements (getAccountDeletion).
  const receipt = randomToken();
  const deleted = await deps.db.transaction(async (trx) => {
    const marked = await markUserDeleted(trx, userId);
    if (marked) {
      await setDeletionReceipt(trx, userId, sha256(receipt));
      await endSessions(trx, { userId }, 'account_deleted');
      // An operator's support accesses (issue 35) end with their account, running ones at once.
      await endSupportAccessOfOperator(trx, userId);
      // Every platform the person used hears it (a Security Event Token), in this transaction.
      await recordAccountDeletionScheduled(trx, { userId, eraseAfter: new Date(Date.now() + deps.retentionDays * 86_400_000) });
    }
    return marked;
  });
  if (!deleted) return { receipt: null }; // already deleted: nothing more to do
  deps.logger.info({ userId }, 'account deleted; sessions and platform credentials revoked');
  await deactivateAtProvider(deps, { id: userId, sub: principal.sub });
  return { receipt };
}

async function deactivateAtProvider(deps: Omit<DeletionDeps, 'retentionDays'>, user: { id: string; sub: string }): Promise<boolean> {
  if (!deps.idpAccounts) {
    deps.logger.warn({ userId: user.id }, 'no identity-provider account API is configured: the deleted account stays active at the provider');
    return false;
  }
  try {
    await deps.idpAccounts.deactivateUser(user.sub);
    await markIdpDeactivated(deps.db, user.id);
    return true;
  } catch (error) {
    deps.logger.warn({ userId: user.id, err: error }, 'deactivating the deleted account at the identity provider failed; the purge retries it');
    return false;
  }
}

export interface AccountPurgeCounts {
  deactivated: number;
  purged: number;
}

const BATCH = 100;

/**
 * Part of the periodic purge: retries the provider deactivations that failed, then removes
 * the data of accounts deleted more than `retentionDays` ago (profile, onboarding values,
 * memberships, pictures) and has the provider delete them. A user whose provider deletion
 * fails keeps its data until a later run succeeds.
 */
export async function purgeDeletedAccounts(deps: AppDeps, retentionDays: number): Promise<AccountPurgeCounts> {
  let deactivated = 0;
  for (const user of await usersAwaitingIdpDeactivation(deps.db, BATCH)) {
    if (await deactivateAtProvider(deps, user)) deactivated++;
  }
  let purged = 0;
  for (const user of await usersDueForPurge(deps.db, retentionDays, BATCH)) {
    try {
      if (deps.idpAccounts) await deps.idpAccounts.deleteUser(user.sub);
      else deps.logger.warn({ userId: user.id }, 'no identity-provider account API is configured: the purged account is not deleted at the provider');
    } catch (error) {
      deps.logger.warn({ userId: user.id, err: error }, 'deleting the account at the identity provider failed; the purge retries it');
      continue;
    }
    await deleteAvatarsOf(deps, deps.logger, user.id);
    // The erasure event goes to the platforms the person used, recorded before the memberships
    // are removed and in the same transaction; the lock makes one instance's purge of a person
    // the only one (another instance's waits, then finds the person purged and records nothing).
    const erased = await deps.db.transaction(async (trx) => {
      if (!(await lockUserForPurge(trx, user.id))) return false;
      await recordAccountErased(trx, user.id);
      await purgeUserData(trx, user.id);
      return true;
    });
    if (erased) purged++;
  }
  return { deactivated, purged };
}
