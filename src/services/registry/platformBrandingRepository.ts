import type { Db } from '../../db/knex.ts';
import { PLATFORM_COLUMNS, type PlatformRow } from './platformsRepository.ts';

/** The one type a logo is re-encoded to (the table's check says the same). */
export type LogoMediaType = 'image/png';

// Platform branding (src/services/registry/branding.ts): the colour and the names live on the
// platforms row; a logo's bytes in platform_logos, named by platforms.logo_id.

/** Sets the colour and the names of a platform; undefined when there is no such platform. */
export async function updateBrandingRow(
  db: Db,
  platformKey: string,
  branding: { brandColor: string | null; displayNames: Record<string, string> },
): Promise<PlatformRow | undefined> {
  const { rows } = await db.raw<{ rows: PlatformRow[] }>(
    `UPDATE platforms SET brand_color = ?, display_names = ?::jsonb, updated_at = now() WHERE platform_key = ? RETURNING ${PLATFORM_COLUMNS}`,
    [branding.brandColor, JSON.stringify(branding.displayNames), platformKey],
  );
  return rows[0];
}

/**
 * Publishes a new logo for a platform in one statement: the row is inserted, the platform names
 * it, and the previous logo's row is deleted (its immutable URL stops serving, as a replaced
 * avatar's does). Undefined when there is no such platform (nothing is inserted).
 */
export async function publishLogo(
  db: Db,
  platformKey: string,
  logo: { id: string; mediaType: LogoMediaType; image: Buffer; width: number; height: number },
): Promise<PlatformRow | undefined> {
  const { rows } = await db.raw<{ rows: PlatformRow[] }>(
    `WITH target AS (SELECT id, logo_id FROM platforms WHERE platform_key = :platformKey FOR UPDATE),
          inserted AS (
            INSERT INTO platform_logos (id, platform_id, media_type, image, width, height)
            SELECT :id, target.id, :mediaType, :image, :width, :height FROM target
            RETURNING id, platform_id),
          updated AS (
            UPDATE platforms p SET logo_id = inserted.id, updated_at = now() FROM inserted WHERE p.id = inserted.platform_id
            RETURNING p.*),
          removed AS (DELETE FROM platform_logos l USING target, inserted WHERE l.id = target.logo_id AND l.id <> inserted.id)
     SELECT ${PLATFORM_COLUMNS} FROM updated AS platforms`,
    { platformKey, ...logo },
  );
  return rows[0];
}

/** Removes a platform's logo (row and bytes); undefined when there is no such platform. Idempotent. */
export async function removeLogo(db: Db, platformKey: string): Promise<PlatformRow | undefined> {
  const { rows } = await db.raw<{ rows: PlatformRow[] }>(
    `WITH target AS (SELECT id, logo_id FROM platforms WHERE platform_key = :platformKey FOR UPDATE),
          updated AS (
            UPDATE platforms p SET logo_id = NULL, updated_at = CASE WHEN target.logo_id IS NULL THEN p.updated_at ELSE now() END
              FROM target WHERE p.id = target.id RETURNING p.*),
          removed AS (DELETE FROM platform_logos WHERE platform_id = (SELECT id FROM target))
     SELECT ${PLATFORM_COLUMNS} FROM updated AS platforms`,
    { platformKey },
  );
  return rows[0];
}

/** The bytes of a published logo (the platform's current one), or undefined. */
export async function findLogoImage(db: Db, logoId: string): Promise<{ image: Buffer; mediaType: LogoMediaType } | undefined> {
  const { rows } = await db.raw<{ rows: { image: Buffer; mediaType: LogoMediaType }[] }>(
    `SELECT l.image, l.media_type AS "mediaType" FROM platform_logos l JOIN platforms p ON p.logo_id = l.id WHERE l.id = ?`,
    [logoId],
  );
  return rows[0];
}
