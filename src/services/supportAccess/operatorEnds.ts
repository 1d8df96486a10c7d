import type { Db } from '../../db/knex.ts';
import { endRunningAccesses } from './platformEnds.ts';
import { auditSupportAccessEnds } from './sessionEnds.ts';
import { endRunningAccessesOfFormerOperators, endRunningAccessesOfSessionOwner } from './endsRepository.ts';

// An operator who loses `support:access` (issue 35's review): the gateway reads permissions at
// sign-in, and a support session lives apart from the operator's own, so without these a
// running access outlived the permission until its time (30 minutes at most). Neither costs an
// ordinary login anything: the login path is not touched (the purge looks, and an
// administrator's revocation), only their statements (endsRepository.ts), run by the purge and by revocations
// of another user's session.

/**
 * An administrator (`platforms:admin`) revoked an ordinary session of an operator (sessions/
 * listing.ts, in the revocation's transaction): every access that operator is running ends now
 * (ended_by `administrator`). Revoking an operator's sessions is how an administrator makes a
 * withdrawn permission bite at once (every permission is read at sign-in); the support sessions
 * derived from the operator's are theirs to end too, whichever of the operator's sessions spent
 * the link (the gateway does not record which). A revoked support session (the person's) ends
 * nothing of the person's own accesses as an operator. Accesses not used yet stay: using one
 * needs a live session holding `support:access` again.
 */
export async function endSupportAccessOfRevokedOperator(trx: Db, revokedSessionId: string): Promise<number> {
  const rows = await endRunningAccessesOfSessionOwner(trx, revokedSessionId);
  await auditSupportAccessEnds(trx, rows, 'administrator');
  return endRunningAccesses(trx, rows, 'administrator');
}

/**
 * The purge's part (maintenance.ts, every 5 minutes): a running access whose operator signed in
 * to the gateway again since it started (a new ordinary session, its permissions read from the
 * provider then) without `support:access` ends (ended_by `administrator`: the permission was
 * withdrawn at the provider). So a withdrawn permission ends the operator's running accesses
 * within minutes of their next sign-in, without a statement on any login. Rows another ending
 * holds are skipped (it ends them). Returns how many ended.
 */
export async function endSupportAccessOfFormerOperators(db: Db, batch = 500): Promise<number> {
  let total = 0;
  for (;;) {
    const ended = await db.transaction(async (trx) => {
      const rows = await endRunningAccessesOfFormerOperators(trx, batch);
      await auditSupportAccessEnds(trx, rows, 'administrator');
      await endRunningAccesses(trx, rows, 'administrator');
      return rows.length;
    });
    total += ended;
    if (ended < batch) return total;
  }
}
