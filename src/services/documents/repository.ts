import type { Db } from '../../db/knex.ts';
import type { DocumentKind, DocumentStanding, DocumentText } from '../../domain/documents.ts';

// The statements of platform documents, their versions and the agreement record. Writes run in
// the transaction of the change (administration.ts, agreements.ts); the database itself keeps
// published versions immutable and the record append-only (migration 20261127001000).

/**
 * A person's standing with each current document of a platform, as one jsonb array, for the
 * statement that already reads the onboarding state (onboarding repository,
 * activeFieldsWithValues): the login path pays no extra round trip for it. Bindings
 * `:platformId`, `:userId`. A version is current from its effective date; the required version
 * is the latest material one in effect, or the first when none is material.
 *
 * Only records of the person's current membership count (CURRENT_MEMBERSHIP_RECORD): a person
 * who left the platform keeps their record (append-only), but signing in again starts a new
 * membership, and the documents are asked for again, as the rest of the onboarding is.
 */
/**
 * The join condition (agreement_records `r`, platform_memberships `m`) that keeps the rows
 * recorded during the person's current membership of the record's platform. Leaving removes the
 * membership and keeps the rows; the next sign-in creates a membership whose `created_at` is
 * later than every earlier row. A row and the membership it creates (lockMembership) share one
 * transaction's now(), hence `>=`. Reads by primary key of the membership.
 */
const CURRENT_MEMBERSHIP_RECORD = `m.user_id = r.user_id AND m.platform_id = r.platform_id AND r.recorded_at >= m.created_at`;

export const DOCUMENT_STANDINGS_JSON = documentStandingsJson(':platformId');

/** The standings statement for the platform named by `platformId` (a binding, or a column of an outer query). */
function documentStandingsJson(platformId: string): string {
  // `blockingAbove` (issue 36) only while the required version is not accepted: the grace rule
  // reads the requirement versions those blocking versions raised; a person who meets the
  // document pays nothing for it.
  return `
  SELECT coalesce(jsonb_agg(jsonb_build_object(
           'documentKey', d.document_key, 'kind', d.kind, 'currentVersion', v.current_version,
           'requiredVersion', v.required_version,
           'acceptedVersion', CASE WHEN last.action = 'accept' THEN last.version END,
           'blockingAbove', CASE WHEN d.kind <> 'custom' AND coalesce(CASE WHEN last.action = 'accept' THEN last.version END, 0) < v.required_version THEN (
             SELECT jsonb_agg(bv.requirement_version) FROM document_versions bv
              WHERE bv.document_id = d.id AND bv.published_at IS NOT NULL AND bv.effective_at <= now()
                AND (bv.material OR bv.version = v.first_version)
                AND bv.version > coalesce(CASE WHEN last.action = 'accept' THEN last.version END, 0)
                AND bv.version <= v.required_version) END)
           ORDER BY d.document_key), '[]'::jsonb)
    FROM platform_documents d
    CROSS JOIN LATERAL (
      SELECT max(dv.version) AS current_version, min(dv.version) AS first_version,
             coalesce(max(dv.version) FILTER (WHERE dv.material), min(dv.version)) AS required_version
        FROM document_versions dv
       WHERE dv.document_id = d.id AND dv.published_at IS NOT NULL AND dv.effective_at <= now()) v
    LEFT JOIN LATERAL (
      SELECT r.action, r.version FROM agreement_records r
        JOIN platform_memberships m ON ${CURRENT_MEMBERSHIP_RECORD}
       WHERE r.user_id = :userId AND r.document_id = d.id
       ORDER BY r.id DESC LIMIT 1) last ON true
   WHERE d.platform_id = ${platformId} AND v.current_version IS NOT NULL`;
}

export interface DocumentRow {
  id: string;
  platformId: string;
  documentKey: string;
  kind: DocumentKind;
}

export interface VersionRow {
  id: string;
  documentId: string;
  version: number;
  material: boolean;
  effectiveAt: Date | null;
  publishedAt: Date | null;
  defaultLanguage: string;
  texts: Record<string, DocumentText>;
  createdAt: Date;
  updatedAt: Date;
}

export interface VersionSettings {
  material: boolean;
  effectiveAt: Date | null;
  defaultLanguage: string;
  texts: Record<string, DocumentText>;
}

