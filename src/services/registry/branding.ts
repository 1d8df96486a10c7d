import { randomUUID } from 'node:crypto';
import type { components } from '../../../generated/gateway.ts';
import type { Db } from '../../db/knex.ts';
import { findLogoImage, publishLogo, removeLogo, updateBrandingRow } from './platformBrandingRepository.ts';
import { findPlatformByKey, lockPlatformByKey, type PlatformRow } from './platformsRepository.ts';
import { ApiError, validationError, type FieldError } from '../../errors/catalogue.ts';
import { recordAuditEvent, type Actor } from '../audit/audit.ts';
import { reencodeImage, type UploadImageType } from '../images/reencode.ts';
import { AA_NORMAL_TEXT, BUTTON_TEXT_COLOR, HEX_COLOR_PATTERN, PAGE_BACKGROUND_COLOR, primaryColorContrast } from '../../domain/contrast.ts';
import { PLATFORM_KEY_PATTERN } from './rules.ts';

// A platform's branding (issue 27): the name shown to people (per language), a primary colour
// that keeps the pages readable (WCAG AA), and a logo checked and re-encoded by the same
// pipeline as avatars and served by the gateway itself. Shared by the admin API and the CLI.
// Nothing of it reaches a page as markup: the names are text (escaped or rendered by React),
// the colour is a validated #rrggbb, and the logo is a URL of this gateway.

export type PlatformBrandingView = components['schemas']['PlatformBranding'];
export type PlatformBrandingInput = components['schemas']['PlatformBrandingRequest'];

/** A logo fits in 256×256 (twice the largest size a page shows it at, for dense screens). */
export const LOGO_MAX_SIDE = 256;
/** The largest logo upload accepted: a logo is small; 1 MiB leaves room for a photo-like one. */
export const LOGO_MAX_BYTES = 1_048_576;
export const LOGO_CACHE_CONTROL = 'public, max-age=31536000, immutable';
export const LOGO_UPLOAD_TYPES: readonly UploadImageType[] = ['image/png', 'image/jpeg', 'image/webp'];

/** BCP 47 (RFC 5646) in the simple shape the contract allows: a primary language and subtags. */
const LANGUAGE_TAG_PATTERN = /^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/;
const DISPLAY_NAMES_MAX = 50;
const DISPLAY_NAME_MAX_LENGTH = 200;

/** The logo's public URL: always this gateway's, so a branded page never loads from another host. */
export const logoUrl = (publicBaseUrl: string, logoId: string) => `${publicBaseUrl}/v1/platform-logos/${logoId}`;

export function toBrandingView(row: PlatformRow, publicBaseUrl: string): PlatformBrandingView {
  return {
    platformKey: row.platformKey,
    displayName: row.displayName,
    displayNames: row.displayNames,
    primaryColor: row.brandColor,
    logoUrl: row.logoId ? logoUrl(publicBaseUrl, row.logoId) : null,
  };
}

/** The checks of a branding body (the CLI does not pass through the contract, so its shapes are repeated). */
export function validateBranding(input: PlatformBrandingInput): { brandColor: string | null; displayNames: Record<string, string> } {
  const errors: FieldError[] = [];
  const color = input.primaryColor;
  if (color !== null && (typeof color !== 'string' || !HEX_COLOR_PATTERN.test(color))) {
    errors.push({ pointer: '/body/primaryColor', message: 'must be a colour written #rrggbb', reason: 'PATTERN' });
  } else if (color !== null) {
    const contrast = primaryColorContrast(color);
    if (!contrast.passes) {
      errors.push({
        pointer: '/body/primaryColor',
        reason: 'INSUFFICIENT_CONTRAST',
        message:
          `must reach the WCAG 2.x AA contrast ratio of ${AA_NORMAL_TEXT}:1 against the button text ${BUTTON_TEXT_COLOR} ` +
          `(it has ${contrast.againstButtonText.toFixed(2)}:1) and the page background ${PAGE_BACKGROUND_COLOR} ` +
          `(it has ${contrast.againstPage.toFixed(2)}:1): choose a darker colour`,
      });
    }
  }
  const names = input.displayNames;
  const displayNames: Record<string, string> = {};
  if (names === null || typeof names !== 'object' || Array.isArray(names)) {
    errors.push({ pointer: '/body/displayNames', message: 'must be an object of language tag → name', reason: 'WRONG_TYPE' });
  } else {
    const entries = Object.entries(names);
    if (entries.length > DISPLAY_NAMES_MAX) errors.push({ pointer: '/body/displayNames', message: `must have at most ${DISPLAY_NAMES_MAX} languages`, reason: 'TOO_MANY' });
    for (const [tag, name] of entries) {
      const pointer = `/body/displayNames/${tag.replaceAll('~', '~0').replaceAll('/', '~1')}`;
      if (!LANGUAGE_TAG_PATTERN.test(tag) || tag.length > 35) errors.push({ pointer, message: 'is not a language tag such as de or pt-BR', reason: 'PATTERN' });
      else if (typeof name !== 'string' || name.trim().length === 0) errors.push({ pointer, message: 'must be a name of 1 to 200 characters', reason: 'TOO_SHORT' });
      else if ([...name].length > DISPLAY_NAME_MAX_LENGTH) errors.push({ pointer, message: 'must be a name of 1 to 200 characters', reason: 'TOO_LONG' });
      else displayNames[tag] = name;
    }
  }
  if (errors.length > 0) throw validationError(errors);
  return { brandColor: color === null ? null : color.toLowerCase(), displayNames };
}

