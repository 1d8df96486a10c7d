import type { components } from '../../../generated/gateway.ts';
import type { Db } from '../../db/knex.ts';
import { findPlatformByKey, lockPlatformByKey, type PlatformRow } from '../registry/index.ts';
import { bumpRequirementVersion } from '../onboarding/index.ts';
import { countCompleteMemberships } from '../onboarding/index.ts';
import { findUserBySub } from '../account/index.ts';
import { isRequiredKind, isWithdrawableKind } from '../../domain/documents.ts';
import { ApiError } from '../../errors/catalogue.ts';
import { recordAuditEvent, type Actor } from '../audit/audit.ts';
import {
  countAcceptancesByVersion,
  countActiveMembers,
  findDocument,
  findVersion,
  insertDocument,
  insertDraft,
  latestPublishedNumber,
  listDocuments,
  listRecords,
  listVersionsOfPlatform,
  publishDraft,
  updateDraft,
  type DocumentRow,
  type VersionRow,
} from './repository.ts';
import { allowedOriginsOf, draftSettings, patchedSettings, type DraftCreateInput, type DraftUpdateInput } from './rules.ts';
import { toRecordView } from './views.ts';

// Administration of a platform's documents (issue 25), shared by the admin API, the operator
// CLI and the dev stack's seed. Writes lock the platform row first, as the onboarding schema's
// do (src/services/onboarding/schema.ts): a publication and a field change queue, and neither
// loses the other's requirement-version increment.

export type DocumentVersionView = components['schemas']['DocumentVersion'];
export type DocumentListView = components['schemas']['DocumentList'];
export type PublishPreview = components['schemas']['DocumentPublishPreview'];
export type PersonAcceptancesView = components['schemas']['PersonAcceptances'];

export type PublishResult = { applied: true; version: DocumentVersionView } | { applied: false; preview: PublishPreview };

export async function listPlatformDocuments(db: Db, platformKey: string): Promise<DocumentListView> {
  const platform = await findPlatformByKey(db, platformKey);
  if (!platform) throw platformNotFound(platformKey);
  const [documents, versions, counts, activeUsers] = [
    await listDocuments(db, platform.id),
    await listVersionsOfPlatform(db, platform.id),
    await countAcceptancesByVersion(db, platform.id),
    await countActiveMembers(db, platform.id),
  ];
  const now = Date.now();
  return {
    platformKey: platform.platformKey,
    requirementVersion: platform.requirementVersion,
    activeUsers,
    items: documents.map((document) => {
      const own = versions.filter((version) => version.documentId === document.id);
      const current = own.find((version) => version.publishedAt !== null && version.effectiveAt !== null && version.effectiveAt.getTime() <= now);
      return {
        documentKey: document.documentKey,
        kind: document.kind,
        withdrawable: isWithdrawableKind(document.kind),
        currentVersion: current?.version ?? null,
        versions: own.map((version) => ({
          version: version.version,
          status: version.publishedAt ? ('published' as const) : ('draft' as const),
          material: version.material,
          effectiveAt: version.effectiveAt?.toISOString() ?? null,
          publishedAt: version.publishedAt?.toISOString() ?? null,
          title: version.texts[version.defaultLanguage]!.title,
          acceptedBy: counts.get(version.id) ?? 0,
        })),
      };
    }),
  };
}

export async function getDocumentVersion(db: Db, platformKey: string, documentKey: string, version: number): Promise<DocumentVersionView> {
  const platform = await findPlatformByKey(db, platformKey);
  if (!platform) throw platformNotFound(platformKey);
  const document = await findDocument(db, platform.id, documentKey);
  const row = document && (await findVersion(db, document.id, version));
  if (!document || !row) throw documentNotFound(documentKey, version);
  return toVersionView(platform, document, row);
}

/** The document is created with `kind` on first use; one draft per document at a time. */
export async function createDraft(db: Db, platformKey: string, documentKey: string, input: DraftCreateInput): Promise<DocumentVersionView> {
  return db.transaction(async (trx) => {
    const platform = await lockPlatform(trx, platformKey);
    const settings = draftSettings(input, allowedOriginsOf(platform.allowedReturnUrls));
    const document = (await findDocument(trx, platform.id, documentKey)) ?? (await insertDocument(trx, platform.id, documentKey, input.kind));
    if (!document) throw new ApiError('CONFLICT', `The platform already has a ${input.kind} document; a platform has one of each.`);
    if (document.kind !== input.kind) throw new ApiError('CONFLICT', `The document ${documentKey} is of kind ${document.kind}, not ${input.kind}.`);
    const row = await insertDraft(trx, document.id, settings);
    if (!row) throw new ApiError('CONFLICT', `The document ${documentKey} already has a draft: edit it, or publish it first.`);
    return toVersionView(platform, document, row);
  });
}

export async function editDraft(db: Db, platformKey: string, documentKey: string, version: number, input: DraftUpdateInput): Promise<DocumentVersionView> {
  return db.transaction(async (trx) => {
    const platform = await lockPlatform(trx, platformKey);
    const { document, row } = await requireVersion(trx, platform, documentKey, version);
    if (row.publishedAt) throw publishedConflict(documentKey, version);
    const updated = await updateDraft(trx, row.id, patchedSettings(row, input, allowedOriginsOf(platform.allowedReturnUrls)));
    if (!updated) throw publishedConflict(documentKey, version);
    return toVersionView(platform, document, updated);
  });
}