const DOCUMENT_COLUMNS = `d.id, d.platform_id AS "platformId", d.document_key AS "documentKey", d.kind`;
const VERSION_COLUMNS = `
  v.id, v.document_id AS "documentId", v.version, v.material, v.effective_at AS "effectiveAt", v.published_at AS "publishedAt",
  v.default_language AS "defaultLanguage", v.texts, v.created_at AS "createdAt", v.updated_at AS "updatedAt"`;

export async function findDocument(db: Db, platformId: string, documentKey: string): Promise<DocumentRow | undefined> {
  const { rows } = await db.raw<{ rows: DocumentRow[] }>(
    `SELECT ${DOCUMENT_COLUMNS} FROM platform_documents d WHERE d.platform_id = ? AND d.document_key = ?`,
    [platformId, documentKey],
  );
  return rows[0];
}

/** Undefined when the key or (terms, privacy) the kind is already taken on the platform. */
export async function insertDocument(db: Db, platformId: string, documentKey: string, kind: DocumentKind): Promise<DocumentRow | undefined> {
  const { rows } = await db.raw<{ rows: DocumentRow[] }>(
    `INSERT INTO platform_documents AS d (platform_id, document_key, kind) VALUES (?, ?, ?)
     ON CONFLICT DO NOTHING RETURNING ${DOCUMENT_COLUMNS}`,
    [platformId, documentKey, kind],
  );
  return rows[0];
}

export async function listDocuments(db: Db, platformId: string): Promise<DocumentRow[]> {
  const { rows } = await db.raw<{ rows: DocumentRow[] }>(
    `SELECT ${DOCUMENT_COLUMNS} FROM platform_documents d WHERE d.platform_id = ? ORDER BY d.document_key`,
    [platformId],
  );
  return rows;
}

/** Every version of the platform's documents, newest first per document. */
export async function listVersionsOfPlatform(db: Db, platformId: string): Promise<PlatformVersionRow[]> {
  return listVersionsOfPlatforms(db, [platformId]);
}

/** A version with its document's key and platform. */
export interface PlatformVersionRow extends VersionRow {
  documentKey: string;
  platformId: string;
}

/** Every version of the documents of several platforms, newest first per document. */
export async function listVersionsOfPlatforms(db: Db, platformIds: readonly string[]): Promise<PlatformVersionRow[]> {
  const { rows } = await db.raw<{ rows: PlatformVersionRow[] }>(
    `SELECT ${VERSION_COLUMNS}, d.document_key AS "documentKey", d.platform_id AS "platformId" FROM document_versions v JOIN platform_documents d ON d.id = v.document_id
      WHERE d.platform_id = ANY(CAST(? AS uuid[])) ORDER BY d.document_key, v.version DESC`,
    [[...platformIds]],
  );
  return rows;
}

export async function findVersion(db: Db, documentId: string, version: number): Promise<VersionRow | undefined> {
  const { rows } = await db.raw<{ rows: VersionRow[] }>(`SELECT ${VERSION_COLUMNS} FROM document_versions v WHERE v.document_id = ? AND v.version = ?`, [
    documentId,
    version,
  ]);
  return rows[0];
}

/** The published version in effect now (the highest whose effective date has come). */
export async function findCurrentVersion(db: Db, documentId: string): Promise<VersionRow | undefined> {
  const { rows } = await db.raw<{ rows: VersionRow[] }>(
    `SELECT ${VERSION_COLUMNS} FROM document_versions v
      WHERE v.document_id = ? AND v.published_at IS NOT NULL AND v.effective_at <= now()
      ORDER BY v.version DESC LIMIT 1`,
    [documentId],
  );
  return rows[0];
}

/** The highest published version number of a document, in effect or not (null: none). */
export async function latestPublishedNumber(db: Db, documentId: string): Promise<number | null> {
  const { rows } = await db.raw<{ rows: { version: number | null }[] }>(
    `SELECT max(version) AS version FROM document_versions WHERE document_id = ? AND published_at IS NOT NULL`,
    [documentId],
  );
  return rows[0]!.version;
}

/** The next number of the document; undefined when it already has a draft (one at most, by a unique index). */
export async function insertDraft(db: Db, documentId: string, settings: VersionSettings): Promise<VersionRow | undefined> {
  const { rows } = await db.raw<{ rows: VersionRow[] }>(
    `INSERT INTO document_versions AS v (document_id, version, material, effective_at, default_language, texts)
     SELECT :documentId, coalesce(max(version), 0) + 1, :material, :effectiveAt, :defaultLanguage, CAST(:texts AS jsonb)
       FROM document_versions WHERE document_id = :documentId
     ON CONFLICT DO NOTHING
     RETURNING ${VERSION_COLUMNS}`,
    { documentId, ...settings, texts: JSON.stringify(settings.texts) },
  );
  return rows[0];
}