export interface BrandingContext {
  db: Db;
  publicBaseUrl: string;
}

/** The branding of a platform; an inactive one only for a caller that administers platforms. */
export async function getBranding(ctx: BrandingContext, platformKey: string, options: { includeInactive: boolean }): Promise<PlatformBrandingView> {
  const row = PLATFORM_KEY_PATTERN.test(platformKey) ? await findPlatformByKey(ctx.db, platformKey) : undefined;
  if (!row || (!row.active && !options.includeInactive)) throw platformNotFound(platformKey);
  return toBrandingView(row, ctx.publicBaseUrl);
}

/** Replaces colour and names; audited with the fields that changed (none: nothing written). */
export async function setBranding(ctx: BrandingContext, platformKey: string, input: PlatformBrandingInput, actor: Actor): Promise<PlatformBrandingView> {
  const value = validateBranding(input);
  const row = await ctx.db.transaction(async (trx) => {
    const current = await existing(trx, platformKey);
    const changed = [
      ...(current.brandColor !== value.brandColor ? ['primaryColor'] : []),
      ...(sameNames(current.displayNames, value.displayNames) ? [] : ['displayNames']),
    ];
    if (changed.length === 0) return current;
    const updated = await updateBrandingRow(trx, platformKey, value);
    await recordAuditEvent(trx, { action: 'platform.update', platformKey, changedFields: changed }, actor);
    return updated!;
  });
  return toBrandingView(row, ctx.publicBaseUrl);
}

/** Colour, names and logo cleared; idempotent (nothing to clear: nothing written or audited). */
export async function clearBranding(ctx: BrandingContext, platformKey: string, actor: Actor): Promise<PlatformBrandingView> {
  const row = await ctx.db.transaction(async (trx) => {
    const current = await existing(trx, platformKey);
    const changed = [
      ...(current.brandColor !== null ? ['primaryColor'] : []),
      ...(Object.keys(current.displayNames).length > 0 ? ['displayNames'] : []),
      ...(current.logoId !== null ? ['logo'] : []),
    ];
    if (changed.length === 0) return current;
    await updateBrandingRow(trx, platformKey, { brandColor: null, displayNames: {} });
    const cleared = await removeLogo(trx, platformKey);
    await recordAuditEvent(trx, { action: 'platform.update', platformKey, changedFields: changed }, actor);
    return cleared!;
  });
  return toBrandingView(row, ctx.publicBaseUrl);
}

/**
 * A new logo: checked and re-encoded by the avatars' pipeline (src/services/images/reencode.ts)
 * before anything is written, then published in one statement with its audit row.
 */
export async function uploadLogo(ctx: BrandingContext, platformKey: string, bytes: Buffer, declared: UploadImageType, actor: Actor): Promise<PlatformBrandingView> {
  if (!PLATFORM_KEY_PATTERN.test(platformKey)) throw platformNotFound(platformKey);
  if (bytes.length > LOGO_MAX_BYTES) throw new ApiError('PAYLOAD_TOO_LARGE', `A logo may be at most ${LOGO_MAX_BYTES} bytes.`);
  const logo = await reencodeImage(bytes, declared, { maxSide: LOGO_MAX_SIDE, output: { format: 'png' } });
  if (logo.mediaType !== 'image/png') throw new Error('a logo is re-encoded as PNG');
  const row = await ctx.db.transaction(async (trx) => {
    const published = await publishLogo(trx, platformKey, { id: randomUUID(), mediaType: 'image/png', image: logo.data, width: logo.width, height: logo.height });
    if (!published) throw platformNotFound(platformKey);
    await recordAuditEvent(trx, { action: 'platform.update', platformKey, changedFields: ['logo'] }, actor);
    return published;
  });
  return toBrandingView(row, ctx.publicBaseUrl);
}

/** The logo removed (its URL stops serving); idempotent. */
export async function deleteLogo(ctx: BrandingContext, platformKey: string, actor: Actor): Promise<PlatformBrandingView> {
  const row = await ctx.db.transaction(async (trx) => {
    const current = await existing(trx, platformKey);
    if (current.logoId === null) return current;
    const removed = await removeLogo(trx, platformKey);
    await recordAuditEvent(trx, { action: 'platform.update', platformKey, changedFields: ['logo'] }, actor);
    return removed!;
  });
  return toBrandingView(row, ctx.publicBaseUrl);
}

/** GET /v1/platform-logos/{logoId}: the current logo of a platform, else 404. */
export async function readLogo(db: Db, logoId: string): Promise<{ image: Buffer; mediaType: 'image/png' }> {
  const logo = await findLogoImage(db, logoId);
  if (!logo) throw new ApiError('NOT_FOUND', 'No such logo: it may have been replaced or removed.');
  return logo;
}

/** The platform's row, locked for the transaction's change (FOR UPDATE): concurrent writes take turns. */
async function existing(db: Db, platformKey: string): Promise<PlatformRow> {
  const row = PLATFORM_KEY_PATTERN.test(platformKey) ? await lockPlatformByKey(db, platformKey) : undefined;
  if (!row) throw platformNotFound(platformKey);
  return row;
}

function platformNotFound(platformKey: string): ApiError {
  return new ApiError('PLATFORM_NOT_FOUND', `No platform with the key ${JSON.stringify(platformKey.slice(0, 64))} is registered.`);
}

function sameNames(a: Record<string, string>, b: Record<string, string>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => a[key] === b[key]);
}
