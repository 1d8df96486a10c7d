import type { components } from '../../../generated/gateway.ts';
import type { Db } from '../../db/knex.ts';
import { ApiError } from '../../errors/catalogue.ts';
import { sha256 } from '../../security/crypto.ts';
import { deletionAcknowledgements } from './repository.ts';
import { SECURITY_EVENT_TYPES } from './types.ts';

export type AccountDeletionStatus = components['schemas']['AccountDeletionStatus'];

/**
 * GET /v1/account/deletion: for the browser holding the deletion receipt, the deletion and which
 * platforms took its event. The receipt is compared as its digest; a missing, unknown or erased
 * one is the same 404, so the answer tells a stranger nothing.
 */
export async function accountDeletionStatus(db: Db, receipt: string | undefined, retentionDays: number): Promise<AccountDeletionStatus> {
  const notFound = () => new ApiError('NOT_FOUND', 'This browser holds no deletion receipt of an account still in its retention period.');
  if (typeof receipt !== 'string' || receipt === '' || receipt.length > 200) throw notFound();
  const rows = await deletionAcknowledgements(db, sha256(receipt), SECURITY_EVENT_TYPES.accountDeletionScheduled);
  const first = rows[0];
  if (!first) throw notFound();
  return {
    deletedAt: first.deletedAt.toISOString(),
    eraseAfter: new Date(first.deletedAt.getTime() + retentionDays * 86_400_000).toISOString(),
    platforms: rows
      .filter((row) => row.platformKey !== null)
      .map((row) => ({ platformKey: row.platformKey!, displayName: row.displayName!, status: row.status!, acknowledgedAt: row.status === 'delivered' ? (row.deliveredAt?.toISOString() ?? null) : null })),
  };
}