/** Only a draft changes (`published_at IS NULL` here, and the trigger refuses any change to a published row). */
export async function updateDraft(db: Db, id: string, settings: VersionSettings): Promise<VersionRow | undefined> {
  const { rows } = await db.raw<{ rows: VersionRow[] }>(
    `UPDATE document_versions AS v SET material = :material, effective_at = :effectiveAt, default_language = :defaultLanguage,
            texts = CAST(:texts AS jsonb), updated_at = now()
      WHERE v.id = :id AND v.published_at IS NULL
     RETURNING ${VERSION_COLUMNS}`,
    { id, ...settings, texts: JSON.stringify(settings.texts) },
  );
  return rows[0];
}

/**
 * Publishes a draft: the statement changes only a row that is still a draft, so a version is
 * published once; from then on the trigger keeps it as it is. Effective from its effective
 * date, never earlier than its publication. `requirementVersion`: the platform's version its
 * publication raised (a blocking version), whose grace says when it binds (issue 36).
 */
export async function publishDraft(db: Db, id: string, requirementVersion: number | null): Promise<VersionRow | undefined> {
  const { rows } = await db.raw<{ rows: VersionRow[] }>(
    `UPDATE document_versions AS v SET published_at = now(), effective_at = greatest(coalesce(v.effective_at, now()), now()), updated_at = now(),
            requirement_version = :requirementVersion
      WHERE v.id = :id AND v.published_at IS NULL
     RETURNING ${VERSION_COLUMNS}`,
    { id, requirementVersion },
  );
  return rows[0];
}

/** Members of the platform whose account is not deleted. */
export async function countActiveMembers(db: Db, platformId: string): Promise<number> {
  const { rows } = await db.raw<{ rows: { count: string }[] }>(
    `SELECT count(*) AS count FROM platform_memberships m JOIN users u ON u.id = m.user_id
      WHERE m.platform_id = ? AND u.deleted_at IS NULL`,
    [platformId],
  );
  return Number(rows[0]!.count);
}

/** Per version id: active members whose latest record for its document accepts exactly it. */
export async function countAcceptancesByVersion(db: Db, platformId: string): Promise<Map<string, number>> {
  const { rows } = await db.raw<{ rows: { versionId: string; count: string }[] }>(
    `SELECT latest.version_id AS "versionId", count(*) AS count
       FROM (SELECT DISTINCT ON (r.user_id, r.document_id) r.version_id, r.action
               FROM agreement_records r
               JOIN platform_memberships m ON ${CURRENT_MEMBERSHIP_RECORD}
               JOIN users u ON u.id = r.user_id AND u.deleted_at IS NULL
              WHERE r.platform_id = ?
              ORDER BY r.user_id, r.document_id, r.id DESC) latest
      WHERE latest.action = 'accept'
      GROUP BY latest.version_id`,
    [platformId],
  );
  return new Map(rows.map((row) => [row.versionId, Number(row.count)]));
}

export interface RecordRow {
  id: string;
  documentKey: string;
  kind: DocumentKind;
  version: number;
  action: 'accept' | 'withdraw';
  language: string;
  textDigest: string;
  recordedAt: Date;
  sessionId: string | null;
  /** Who recorded it (null: recorded before this was kept, migration 20261128002000). */
  recordedVia: RecordedVia | null;
  /** The recording platform's key when a platform's credential recorded it (the record's own platform). */
  recordedByPlatformKey: string | null;
  versionId: string;
  platformId: string;
  /** The version's text in the language shown. */
  text: DocumentText;
}

const RECORD_SELECT = `
  SELECT r.id::text AS id, d.document_key AS "documentKey", d.kind, r.version, r.action, r.language, r.text_digest AS "textDigest",
         r.recorded_at AS "recordedAt", r.session_id AS "sessionId", r.version_id AS "versionId", r.platform_id AS "platformId",
         r.recorded_via AS "recordedVia",
         CASE WHEN r.recorded_via = 'platform' THEN (SELECT rp.platform_key FROM platforms rp WHERE rp.id = r.platform_id) END AS "recordedByPlatformKey",
         v.texts -> r.language AS text
    FROM agreement_records r
    JOIN platform_documents d ON d.id = r.document_id
    JOIN document_versions v ON v.id = r.version_id`;

