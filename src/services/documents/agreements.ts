import type { components } from '../../../generated/gateway.ts';
import type { Db } from '../../db/knex.ts';
import type { Principal } from '../../domain/types.ts';
import type { DocumentStanding } from '../../domain/documents.ts';
import { findActivePlatformByKey, type PlatformRow } from '../registry/index.ts';
import { isRequiredKind, isWithdrawableKind } from '../../domain/documents.ts';
import { ApiError } from '../../errors/catalogue.ts';
import { requireLocalUser } from '../account/localUser.ts';
import { recordAuditEvent, type Actor } from '../audit/audit.ts';
import { recordConsentWithdrawn } from '../events/record.ts';
import { toVersionView } from './administration.ts';
import {
  documentStandingsOfPlatforms,
  findCurrentVersion,
  findDocument,
  insertRecord,
  latestRecord,
  listRecords,
  listVersionsOfPlatforms,
  lockMembership,
  platformsWithDocumentsOfMember,
  type PlatformVersionRow,
  type RecordRow,
} from './repository.ts';
import { agreementStateOf } from './status.ts';
import { toRecordView } from './views.ts';

// A person's agreements (issue 25): what a platform's documents ask of them, their record, and
// the two writes, acceptance and withdrawal. The caller is the person's browser session, a
// Bearer token, or (for its own platform only, checked by the authorisation step, and only in
// `platform` onboarding mode, refuseRecordingByCentralPlatform) a platform's credential; each
// row says which (recorded_via). Each write locks the person's membership row first (and needs one: signing in to
// the platform creates it), so two tabs, or a retried request, record one row: the check of the
// latest record and the insert cannot interleave.

export type PlatformAgreementsView = components['schemas']['PlatformAgreements'];
export type AgreementDocumentView = components['schemas']['AgreementDocument'];
export type MyAgreementsView = components['schemas']['MyAgreements'];
export type AcceptanceInput = components['schemas']['AgreementAcceptanceRequest'];

export async function getPlatformAgreements(db: Db, platformKey: string, principal: Principal): Promise<PlatformAgreementsView> {
  const userId = requireLocalUser(principal);
  const platform = await findActivePlatformByKey(db, platformKey);
  if (!platform) throw platformNotFound(platformKey);
  return agreementsOf(db, platform, userId);
}

/** Every active platform the person is a member of that has documents (four statements, however many platforms). */
export async function listMyAgreements(db: Db, principal: Principal): Promise<MyAgreementsView> {
  const userId = requireLocalUser(principal);
  const platforms = await platformsWithDocumentsOfMember(db, userId);
  return { items: platforms.length === 0 ? [] : await agreementsOfPlatforms(db, platforms, userId) };
}

/**
 * Records one explicit acceptance of the current version of a document, as shown in
 * `language` with the digest `sha256`. Idempotent: when the person's latest record already
 * accepts this version, nothing is written (one row for two tabs).
 */
export async function acceptDocument(db: Db, platformKey: string, principal: Principal, input: AcceptanceInput, actor: Actor): Promise<AgreementDocumentView> {
  const userId = requireLocalUser(principal);
  const platform = await findActivePlatformByKey(db, platformKey);
  if (!platform) throw platformNotFound(platformKey);
  refuseRecordingByCentralPlatform(principal, platform, 'accept');
  return db.transaction(async (trx) => {
    if (!(await lockMembership(trx, userId, platform.id))) throw notAMember(platformKey);
    const document = await findDocument(trx, platform.id, input.documentKey);
    const current = document && (await findCurrentVersion(trx, document.id));
    if (!document || !current) throw new ApiError('DOCUMENT_NOT_FOUND', `The platform has no document ${input.documentKey} in effect.`);
    if (input.version !== current.version) {
      throw new ApiError('CONFLICT', `Version ${current.version} of ${input.documentKey} is the current one, not ${input.version}: show it and ask again.`);
    }
    const shown = current.texts[input.language];
    if (!shown) throw new ApiError('CONFLICT', `Version ${current.version} of ${input.documentKey} has no text in ${input.language}.`);
    if (shown.sha256 !== input.sha256) throw new ApiError('CONFLICT', `The digest is not the one of version ${current.version} of ${input.documentKey} in ${input.language}.`);
    const latest = await latestRecord(trx, userId, document.id);
    if (!(latest?.action === 'accept' && latest.version === current.version)) {
      await insertRecord(trx, {
        userId,
        platformId: platform.id,
        documentId: document.id,
        versionId: current.id,
        version: current.version,
        action: 'accept',
        textDigest: shown.sha256,
        language: input.language,
        sessionId: principal.session?.id ?? null,
        recordedVia: principal.via,
      });
      await recordAuditEvent(trx, { action: 'document.accept', platformKey: platform.platformKey, documentKey: document.documentKey, documentVersion: current.version, changedFields: [] }, actor);
    }
    return documentView(await agreementsOf(trx, platform, userId), input.documentKey);
  });
}