/**
 * Publishes a draft. A blocking version (material, or the document's first, of a terms or
 * privacy document) raises the platform's requirement version in the same transaction, as a
 * field change does (onboarding/schema.ts), so every COMPLETE onboarding is IN_PROGRESS again.
 * A dry run writes nothing and says who would have to accept it.
 */
export async function publishVersion(
  db: Db,
  platformKey: string,
  documentKey: string,
  version: number,
  actor: Actor,
  options: { dryRun?: boolean; enforceAfter?: Date | null } = {},
): Promise<PublishResult> {
  const enforceAfter = options.enforceAfter ?? null;
  return db.transaction(async (trx) => {
    const platform = await lockPlatform(trx, platformKey);
    const { document, row } = await requireVersion(trx, platform, documentKey, version);
    // Publishing again (a retried request) changes nothing.
    if (row.publishedAt && !options.dryRun) return { applied: true, version: toVersionView(platform, document, row) };
    const latest = await latestPublishedNumber(trx, document.id);
    if (!row.publishedAt && latest !== null && latest > row.version) {
      throw new ApiError('CONFLICT', `Version ${latest} of ${documentKey} is already published; this draft is older.`);
    }
    const blocking = isRequiredKind(document.kind) && (row.material || latest === null);
    if (options.dryRun) {
      const activeUsers = await countActiveMembers(trx, platform.id);
      const raises = blocking && !row.publishedAt;
      return {
        applied: false,
        preview: {
          dryRun: true,
          version: toVersionView(platform, document, row),
          blocking,
          mustAccept: raises ? activeUsers : 0,
          activeUsers,
          requirementVersion: raises ? platform.requirementVersion + 1 : platform.requirementVersion,
          reopenedUsers: raises ? await countCompleteMemberships(trx, platform.id, platform.requirementVersion) : 0,
          // Issue 36: with a date, whoever must accept it signs in with GRACE until then; no one
          // can have accepted a version before it is published.
          enforceAfter: raises ? (enforceAfter?.toISOString() ?? null) : null,
          graceUsers: raises && enforceAfter ? activeUsers : 0,
          meetingUsers: 0,
        },
      };
    }
    // A blocking version raises the requirement version (with its grace, issue 36) and records
    // which one, so that the grace rule finds when it binds.
    const raised = blocking ? await bumpRequirementVersion(trx, platform.id, enforceAfter) : null;
    const published = await publishDraft(trx, row.id, raised);
    if (!published) throw publishedConflict(documentKey, version);
    await recordAuditEvent(
      trx,
      { action: 'document.publish', platformKey: platform.platformKey, documentKey, documentVersion: version, changedFields: blocking ? ['material', 'requirementVersion', ...(enforceAfter ? ['enforceAfter'] : [])] : [] },
      actor,
    );
    return { applied: true, version: toVersionView(platform, document, published) };
  });
}

/** One person's record for the platform's documents, found by their identity-provider subject. */
export async function listAcceptancesOfPerson(db: Db, platformKey: string, sub: string): Promise<PersonAcceptancesView> {
  const platform = await findPlatformByKey(db, platformKey);
  if (!platform) throw platformNotFound(platformKey);
  const user = await findUserBySub(db, sub);
  const records = user ? await listRecords(db, user.id, platform.id) : [];
  return { platformKey: platform.platformKey, sub, records: records.map(toRecordView) };
}

export function toVersionView(platform: Pick<PlatformRow, 'platformKey'>, document: Pick<DocumentRow, 'documentKey' | 'kind'>, row: VersionRow): DocumentVersionView {
  return {
    platformKey: platform.platformKey,
    documentKey: document.documentKey,
    kind: document.kind,
    version: row.version,
    status: row.publishedAt ? 'published' : 'draft',
    material: row.material,
    effectiveAt: row.effectiveAt?.toISOString() ?? null,
    publishedAt: row.publishedAt?.toISOString() ?? null,
    defaultLanguage: row.defaultLanguage,
    texts: row.texts,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

async function lockPlatform(trx: Db, platformKey: string): Promise<PlatformRow> {
  const platform = await lockPlatformByKey(trx, platformKey);
  if (!platform) throw platformNotFound(platformKey);
  return platform;
}

async function requireVersion(trx: Db, platform: PlatformRow, documentKey: string, version: number): Promise<{ document: DocumentRow; row: VersionRow }> {
  const document = await findDocument(trx, platform.id, documentKey);
  const row = document && (await findVersion(trx, document.id, version));
  if (!document || !row) throw documentNotFound(documentKey, version);
  return { document, row };
}

function platformNotFound(platformKey: string): ApiError {
  return new ApiError('PLATFORM_NOT_FOUND', `No platform has the key ${platformKey}.`);
}

function documentNotFound(documentKey: string, version: number): ApiError {
  return new ApiError('DOCUMENT_NOT_FOUND', `The platform has no version ${version} of a document ${documentKey}.`);
}

function publishedConflict(documentKey: string, version: number): ApiError {
  return new ApiError('CONFLICT', `Version ${version} of ${documentKey} is published; a published version never changes. Create a new draft.`);
}
