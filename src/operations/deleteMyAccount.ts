import type { OperationHandler } from '../api/types.ts';
import { clearSessionCookie, setDeletionReceiptCookie } from '../api/cookies.ts';
import { deleteAccount } from '../services/account/deletion.ts';

/** DELETE /v1/account/me: soft delete, every credential revoked at once. */
export const deleteMyAccount: OperationHandler<'deleteMyAccount'> = async ({ principal, log, res }, deps) => {
  const { receipt } = await deleteAccount({ db: deps.db, logger: log, idpAccounts: deps.idpAccounts, retentionDays: deps.config.accountRetentionDays }, principal!);
  // The browser's session is revoked: let the browser forget its cookie too.
  if (principal!.via === 'session') {
    clearSessionCookie(res, deps.config);
    // Only the deleting browser may follow the platforms' acknowledgements (getAccountDeletion).
    if (receipt) setDeletionReceiptCookie(res, deps.config, receipt, deps.config.accountRetentionDays);
  }
  return { status: 204 };
};