/** What a withdrawal recorded, for whoever must tell the platform (a consent-withdrawn event). */
export interface ConsentWithdrawal {
  userId: string;
  platformId: string;
  platformKey: string;
  documentKey: string;
  /** The version whose acceptance was withdrawn. */
  version: number;
}

/**
 * Withdraws the person's consent to a document that allows it (custom documents): a new row
 * of the record, in one transaction with its audit event. Idempotent: when the latest record is
 * not an acceptance, nothing is written and `withdrawal` is null (and no event: withdrawing
 * twice tells the platform once). The platform learns it from a consent-withdrawn Security
 * Event Token (RFC 8417) recorded in this same transaction (an outbox: the event commits or
 * rolls back with the record row), and from getPlatformAgreements and the next exchange's
 * `acceptedDocuments`.
 */
export async function withdrawConsent(
  db: Db,
  platformKey: string,
  principal: Principal,
  documentKey: string,
  actor: Actor,
): Promise<{ agreement: AgreementDocumentView; withdrawal: ConsentWithdrawal | null }> {
  const userId = requireLocalUser(principal);
  const platform = await findActivePlatformByKey(db, platformKey);
  if (!platform) throw platformNotFound(platformKey);
  refuseRecordingByCentralPlatform(principal, platform, 'withdraw');
  return db.transaction(async (trx) => {
    if (!(await lockMembership(trx, userId, platform.id))) throw notAMember(platformKey);
    const document = await findDocument(trx, platform.id, documentKey);
    if (!document) throw new ApiError('DOCUMENT_NOT_FOUND', `The platform has no document ${documentKey}.`);
    if (!isWithdrawableKind(document.kind)) {
      throw new ApiError('CONFLICT', `The ${document.kind} of a platform cannot be withdrawn while the account uses it; delete the account, or ask the platform.`);
    }
    const latest = await latestRecord(trx, userId, document.id);
    let withdrawal: ConsentWithdrawal | null = null;
    if (latest?.action === 'accept') {
      await insertRecord(trx, {
        userId,
        platformId: platform.id,
        documentId: document.id,
        versionId: latest.versionId,
        version: latest.version,
        action: 'withdraw',
        textDigest: latest.textDigest,
        language: latest.language,
        sessionId: principal.session?.id ?? null,
        recordedVia: principal.via,
      });
      await recordAuditEvent(trx, { action: 'document.withdraw', platformKey: platform.platformKey, documentKey, documentVersion: latest.version, changedFields: [] }, actor);
      withdrawal = { userId, platformId: platform.id, platformKey: platform.platformKey, documentKey, version: latest.version };
      // Only the document's own platform hears (platformId); it is related, since the membership
      // row was locked above. Another platform the person uses learns nothing.
      await recordConsentWithdrawn(trx, { userId, documentKey, version: latest.version, platformId: platform.id });
    }
    return { agreement: documentView(await agreementsOf(trx, platform, userId), documentKey), withdrawal };
  });
}

type AgreementsPlatform = Pick<PlatformRow, 'id' | 'platformKey' | 'displayName'>;

