import type { OperationHandler } from '../api/types.ts';
import { deletionReceiptCookieName } from '../api/cookies.ts';
import { accountDeletionStatus } from '../services/events/deletionStatus.ts';

/** GET /v1/account/deletion: the deleting browser (its receipt cookie) sees which platforms acknowledged the deletion. */
export const getAccountDeletion: OperationHandler<'getAccountDeletion'> = async ({ req }, deps) => ({
  status: 200,
  body: await accountDeletionStatus(deps.db, req.cookies?.[deletionReceiptCookieName(deps.config)] as string | undefined, deps.config.accountRetentionDays),
  headers: { 'Cache-Control': 'no-store' },
});