/** A person's record, newest first: for one platform, or every platform when `platformId` is null (each row names its platform). */
export async function listRecords(db: Db, userId: string, platformId: string | null): Promise<RecordRow[]> {
  const { rows } = await db.raw<{ rows: RecordRow[] }>(
    `${RECORD_SELECT}
      WHERE r.user_id = :userId AND (CAST(:platformId AS uuid) IS NULL OR r.platform_id = :platformId)
      ORDER BY r.id DESC`,
    { userId, platformId },
  );
  return rows;
}

/**
 * The person's latest record for a document in their current membership (their current state),
 * if any: after leaving and coming back, an acceptance from before is not one to repeat or
 * withdraw.
 */
export async function latestRecord(db: Db, userId: string, documentId: string): Promise<RecordRow | undefined> {
  const { rows } = await db.raw<{ rows: RecordRow[] }>(
    `${RECORD_SELECT} JOIN platform_memberships m ON ${CURRENT_MEMBERSHIP_RECORD} WHERE r.user_id = ? AND r.document_id = ? ORDER BY r.id DESC LIMIT 1`,
    [userId, documentId],
  );
  return rows[0];
}

export interface NewRecord {
  userId: string;
  platformId: string;
  documentId: string;
  versionId: string;
  version: number;
  action: 'accept' | 'withdraw';
  textDigest: string;
  language: string;
  sessionId: string | null;
  /** Who records it: the person's browser session, a Bearer token, or the platform's own credential. */
  recordedVia: RecordedVia;
}

/** Who recorded a row of the record (agreement_records.recorded_via). */
export type RecordedVia = 'session' | 'bearer' | 'platform';

/** Appends one row (the caller holds the person's membership row locked, so two tabs queue). */
export async function insertRecord(db: Db, record: NewRecord): Promise<void> {
  await db.raw(
    `INSERT INTO agreement_records (user_id, platform_id, document_id, version_id, version, action, text_digest, language, session_id, recorded_via)
     VALUES (:userId, :platformId, :documentId, :versionId, :version, :action, :textDigest, :language, :sessionId, :recordedVia)`,
    { ...record },
  );
}

/**
 * Locks the person's membership of the platform, so that acceptances and withdrawals of one
 * person on one platform run one after the other: the check of the latest record and the
 * insert then cannot interleave (two tabs, one row). False when the person is not a member:
 * an agreement never creates a membership (the login's provisioning does), so no one makes
 * themselves known to a platform, and its events, by accepting its documents.
 */
export async function lockMembership(db: Db, userId: string, platformId: string): Promise<boolean> {
  const { rows } = await db.raw<{ rows: unknown[] }>(
    `SELECT 1 FROM platform_memberships WHERE user_id = ? AND platform_id = ? FOR UPDATE`,
    [userId, platformId],
  );
  return rows.length > 0;
}

/** Platforms (active) the person is a member of that have at least one document. */
export async function platformsWithDocumentsOfMember(db: Db, userId: string): Promise<{ id: string; platformKey: string; displayName: string }[]> {
  const { rows } = await db.raw<{ rows: { id: string; platformKey: string; displayName: string }[] }>(
    `SELECT p.id, p.platform_key AS "platformKey", p.display_name AS "displayName"
       FROM platform_memberships m JOIN platforms p ON p.id = m.platform_id
      WHERE m.user_id = ? AND p.active AND EXISTS (SELECT 1 FROM platform_documents d WHERE d.platform_id = p.id)
      ORDER BY p.display_name, p.platform_key`,
    [userId],
  );
  return rows;
}

/**
 * A person's standing with each current document of several platforms (what the onboarding
 * statement reads, on its own), by platform id, in one statement.
 */
export async function documentStandingsOfPlatforms(db: Db, platformIds: readonly string[], userId: string): Promise<Map<string, DocumentStanding[]>> {
  const { rows } = await db.raw<{ rows: { platformId: string; documents: DocumentStanding[] }[] }>(
    `SELECT p.id AS "platformId", (${documentStandingsJson('p.id')}) AS documents FROM unnest(CAST(:platformIds AS uuid[])) AS p (id)`,
    { platformIds: [...platformIds], userId },
  );
  return new Map(rows.map((row) => [row.platformId, row.documents]));
}