/** The platform's current documents with the person's state, and their record (newest first). */
async function agreementsOf(db: Db, platform: AgreementsPlatform, userId: string): Promise<PlatformAgreementsView> {
  return (await agreementsOfPlatforms(db, [platform], userId))[0]!;
}

/** agreementsOf for several platforms at once: the same three statements whatever their number. */
async function agreementsOfPlatforms(db: Db, platforms: readonly AgreementsPlatform[], userId: string): Promise<PlatformAgreementsView[]> {
  const ids = platforms.map((platform) => platform.id);
  const [standings, versions, records] = [
    await documentStandingsOfPlatforms(db, ids, userId),
    await listVersionsOfPlatforms(db, ids),
    await listRecords(db, userId, ids.length === 1 ? ids[0]! : null),
  ];
  return platforms.map((platform) => platformAgreements(platform, standings.get(platform.id) ?? [], versions, records.filter((record) => record.platformId === platform.id)));
}

function platformAgreements(platform: AgreementsPlatform, standings: readonly DocumentStanding[], versions: readonly PlatformVersionRow[], records: readonly RecordRow[]): PlatformAgreementsView {
  return {
    platformKey: platform.platformKey,
    displayName: platform.displayName,
    documents: standings.map((standing) => {
      const current = versions.find((row) => row.documentKey === standing.documentKey && row.platformId === platform.id && row.version === standing.currentVersion)!;
      const document = { documentKey: standing.documentKey, kind: standing.kind };
      const latest = records.find((record) => record.documentKey === standing.documentKey);
      const accepted = standing.acceptedVersion !== null ? latest : undefined;
      return {
        documentKey: standing.documentKey,
        kind: standing.kind,
        required: isRequiredKind(standing.kind),
        withdrawable: isWithdrawableKind(standing.kind),
        state: agreementStateOf(standing, latest?.action ?? null),
        acceptedVersion: standing.acceptedVersion,
        acceptedAt: accepted?.recordedAt.toISOString() ?? null,
        current: toVersionView(platform, document, current),
      };
    }),
    records: records.map(toRecordView),
  };
}

function documentView(agreements: PlatformAgreementsView, documentKey: string): AgreementDocumentView {
  const document = agreements.documents.find((item) => item.documentKey === documentKey);
  if (!document) throw new ApiError('DOCUMENT_NOT_FOUND', `The platform has no document ${documentKey} in effect.`);
  return document;
}

/**
 * Who may record a person's acceptance or withdrawal. The person, always (browser session,
 * Bearer). A platform's own credential only when the platform's onboarding mode is `platform`:
 * such a platform shows its documents on its own pages and records what the person did there
 * (the record and the audit log say the platform recorded it, and the account center shows it
 * so). A `central` (or `none`) platform sends its people to the account center, which asks them
 * itself; its back end has nothing of the person's to record, so its credential is refused
 * rather than trusted to speak for the person. The platform row is the one already read.
 */
function refuseRecordingByCentralPlatform(principal: Principal, platform: Pick<PlatformRow, 'platformKey' | 'defaultOnboardingMode'>, what: 'accept' | 'withdraw'): void {
  if (principal.via !== 'platform' || platform.defaultOnboardingMode === 'platform') return;
  const verb = what === 'accept' ? 'acceptances' : 'withdrawals';
  throw new ApiError(
    'AGREEMENT_RECORDING_NOT_ALLOWED',
    `The platform ${platform.platformKey} onboards people in ${platform.defaultOnboardingMode} mode: they record their own ${verb} in the account center. Only a platform in platform mode records what a person did on its own pages.`,
  );
}

function platformNotFound(platformKey: string): ApiError {
  return new ApiError('PLATFORM_NOT_FOUND', `No active platform has the key ${platformKey}.`);
}

/** An agreement is recorded only on a platform the person signed in to (it never creates the membership). */
function notAMember(platformKey: string): ApiError {
  return new ApiError('PLATFORM_NOT_FOUND', `You have not signed in to the platform ${platformKey}: sign in to it first.`);
}
