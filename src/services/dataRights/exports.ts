import type { Readable } from 'node:stream';
import type { components } from '../../../generated/gateway.ts';
import type { Db } from '../../db/knex.ts';
import type { Principal } from '../../domain/types.ts';
import { ApiError } from '../../errors/catalogue.ts';
import { randomToken, sha256 } from '../../security/crypto.ts';
import { recordAuditEvent, type Actor } from '../audit/audit.ts';
import { requireLocalUser } from '../account/localUser.ts';
import { postgresSource } from './chunkStore.ts';
import { findExportRow, listExportRows, setExportLink, spendExportLink, startExportRow, type DataExportRow } from './exportRepository.ts';
import { DATA_EXPORT_LIFETIME_SECONDS, DATA_EXPORT_LINK_SECONDS, DATA_EXPORT_WINDOW_SECONDS, DATA_EXPORTS_PER_WINDOW } from './limits.ts';

export type DataExportView = components['schemas']['DataExport'];
export type DataExportLinkView = components['schemas']['DataExportLink'];

/**
 * "Download my data" (issue 26): start an export (a job writes the document), follow it,
 * get a single-use link, download. Every step acts for the caller's own local user only; the
 * operations refuse a platform's credential (`x-platform-credential: false`).
 */
export async function startDataExport(db: Db, principal: Principal, actor: Actor): Promise<DataExportView> {
  const userId = requireLocalUser(principal);
  const outcome = await startExportRow(
    db,
    { userId, maxPerWindow: DATA_EXPORTS_PER_WINDOW, windowSeconds: DATA_EXPORT_WINDOW_SECONDS, lifetimeSeconds: DATA_EXPORT_LIFETIME_SECONDS },
    (trx) => recordAuditEvent(trx, { action: 'data_export.start', platformKey: null, changedFields: [] }, actor),
  );
  if (outcome.kind === 'limited') {
    throw new ApiError(
      'RATE_LIMITED',
      `At most ${DATA_EXPORTS_PER_WINDOW} exports of your data can be started in 24 hours. Try again in ${outcome.retryAfterSeconds} seconds.`,
      { headers: { 'Retry-After': String(outcome.retryAfterSeconds) } },
    );
  }
  return toView(outcome.export);
}

export async function listDataExports(db: Db, principal: Principal): Promise<{ items: DataExportView[] }> {
  return { items: (await listExportRows(db, requireLocalUser(principal))).map(toView) };
}

export async function getDataExport(db: Db, principal: Principal, exportId: string): Promise<DataExportView> {
  const row = await findExportRow(db, requireLocalUser(principal), exportId);
  if (!row) throw new ApiError('DATA_EXPORT_NOT_FOUND');
  return toView(row);
}

/** A fresh single-use link (its token's digest stored, the token only in the answer). */
export async function createDataExportLink(db: Db, principal: Principal, exportId: string, publicBaseUrl: string): Promise<DataExportLinkView> {
  const token = randomToken();
  const outcome = await setExportLink(db, { userId: requireLocalUser(principal), exportId, linkDigest: sha256(token), ttlSeconds: DATA_EXPORT_LINK_SECONDS });
  if (outcome.kind === 'not-found') throw new ApiError('DATA_EXPORT_NOT_FOUND');
  if (outcome.kind === 'not-ready') throw new ApiError('DATA_EXPORT_NOT_READY', 'The export is still being written, or it failed: check its status.');
  const url = new URL(`${publicBaseUrl}/v1/account/data-exports/${exportId}/download`);
  url.searchParams.set('token', token);
  return { url: url.href, expiresAt: outcome.expiresAt.toISOString() };
}

/**
 * Spends the link and audits the download (one transaction), then streams the document.
 * Every refusal is the same 404, whatever the reason: a stranger learns nothing from it.
 */
export async function openDataExportDownload(
  db: Db,
  principal: Principal,
  exportId: string,
  token: string,
  actor: Actor,
): Promise<{ stream: Readable; filename: string; byteSize: number | null }> {
  const userId = requireLocalUser(principal);
  const spent = await db.transaction(async (trx) => {
    const row = await spendExportLink(trx, { userId, exportId, linkDigest: sha256(token) });
    if (row) await recordAuditEvent(trx, { action: 'data_export.download', platformKey: null, changedFields: [] }, actor);
    return row;
  });
  if (!spent) throw new ApiError('DATA_EXPORT_LINK_INVALID', 'This download link is not valid any more: ask for a new one.');
  return { stream: postgresSource(db, exportId), filename: `my-data-${spent.requestedAt.toISOString().slice(0, 10)}.json`, byteSize: spent.byteSize };
}

function toView(row: DataExportRow): DataExportView {
  return {
    id: row.id,
    status: row.status,
    requestedAt: row.requestedAt.toISOString(),
    completedAt: row.completedAt?.toISOString() ?? null,
    expiresAt: row.expiresAt.toISOString(),
    byteSize: row.byteSize,
    downloadedAt: row.downloadedAt?.toISOString() ?? null,
  };
}
